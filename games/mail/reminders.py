"""Reminders in slow games: when half the time of a decision is gone, and again with less than 12
hours left, reckoned from the deadline the game page counts down to."""

from collections import defaultdict, namedtuple
from datetime import timedelta
from functools import reduce
from operator import or_

from django.db.models import Q

from accounts.emails import NOTIFICATION_FIELDS
from accounts.models import User
from games import clocks
from games.engine import GameState
from games.infra import presence, rows
from games.mail import kinds, outbox
from games.models import (
    HALF_REMINDER_PENDING,
    LAST_REMINDER_BEFORE,
    LAST_REMINDER_PENDING,
    TIME_PER_MOVE_CHOICES,
    Game,
    Notification,
)


def send_due_reminders(now):
    """Called by the periodic sweep: remind each player of a slow game whose deadline is half gone
    (and again with less than 12 hours left, when that comes later), once per decision; and send
    again any mail whose earlier attempt failed or was lost. Returns how many mails it queued.

    Only games with a reminder due and not yet decided for their deadline are loaded, from the
    partial indexes that hold those alone (`HALF_REMINDER_PENDING`, `LAST_REMINDER_PENDING`,
    games/models.py), so a sweep's cost follows the reminders it sends, not the number of
    running games: once a game's reminder is decided its marker (`reminded_half_for`,
    `reminded_last_for`) is set to the deadline, and the game leaves the index until its
    deadline changes."""
    return send_reminders(now) + outbox.retry_due(now)


def due_games(now):
    """The running games with a reminder due at `now` by their stored deadline and not yet
    decided for it, and possibly a few more (those whose deadline a vacation moves, and finished
    games, are sorted out by `send_reminders`): ranges of partial indexes only."""
    # No status: a game has a deadline while it runs (games/models.py, HALF_REMINDER_PENDING);
    # checked on the rows read all the same.
    # One branch per time per move a game can have (the forms and game records take only the
    # choices), each a range of the partial index game_half_reminder_idx: no scan of every running
    # game for the times in use (bench/sweep.py, bench/README.md). Each branch is whole (its range,
    # the future deadline, the index's own condition) and they are OR-ed at the top: SQLite takes
    # a range of an index for each branch of a top-level OR only, and a partial index only for a
    # branch that states the index's condition. Written as the future deadline AND-ed with an OR
    # of the ranges, SQLite scanned the whole half-reminder index (every running game not reminded
    # yet): 31 ms at 50,000 running games with nothing due, against 3.6 ms this way; PostgreSQL
    # plans the two forms alike (bench/README.md, "The sweep's reminders on SQLite").
    future = Q(deadline__gt=now)
    branches = [
        future & Q(time_per_move=seconds, deadline__lte=now + timedelta(seconds=seconds) / 2) & HALF_REMINDER_PENDING
        for seconds, _label in TIME_PER_MOVE_CHOICES
        if seconds >= kinds.LIVE_BELOW
    ]
    branches.append(
        future & Q(time_per_move__gte=kinds.LIVE_BELOW, deadline__lt=now + LAST_REMINDER_BEFORE) & LAST_REMINDER_PENDING
    )
    return Game.objects.filter(reduce(or_, branches))


def send_reminders(now):
    """The reminders of `send_due_reminders`, without the retries. Returns how many mails it
    queued."""
    created, passed_over = [], []
    games = list(due_games(now).defer("state"))
    # The seats as plain rows (`SeatRow`), not model instances with their players': a sweep may
    # find thousands of games due at once, and most of their players want no reminder (each is
    # passed over with a row of its own). Only the games with a mail to compose read their seats
    # and players whole, after (`_mailing_seats`).
    seats_of = _seat_rows(games, now)
    # The deadline each game's reminders go by: the one its page counts down to, later than the
    # stored one while a player to act is on a vacation that stops the clock (games/clocks.py).
    # The stored one is as early or earlier, so the query above finds every game with a reminder
    # due; those whose reminder is not due by the later deadline wait (and are looked at again
    # by the next sweeps: their markers are left as they are).
    games = [game for game in games if game.status == Game.Status.ACTIVE]
    stored = {game.pk: game.deadline for game in games}
    deadline_of = _reminder_deadlines(games, seats_of, now)
    games = [game for game in games if _reminder_due(game, deadline_of[game.pk], now)]
    # Who was reminded of each game's deadline already (at an earlier version of the same
    # decision): one query for all the games.
    decided = defaultdict(set)
    reminded = Notification.objects.filter(
        game__in=[game.pk for game in games],
        kind__in=["reminder_half", "reminder_last"],
        scope__in={_reminder_scope(deadline_of[game.pk]) for game in games},
    )
    for game_id, kind, scope, user_id in reminded.values_list("game_id", "kind", "scope", "user_id"):
        decided[game_id, kind, scope].add(user_id)
    mailing = []
    for game in games:
        total = timedelta(seconds=game.time_per_move)
        # The mails say this deadline (the game object is not saved).
        game.deadline = deadline_of[game.pk]
        # The last reminder only when it comes after the halfway one; a sweep that finds both due
        # (it was stopped a while) sends the last alone.
        if game.deadline - now < LAST_REMINDER_BEFORE and total / 2 > LAST_REMINDER_BEFORE:
            kind = "reminder_last"
        else:
            kind = "reminder_half"
        scope = _reminder_scope(game.deadline)
        seats = seats_of[game.pk]
        for index in game.to_act:
            seat = seats[index]
            if seat.user_id in decided[game.pk, kind, scope]:
                continue
            if not seat.wants_reminders:
                # Decided all the same, so that the next sweeps pass over this game.
                passed_over.append(Notification(
                    user_id=seat.user_id, game_id=game.pk, version=game.version, kind=kind, scope=scope,
                    status=Notification.Status.DROPPED,
                ))
                continue
            mailing.append((game, kind, scope, index))
        # Decided for the deadline read (not the game's present one, should a move have changed it
        # meanwhile: the game then stays in the index for its new deadline).
        game.reminded_half_for = stored[game.pk]
        if kind == "reminder_last":
            game.reminded_last_for = stored[game.pk]
    # Not to a player who has the game open now: he sees the clock on the page. His reminder is
    # not decided, so his game stays among those the next sweeps read, and he is reminded once
    # he has left the table, if the reminder is still due then.
    def player(item):
        game, _kind, _scope, index = item
        return game.pk, seats_of[game.pk][index].user_id

    present = presence.at_the_table(map(player, mailing), now)
    if present:
        waiting = {game.pk for game, *_ in filter(lambda item: player(item) in present, mailing)}
        mailing = [item for item in mailing if player(item) not in present]
        games = [game for game in games if game.pk not in waiting]
    created += _record_mails(mailing, now)
    Notification.objects.bulk_create(passed_over, ignore_conflicts=True)
    outbox.queue_sending(created)
    # One UPDATE by key per game, sent together (Django's bulk_update builds a CASE per field and
    # game: 38 s of a sweep that decided 3,300 games' reminders, bench/sweep.py).
    rows.update_each(games, ["reminded_half_for", "reminded_last_for"])
    return len(created)


def _reminder_scope(deadline):
    # A simultaneous choice keeps its deadline across versions: remind once per deadline.
    return f"deadline {deadline.isoformat()}"


# A seat of a game with a reminder due, as `_seat_rows` reads it: whether its player may be on a
# vacation (`clocks.with_vacation_hint`) and wants reminders by mail (the setting, a verified
# address, an active account: `kinds.wants`).
SeatRow = namedtuple("SeatRow", "index user_id maybe_away wants_reminders")


def _seat_rows(games, now):
    """{game id: {index: SeatRow}} of `games`: one query, plain rows."""
    seats_of = defaultdict(dict)
    if not games:
        return seats_of
    setting = f"user__{NOTIFICATION_FIELDS['reminder']}"
    found = (
        clocks.with_vacation_hint(kinds.seats_with_mail(), now)
        .filter(game_id__in=[game.pk for game in games])
        .values_list("game_id", "index", "user_id", "maybe_away", "verified", "user__is_active", "user__email", setting)
    )
    for game_id, index, user_id, maybe_away, verified, active, email, wanted in found:
        seats_of[game_id][index] = SeatRow(index, user_id, maybe_away, bool(wanted and verified and active and email))
    return seats_of


def _record_mails(mailing, now):
    """Record the reminders of `mailing`, [(game, kind, scope, seat index)], whose players want
    them: each game's state and its seats with their players read whole for the mail (one query
    for the seats of all the games). Returns the notifications recorded."""
    if not mailing:
        return []
    seats_of = defaultdict(dict)
    for seat in clocks.with_vacation_hint(kinds.seats_with_mail(), now).filter(
        game_id__in={game.pk for game, *_ in mailing}
    ):
        seats_of[seat.game_id][seat.index] = seat
    created, states = [], {}
    for game, kind, scope, index in mailing:
        seats = seats_of[game.pk]
        if game.pk not in states:
            states[game.pk] = GameState.from_json(game.state)
        created += outbox.record_mail(seats[index].user, game, kind, state=states[game.pk], seat=index, seats=seats,
                                      scope=scope, verified=kinds.verified_users(seats.values()))
    return created


def _reminder_deadlines(games, seats_of, now):
    """{game id: the deadline of its pending decision as its page shows it}: the stored one, or
    where the vacations under way at `now` of the seats to act move it (`clocks.
    deadline_after_vacations`, what the sweep stores once the stored one has passed). One query
    for the vacations of all the games (and one for those players), none when no player to act
    may be on one. `seats_of`: `_seat_rows`."""
    away = {
        seat.user_id for game in games if game.clocks_stop_for_vacations
        for seat in seats_of[game.pk].values() if seat.maybe_away and seat.index in game.to_act
    }
    spans = clocks.vacation_spans(list(User.objects.filter(pk__in=away)), now) if away else {}
    deadlines = {}
    for game in games:
        deadlines[game.pk] = clocks.deadline_shown(game, seats_of[game.pk].values(), spans)
    return deadlines


def _reminder_due(game, deadline, now):
    """Whether a reminder of `game` is due at `now` by `deadline`: half its time gone, or less than
    LAST_REMINDER_BEFORE left in a game with more than twice that per move."""
    total = timedelta(seconds=game.time_per_move)
    left = deadline - now
    return left <= total / 2 or (total > 2 * LAST_REMINDER_BEFORE and left < LAST_REMINDER_BEFORE)

