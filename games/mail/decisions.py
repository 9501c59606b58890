"""Which mails a saved change calls for (the game's start and end, "your move" to a seat that newly
has to act, never while its player has the game open), and the MailToDecide row a commit keeps
until they are decided."""

import logging
from collections import defaultdict
from datetime import timedelta

from django.utils import timezone

from accounts.models import User
from games.engine import to_act
from games.infra import presence, rows
from games.mail import kinds, outbox
from games.models import Game, MailToDecide, Move, Notification, Seat

logger = logging.getLogger(__name__)

# A turn that comes back to its player this long after their last move mails them again.
BACK_AFTER = timedelta(minutes=15)


def game_saved(game, state, previous_to_act):
    """After the commit of a new state: record and queue the mails it calls for. Called with the
    saved Game, the engine state that made it, and the seats that had to act before (None when
    unknown: every seat to act now then has a new decision). A commit's mails are decided through
    games/play/after_save.py, which decides those of a sweep's batch together (`games_saved`)."""
    games_saved([(game, state, previous_to_act)])


def games_saved(saved):
    """`game_saved` for several (game, state, previous_to_act), their seats asked in one query.
    The MailToDecide rows of those decided go (one statement); a game whose decision failed keeps
    its row, for the sweep to decide again (`decide_lost`). Returns the ids of the games decided."""
    to_decide = []
    for game, state, previous_to_act in saved:
        started, newly_acting = _what_is_new(state, previous_to_act)
        # When the same players go on deciding there is nothing to tell anyone, and no query to ask.
        if state.is_over or started or newly_acting:
            to_decide.append((game, state, started, newly_acting))
    if not to_decide:
        return set()
    seats_of, concerned = _seats_concerned(to_decide)
    decided, waiting = [], []
    for game, state, started, newly_acting in to_decide:
        if game.pk not in concerned:
            decided.append((game.pk, game.version))
            continue
        seats = seats_of[game.pk]
        deferred = {}
        try:
            created = decide(game, state, started, newly_acting, seats, kinds.verified_users(seats.values()), deferred)
        except Exception:
            logger.exception("the mails of game %s at version %s were not decided", game.pk, game.version)
            continue
        if deferred:
            waiting.append((game, deferred))
        else:
            decided.append((game.pk, game.version))
        # Recorded, they are safe: a mail whose task is lost is sent by `retry_due`.
        try:
            outbox.queue_sending(created)
        except Exception:
            logger.exception("the mails of game %s at version %s were not queued", game.pk, game.version)
    try:
        rows.delete_each(MailToDecide, ["game", "version"], decided)
    except Exception:
        # Deciding again finds the mails recorded: the sweep only clears the rows then.
        logger.exception("the mail decisions of %d games were not cleared", len(decided))
    for game, deferred in waiting:
        # The row of this commit waits for the sweep (`decide_waiting`); one that could not be
        # marked stays as it is, and the sweep decides it as lost, presence and all.
        try:
            _wait(game.pk, game.version, deferred)
        except Exception:
            logger.exception("the waiting mails of game %s at version %s were not recorded", game.pk, game.version)
    return {game_id for game_id, _ in decided} | {game.pk for game, _ in waiting}


def _seats_concerned(to_decide):
    """({game id: {index: Seat, with its player and whether that player has a verified address}},
    the ids of the games whose mails `decide` must look at) for `to_decide` [(game, state, started,
    newly acting)].

    `decide` looks at a game's start (whose mails also depend on who has it open), and at a game
    where a seat it may mail (every seat at the end, else those newly acting) has a player with a
    verified address and an active account (`kinds.verified_users`), or no player. For any other
    game it would record nothing and defer nothing, whatever the players' settings: it is
    decided without, and its seats and players are neither read whole nor made model objects (a
    batch of a sweep whose players get no mail made a thousand of them for nothing). So one query
    reads what tells the games apart, for all the games (a few columns a seat, as plain rows),
    and a second one, only when some game is concerned, the seats and players of those games."""
    found = kinds.seats_with_mail().filter(game_id__in=[game.pk for game, *_ in to_decide])
    rows_of = defaultdict(dict)
    for game_id, index, user_id, verified, active, email in found.values_list(
        "game_id", "index", "user_id", "verified", "user__is_active", "user__email"
    ):
        rows_of[game_id][index] = user_id is None or bool(verified and active and email)
    concerned = set()
    for game, state, started, newly_acting in to_decide:
        may_mail = rows_of[game.pk]
        if started or any(may_mail.get(index) for index in (may_mail if state.is_over else newly_acting)):
            concerned.add(game.pk)
    seats_of = defaultdict(dict)
    if not concerned:
        return seats_of, concerned
    seat_columns = [field.attname for field in Seat._meta.concrete_fields]
    user_columns = [field.attname for field in User._meta.concrete_fields]
    verified_at, user_at = len(seat_columns), seat_columns.index("user_id")
    for row in found.filter(game_id__in=concerned).values_list(
        *seat_columns, "verified", *(f"user__{name}" for name in user_columns)
    ):
        seat = Seat.from_db(Seat.objects.db, seat_columns, row[:verified_at])
        seat.verified = row[verified_at]
        seat.user = None if row[user_at] is None else User.from_db(User.objects.db, user_columns, row[verified_at + 1:])
        seats_of[seat.game_id][seat.index] = seat
    return seats_of, concerned


def _what_is_new(state, previous_to_act):
    """(whether `state` is a game's start, the seats that have a new decision in it)."""
    # Only the state new_game made carries the setup among its events.
    started = any(event["event"] == "setup" for event in state.events)
    newly_acting = set() if state.is_over else set(to_act(state)) - set(previous_to_act or ())
    return started, newly_acting


def to_decide(game, state, previous_to_act):
    """The MailToDecide row (unsaved) that the commit of `game` at its new version, with `state`,
    must write in its own transaction; None when that commit calls for no mail."""
    started, newly_acting = _what_is_new(state, previous_to_act)
    if not (state.is_over or started or newly_acting):
        return None
    return MailToDecide(
        game=game,
        version=game.version,
        previous_to_act=sorted(previous_to_act or ()),
        started=started,
    )


def decide(game, state, started, newly_acting, seats, verified, deferred):
    """Record the mails of one commit; the seats whose "your move" mail waits for their player to
    be away go into `deferred` ({seat: until when})."""
    created = []
    # A tournament's table (the tournaments app's Table, by its relation's name: mail imports no app
    # above it) is announced by the tournament's own mail, which says more: no start mail besides.
    announced_elsewhere = started and Game.objects.filter(pk=game.pk, tournament_table__isnull=False).exists()
    for index, seat in seats.items():
        user = seat.user
        if state.is_over:
            created += outbox.record_mail(user, game, "game_finished", state=state, seat=index, seats=seats,
                                      verified=verified)
            continue
        if started and not announced_elsewhere:
            if _at_the_table(game, user, index, newly_acting, deferred):
                continue
            mail = outbox.record_mail(
                user, game, "game_started", state=state, seat=index, seats=seats, verified=verified
            )
            created += mail
            if mail or Notification.objects.filter(user=user, game=game, version=game.version,
                                                   kind="game_started").exists():
                # The start mail already says what is asked: one mail, not two.
                continue
        if announced_elsewhere and Notification.objects.filter(user=user, game=game, kind="tournament_table").exists():
            # The table's mail said what the entrant decides first: one mail, not two. Only once it
            # is recorded: a table mail that failed to be recorded (tournaments/mail.py) leaves the
            # first decision to "your move", never to no mail at all.
            continue
        if index in newly_acting and not seat.answers_ahead_now(state):
            # A question its player answers ahead is answered for him in a moment: no mail.
            created += your_move(user, game, state, index, seats, verified, deferred)
    return created


def _at_the_table(game, user, index, newly_acting, deferred):
    """Whether the player had the game open when it started (or within the grace after): they saw
    it start, so no start mail; a decision of theirs waits as a "your move" mail does."""
    until = presence.quiet_until(game.pk, user.pk, timezone.now())
    if until is None:
        return False
    if index in newly_acting:
        deferred[index] = until
    return True


def your_move(user, game, state, seat, seats, verified, deferred, now=None):
    if kinds.is_live(game):
        if not kinds.wants(user, "live_your_move", verified):
            return []
        kind = "live_your_move"
    else:
        if user.digest == User.Digest.DAILY or not kinds.wants(user, "your_move", verified):
            return []
        kind = "your_move"
    now = now or timezone.now()
    # Not while the player has the game open, nor within the grace after: the sweep looks again.
    until = presence.quiet_until(game.pk, user.pk, now)
    if until is not None:
        deferred[seat] = until
        return []
    # Called only for a seat that newly has to act: the decisions a player makes one after the
    # other (the court move, the card, the action of one turn) make one mail. A turn that comes
    # back to its player after others decided (a veto question, a King's-return share) makes
    # another when that took them a while (they may have left the table), not when a computer
    # player or a quick opponent answered at once.
    scope = ""
    if state.current_player == seat:
        scope = f"turn {state.round}/{seat}"
        if Notification.objects.filter(user=user, game=game, kind=kind, scope=scope).exists():
            moved = Move.objects.filter(game=game, seat__index=seat).order_by("-version")
            last = moved.values_list("created_at", flat=True).first()
            if last is not None and now - last < BACK_AFTER:
                return []
    return outbox.record_mail(user, game, kind, state=state, seat=seat, seats=seats, scope=scope, verified=verified)


def _wait(game_id, version, deferred):
    """Keep the MailToDecide row of `game_id` at `version` for the sweep: its seats in `deferred`
    wait, and the row is looked at again at the earliest of their times."""
    MailToDecide.objects.update_or_create(
        game_id=game_id, version=version,
        defaults={"waiting_for": sorted(deferred), "due_at": min(deferred.values())},
    )
