"""Which mails to send when, and how each looks. The sending itself is `games.tasks`' job.

Every mail is first recorded as a `Notification` row keyed by (recipient, game, version, kind), with
its message rendered from what the recipient's own seat may see (`view_for(state, seat)`, never the
raw state). Deciding twice finds the row already there; sending twice finds it already sent.

Each mail is written in its recipient's language (User.mail_language; an invitation to an address
without an account in the inviter's), whatever the language of the request that caused it.

Kinds and the User field that switches each off (accounts.emails.NOTIFICATION_FIELDS):
your_move (live games: live_your_move), reminder_half and reminder_last (reminder), game_started,
game_finished, invitation, and digest (your_move: it replaces the single "your move" mails of
slow games for players who chose the daily digest).

No "your move" mail goes while its player has the game open, nor within YOUR_MOVE_GRACE_SECONDS
after (games/infra/presence.py): the commit's MailToDecide row then waits, and the sweep mails the
decision once if it is still theirs when the grace is over (`decide_waiting`).
"""

import logging
import smtplib
import socket
from collections import defaultdict
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import timedelta
from types import SimpleNamespace
from urllib.parse import urlsplit

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.core.mail import EmailMultiAlternatives, get_connection, make_msgid
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, Prefetch, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from accounts import friends
from accounts.emails import NOTIFICATION_FIELDS, has_verified_email, verified_email, wants_mail
from accounts.models import User
from games import clocks
from games.engine import GameState, to_act, view_for
from games.infra import presence, rows, work
from games.mail import game_over_mail, turn_report
from games.models import (
    HALF_REMINDER_PENDING,
    LAST_REMINDER_BEFORE,
    LAST_REMINDER_PENDING,
    TIME_PER_MOVE_CHOICES,
    Game,
    MailOptOut,
    MailToDecide,
    Move,
    Notification,
    Seat,
)
from games.words.texts import fill_view, seat_name

logger = logging.getLogger(__name__)

# The decisions of `mail_decided_together()`: [(game, state, previous_to_act)], or None outside of it.
_held = ContextVar("held_mail_decisions", default=None)

# Games with less time per move than this are live: players are at the table.
LIVE_BELOW = 60 * 60
# A turn that comes back to its player this long after their last move mails them again.
BACK_AFTER = timedelta(minutes=15)
# A mail that fails is tried again 1, 2, 4 … minutes later, at most 6 hours apart: its 13th
# attempt comes 26.5 hours after its first, so a mail server away for a day loses nothing.
MAX_ATTEMPTS = 13
FIRST_RETRY_AFTER = timedelta(minutes=1)
LONGEST_RETRY_AFTER = timedelta(hours=6)
# A row still `pending` or `sending` this long after it was queued or claimed was lost (a broker
# that refused the task, a worker killed before it handed the mail over): the sweep sends it.
LOST_AFTER = timedelta(minutes=10)
# A commit whose mails are not decided this long after it was made lost them on the way (see
# MailToDecide): the sweep decides them, a sweep at a time.
MAIL_DECISION_LOST_AFTER = timedelta(minutes=2)
MAIL_DECISION_GIVEN_UP_AFTER = timedelta(days=1)
# A "your move" mail that waits for its player to leave the table waits this long at most.
WAITING_GIVEN_UP_AFTER = timedelta(days=1)
LOST_DECISIONS_PER_SWEEP = 200
INVITATIONS_PER_GAME = 30
# The digest goes out at this hour of the player's own day.
DIGEST_HOUR = 7

# The settings field each kind of mail answers to; the unsubscribe link switches it off.
SETTING_OF_KIND = {
    "your_move": "your_move",
    "live_your_move": "live_your_move",
    "reminder_half": "reminder",
    "reminder_last": "reminder",
    "game_started": "game_started",
    "game_finished": "game_finished",
    "invitation": "invitation",
    "digest": "your_move",
    # A tournament's table for a round (tournaments/mail.py): its game starts with it.
    "tournament_table": "game_started",
}
SETTING_LABELS = {
    "your_move": gettext_lazy("“your move” mails (and the daily digest) for slow games"),
    "live_your_move": gettext_lazy("“your move” mails for live games"),
    "reminder": gettext_lazy("reminders before your deadlines"),
    "game_started": gettext_lazy("mails when a game you joined starts"),
    "game_finished": gettext_lazy("mails when a game you played ends"),
    "invitation": gettext_lazy("invitations to private games"),
}

# What a decision asks, by the `kind` of `view_for(...)["decision"]`.
ASKED = {
    "bid": gettext_lazy("your bid"),
    "court": gettext_lazy("your court move"),
    "card": gettext_lazy("take a card"),
    "action": gettext_lazy("your placement and special action"),
    "region": gettext_lazy("choose a region"),
    "share": gettext_lazy("send your King's-return share"),
    "veto": gettext_lazy("answer a veto question"),
    "counter_veto": gettext_lazy("answer a veto question"),
    "castillo": gettext_lazy("your Castillo choice"),
}
# A player's place at the end of a game (2 to 5 players), in a mail's subject.
PLACES = {
    1: pgettext_lazy("place in a game", "1st"),
    2: pgettext_lazy("place in a game", "2nd"),
    3: pgettext_lazy("place in a game", "3rd"),
    4: pgettext_lazy("place in a game", "4th"),
    5: pgettext_lazy("place in a game", "5th"),
}
UNSUBSCRIBE_SALT = "games.notifications.unsubscribe"
# The kinds of mail that tell a player what they are asked to decide.
TELLS_WHAT_IS_ASKED = ("your_move", "live_your_move", "game_started")


class SendFailed(Exception):
    """A mail server did not take a recorded mail; the failure is already recorded and logged."""


def is_live(game):
    return game.time_per_move < LIVE_BELOW


# ---- deciding -----------------------------------------------------------------------------------


def game_saved(game, state, previous_to_act):
    """After the commit of a new state: record and queue the mails it calls for. Called with the
    saved Game, the engine state that made it, and the seats that had to act before (None when
    unknown: every seat to act now then has a new decision). Inside `mail_decided_together()`, only noted."""
    decisions = _held.get()
    if decisions is None:
        games_saved([(game, state, previous_to_act)])
    else:
        decisions.append((game, state, previous_to_act))


@contextmanager
def mail_decided_together():
    """Hold the decisions of `game_saved` made inside, and make them together when it ends: for
    the deadline sweep, one query for the seats and players of a batch of games instead of one
    per game. They are about commits already made: a failure is logged, never raised, and the
    MailToDecide rows of those commits stay for the sweep to decide (`decide_lost`)."""
    decisions = []
    token = _held.set(decisions)
    try:
        yield
    finally:
        _held.reset(token)
        if decisions:
            try:
                games_saved(decisions)
            except Exception:
                logger.exception("the mails of %d games were not decided", len(decisions))


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
    seats_of = defaultdict(dict)
    for seat in _seats_with_mail().filter(game_id__in=[decided[0].pk for decided in to_decide]):
        seats_of[seat.game_id][seat.index] = seat
    decided, waiting = [], []
    for game, state, started, newly_acting in to_decide:
        seats = seats_of[game.pk]
        deferred = {}
        try:
            created = _decide(game, state, started, newly_acting, seats, _verified(seats.values()), deferred)
        except Exception:
            logger.exception("the mails of game %s at version %s were not decided", game.pk, game.version)
            continue
        if deferred:
            waiting.append((game, deferred))
        else:
            decided.append((game.pk, game.version))
        # Recorded, they are safe: a mail whose task is lost is sent by `retry_due`.
        try:
            _queue(created)
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


def decide_lost(now):
    """Decide the mails of the commits whose decision was lost: their MailToDecide row is still
    there MAIL_DECISION_LOST_AFTER after the commit (a worker killed, a process restarted or the
    database lost between a commit and its mails). Returns how many games it decided.

    A game that has moved on since is decided at its present version (`_as_lost`): whoever must
    act now hears of it once, at the version they can act on, unless they were told already and
    have not moved since (they had to act before the lost commit, or a mail asked them since).
    A decision that keeps failing for MAIL_DECISION_GIVEN_UP_AFTER is given up, with an error in
    the log."""
    # Given up first, whatever their number, so that rows that keep failing never fill the
    # sweep's share and hold up those lost after them for longer than a day.
    given_up = MailToDecide.objects.filter(created_at__lte=now - MAIL_DECISION_GIVEN_UP_AFTER, due_at__isnull=True)
    _give_up(given_up, "the mails of game %s at version %s could not be decided for a day: given up", logging.ERROR)
    lost = list(
        MailToDecide.objects.filter(created_at__lte=now - MAIL_DECISION_LOST_AFTER, due_at__isnull=True)
        .order_by("game_id", "version")
        .values_list("game_id", "version", "previous_to_act", "started")[:LOST_DECISIONS_PER_SWEEP]
    )
    earliest = {}
    for game_id, version, previous_to_act, started in lost:
        earliest.setdefault(game_id, (version, previous_to_act, started))
    games = Game.objects.in_bulk(list(earliest))
    saved, done = [], set()
    for game_id, (version, previous_to_act, started) in earliest.items():
        game = games.get(game_id)
        if game is None:
            continue  # deleted meanwhile, and its rows with it
        logger.warning("deciding the mails of game %s at version %s, which were lost", game_id, version)
        try:
            state, previous_to_act = _as_lost(game, version, previous_to_act, started)
        except Exception:
            logger.exception("the mails of game %s at version %s were not decided", game_id, version)
            continue
        if to_decide(game, state, previous_to_act) is None:
            done.add(game_id)
        else:
            saved.append((game, state, previous_to_act))
    if saved:
        done |= games_saved(saved)
    if done:
        # The lost decisions of a game decided at its present version are all made.
        MailToDecide.objects.filter(
            Q(*(Q(game_id=game_id, version__lte=games[game_id].version) for game_id in done), _connector=Q.OR),
            due_at__isnull=True,
        ).delete()
    return len(done)


def _as_lost(game, version, previous_to_act, started):
    """(the state, the seats told before) with which to decide at its present version the mails of
    `game` lost at `version`."""
    state = GameState.from_json(game.state)
    if game.version == version:
        if started:
            # A state's events are not stored; the game's first ones are, and they say it started.
            state.events = game.first_events
        # Deciding again at the same version finds what was recorded (Notification's keys).
        return state, previous_to_act
    # The game has moved on. A player counts as told of what they must decide now if they have
    # not moved since they last were: they had to act before `version`, or a mail asked them
    # since (a decision made at `version` whose row was only not cleared, or one made later).
    # A start already announced is not announced again.
    told = Notification.objects.filter(game=game, version__gte=version, kind__in=TELLS_WHAT_IS_ASKED)
    if started and not told.filter(kind="game_started").exists():
        state.events = game.first_events
    moves = Move.objects.filter(game=game)
    asked_since = told.filter(user=OuterRef("user")).exclude(
        Exists(moves.filter(seat=OuterRef(OuterRef("pk")), version__gt=OuterRef("version")))
    )
    # (The move that made `version` is one of theirs: the seats to act before it.)
    moved_since = set(moves.filter(version__gte=version).values_list("seat__index", flat=True))
    previous_to_act = {seat for seat in previous_to_act if seat not in moved_since} | set(
        Seat.objects.filter(game=game).filter(Exists(asked_since)).values_list("index", flat=True)
    )
    return state, previous_to_act


def _decide(game, state, started, newly_acting, seats, verified, deferred):
    """Record the mails of one commit; the seats whose "your move" mail waits for their player to
    be away go into `deferred` ({seat: until when})."""
    created = []
    # A tournament's table (the tournaments app's Table, by its relation's name: mail imports no app
    # above it) is announced by the tournament's own mail, which says more: no start mail besides.
    announced_elsewhere = started and Game.objects.filter(pk=game.pk, tournament_table__isnull=False).exists()
    for index, seat in seats.items():
        user = seat.user
        if state.is_over:
            created += _record(user, game, "game_finished", state=state, seat=index, seats=seats, verified=verified)
            continue
        if started and not announced_elsewhere:
            if _at_the_table(game, user, index, newly_acting, deferred):
                continue
            mail = _record(user, game, "game_started", state=state, seat=index, seats=seats, verified=verified)
            created += mail
            if mail or Notification.objects.filter(user=user, game=game, version=game.version,
                                                   kind="game_started").exists():
                # The start mail already says what is asked: one mail, not two.
                continue
        if index in newly_acting:
            created += _your_move(user, game, state, index, seats, verified, deferred)
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


def _seats_with_mail():
    """Seats with their players and whether each has a verified address, in one query."""
    return Seat.objects.select_related("user").annotate(verified=verified_email("user"))


def _verified(seats):
    return {seat.user_id for seat in seats if seat.verified and seat.user.is_active and seat.user.email}


def _wants(user, setting, verified):
    """accounts.emails.wants_mail, with the verified addresses already looked up."""
    return getattr(user, NOTIFICATION_FIELDS[setting]) and user.pk in verified


def _your_move(user, game, state, seat, seats, verified, deferred, now=None):
    if is_live(game):
        if not _wants(user, "live_your_move", verified):
            return []
        kind = "live_your_move"
    else:
        if user.digest == User.Digest.DAILY or not _wants(user, "your_move", verified):
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
    return _record(user, game, kind, state=state, seat=seat, seats=seats, scope=scope, verified=verified)


def _wait(game_id, version, deferred):
    """Keep the MailToDecide row of `game_id` at `version` for the sweep: its seats in `deferred`
    wait, and the row is looked at again at the earliest of their times."""
    MailToDecide.objects.update_or_create(
        game_id=game_id, version=version,
        defaults={"waiting_for": sorted(deferred), "due_at": min(deferred.values())},
    )


def _give_up(rows_given_up, message, level):
    """Log and delete the MailToDecide rows of `rows_given_up`: one statement when there are none,
    as in nearly every sweep (a DELETE besides only for rows found, those logged)."""
    found = list(rows_given_up.values_list("pk", "game_id", "version"))
    for _pk, game_id, version in found:
        logger.log(level, message, game_id, version)
    if found:
        MailToDecide.objects.filter(pk__in=[pk for pk, _game_id, _version in found]).delete()


def decide_waiting(now):
    """The "your move" mails that waited for their players to be away (`presence`), now due: each
    goes, at the game's present version, to a player who still has to act and has not come back
    (then it waits again). The decisions that waited together make one mail: none goes to a player
    asked by mail since the version a row is about. Returns how many mails it recorded."""
    # A row that waits for longer than a day (a decision that kept failing, a page open that long)
    # ends: its reminders still go.
    given_up = MailToDecide.objects.filter(due_at__isnull=False, created_at__lte=now - WAITING_GIVEN_UP_AFTER)
    _give_up(given_up, "the waiting mails of game %s at version %s waited for a day: dropped", logging.WARNING)
    due = MailToDecide.objects.filter(due_at__lte=now).order_by("due_at", "game_id", "version")
    rows_due = list(due[:LOST_DECISIONS_PER_SWEEP])
    games = Game.objects.in_bulk([row.game_id for row in rows_due])
    created = []
    for row in rows_due:
        game = games.get(row.game_id)
        try:
            deferred = {}
            if game is not None and game.status == Game.Status.ACTIVE:
                state = GameState.from_json(game.state)
                seats = {seat.index: seat for seat in _seats_with_mail().filter(game=game)}
                verified = _verified(seats.values())
                for index in row.waiting_for:
                    # One that has acted since has nothing waiting: a later decision has its own row.
                    if index not in game.to_act or index not in seats:
                        continue
                    user = seats[index].user
                    told = Notification.objects.filter(
                        user=user, game=game, kind__in=TELLS_WHAT_IS_ASKED, version__gte=row.version
                    )
                    if not told.exists():
                        created += _your_move(user, game, state, index, seats, verified, deferred, now)
            if deferred:
                MailToDecide.objects.filter(pk=row.pk).update(
                    waiting_for=sorted(deferred), due_at=min(deferred.values())
                )
            else:
                MailToDecide.objects.filter(pk=row.pk).delete()
        except Exception:
            logger.exception("the waiting mails of game %s at version %s were not decided", row.game_id, row.version)
            # Looked at again later, not at every sweep; a day on, given up (above).
            try:
                MailToDecide.objects.filter(pk=row.pk).update(due_at=now + MAIL_DECISION_LOST_AFTER)
            except Exception:
                logger.exception("the waiting mails of game %s were not put off", row.game_id)
    _queue(created)
    return len(created)


def sweep(now):
    """The mail part of the periodic sweep (games.deadlines): the decisions lost on the way
    (`decide_lost`), the reminders due and the retries; embedded, where no Celery beat sends
    `send_daily_digests`, the digests too, once an hour. A failure here is logged and never
    stops the deadlines' sweep."""
    try:
        decide_lost(now)
        decide_waiting(now)
        send_due_reminders(now)
        # cache.add succeeds once per key: one digest pass per hour (per process, embedded).
        if not settings.REDIS_URL and cache.add(f"digests-{now:%Y-%m-%d-%H}", True, timeout=2 * 60 * 60):
            send_digests(now)
    except Exception:
        logger.exception("the mail part of the sweep failed; the next sweep tries again")


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
    created, passed_over = [], []
    # No status: a game has a deadline while it runs (games/models.py, HALF_REMINDER_PENDING);
    # checked on the rows read all the same.
    slow = Game.objects.filter(deadline__gt=now, time_per_move__gte=LIVE_BELOW)
    # One branch per time per move a game can have (the forms and game records take only the
    # choices), each a range of the partial index game_half_reminder_idx: no scan of every running
    # game for the times in use (bench/sweep.py, bench/README.md).
    half_due = Q(pk__in=[])
    for seconds, _label in TIME_PER_MOVE_CHOICES:
        if seconds >= LIVE_BELOW:
            half_due |= Q(time_per_move=seconds, deadline__lte=now + timedelta(seconds=seconds) / 2)
    last_due = Q(deadline__lt=now + LAST_REMINDER_BEFORE)
    games = list(
        slow.filter((half_due & HALF_REMINDER_PENDING) | (last_due & LAST_REMINDER_PENDING))
        .defer("state")
        .prefetch_related(Prefetch(
            "seats", queryset=clocks.with_vacation_hint(_seats_with_mail(), now), to_attr="seats_with_mail"
        ))
    )
    # The deadline each game's reminders go by: the one its page counts down to, later than the
    # stored one while a player to act is on a vacation that stops the clock (games/clocks.py).
    # The stored one is as early or earlier, so the query above finds every game with a reminder
    # due; those whose reminder is not due by the later deadline wait (and are looked at again
    # by the next sweeps: their markers are left as they are).
    games = [game for game in games if game.status == Game.Status.ACTIVE]
    stored = {game.pk: game.deadline for game in games}
    deadline_of = _reminder_deadlines(games, now)
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
        state = None
        seats = {seat.index: seat for seat in game.seats_with_mail}
        verified = _verified(seats.values())
        for index in game.to_act:
            user = seats[index].user
            if user.pk in decided[game.pk, kind, scope]:
                continue
            if not _wants(user, "reminder", verified):
                # Decided all the same, so that the next sweeps pass over this game.
                passed_over.append(Notification(
                    user=user, game=game, version=game.version, kind=kind, scope=scope,
                    status=Notification.Status.DROPPED,
                ))
                continue
            if state is None:
                state = GameState.from_json(game.state)
            created += _record(user, game, kind, state=state, seat=index, seats=seats, scope=scope,
                               verified=verified)
        # Decided for the deadline read (not the game's present one, should a move have changed it
        # meanwhile: the game then stays in the index for its new deadline).
        game.reminded_half_for = stored[game.pk]
        if kind == "reminder_last":
            game.reminded_last_for = stored[game.pk]
    Notification.objects.bulk_create(passed_over, ignore_conflicts=True)
    _queue(created)
    # One UPDATE by key per game, sent together (Django's bulk_update builds a CASE per field and
    # game: 38 s of a sweep that decided 3,300 games' reminders, bench/sweep.py).
    rows.update_each(games, ["reminded_half_for", "reminded_last_for"])
    return len(created) + retry_due(now)


def _reminder_scope(deadline):
    # A simultaneous choice keeps its deadline across versions: remind once per deadline.
    return f"deadline {deadline.isoformat()}"


def _reminder_deadlines(games, now):
    """{game id: the deadline of its pending decision as its page shows it}: the stored one, or
    where the vacations under way at `now` of the seats to act move it (`clocks.
    deadline_after_vacations`, what the sweep stores once the stored one has passed). One query
    for the vacations of all the games, none when no player to act may be on one."""
    away = [
        seat for game in games if game.clocks_stop_for_vacations
        for seat in game.seats_with_mail if seat.maybe_away and seat.index in game.to_act
    ]
    spans = clocks.vacation_spans([seat.user for seat in away], now) if away else {}
    deadlines = {}
    for game in games:
        deadlines[game.pk] = clocks.deadline_shown(game, game.seats_with_mail, spans)
    return deadlines


def _reminder_due(game, deadline, now):
    """Whether a reminder of `game` is due at `now` by `deadline`: half its time gone, or less than
    LAST_REMINDER_BEFORE left in a game with more than twice that per move."""
    total = timedelta(seconds=game.time_per_move)
    left = deadline - now
    return left <= total / 2 or (total > 2 * LAST_REMINDER_BEFORE and left < LAST_REMINDER_BEFORE)


def send_digests(now):
    """One mail a day to each player who chose the digest, listing the slow games waiting for
    their move, sent at DIGEST_HOUR or the first call after it in the player's own time zone.
    Keyed by the player's calendar day, so calling it often (hourly from Celery beat, or every
    sweep) sends each player one digest a day."""
    created = []
    players = User.objects.filter(digest=User.Digest.DAILY, notify_your_move=True, is_active=True)
    for user in players:
        local = timezone.localtime(now, user.zone)
        if local.hour < DIGEST_HOUR or not has_verified_email(user):
            continue
        with translation.override(user.mail_language):
            created += _digest(user, local)
    _queue(created)
    return len(created)


def _digest(user, local):
    """The digest mail of `user` on the day of `local` (their time), recorded; [] when no game
    waits for them."""
    waiting = []
    seats = (
        Seat.objects.filter(user=user, game__status=Game.Status.ACTIVE, game__time_per_move__gte=LIVE_BELOW)
        .select_related("game")
        .order_by("game__deadline")
    )
    for seat in seats:
        if seat.index in seat.game.to_act:
            view = fill_view(view_for(GameState.from_json(seat.game.state), seat.index))
            waiting.append({
                "game": seat.game,
                "asked": asked(view),
                "url": play_url(seat.game),
                "deadline": timezone.localtime(seat.game.deadline, user.zone) if seat.game.deadline else None,
            })
    if not waiting:
        return []
    day = local.date()
    return _record_message(
        user=user,
        game=None,
        version=day.toordinal(),
        kind="digest",
        context={"waiting": waiting, "day": day, "time_zone": user.zone.key},
        subject=ngettext(
            "A game waits for your move", "%(count)d games wait for your move", len(waiting)
        ) % {"count": len(waiting)},
    )


def invite(game, inviter, who):
    """Mail an invitation to a private open game to a player (by username or address) or to an
    address without an account. Returns a sentence for the inviter; raises ValueError saying why
    not (PermissionError: the inviter may not invite, or not by address).

    Only an inviter whose address is confirmed invites by address. An account sends at most
    settings.INVITATIONS_PER_DAY invitations in a day, and a game INVITATIONS_PER_GAME: both are
    counted with the inviter's account and the game locked, so invitations sent at once cannot
    pass them. Whether the invitee was mailed, was invited before, has a seat or takes no
    invitations, the answer is the same, by username or by address: whose account an address
    belongs to is not the inviter's to learn."""
    from django.core.exceptions import ValidationError
    from django.core.validators import validate_email

    who = (who or "").strip()
    closed = _("Only the creator of a private game can invite, while it is open.")
    if game.creator_id != inviter.pk or not game.private or game.status != Game.Status.OPEN:
        raise PermissionError(closed)
    if not who:
        raise ValueError(_("Name a player or an email address to invite."))
    try:
        validate_email(who)
        by_address = True
    except ValidationError:
        by_address = False
    if by_address and not has_verified_email(inviter):
        raise PermissionError(
            _("Confirm your email address before you invite by address: follow the link we mailed you, "
              "or send a new one from your settings.")
        )
    with transaction.atomic():
        # The inviter's account, then the game: the order of a join (games.play.services) and of an
        # account's deletion, so that none of them waits for another in a circle.
        User.objects.select_for_update().filter(pk=inviter.pk).values_list("pk").first()
        game = Game.objects.select_for_update().defer("state").get(pk=game.pk)
        if game.status != Game.Status.OPEN:
            raise PermissionError(closed)
        day_ago = timezone.now() - timedelta(days=1)
        invitations = Notification.objects.filter(kind="invitation")
        if invitations.filter(game__creator=inviter, created_at__gt=day_ago).count() >= settings.INVITATIONS_PER_DAY:
            raise ValueError(
                _("You can send at most %(count)d invitations a day.") % {"count": settings.INVITATIONS_PER_DAY}
            )
        if invitations.filter(game=game).count() >= INVITATIONS_PER_GAME:
            raise ValueError(
                _("A game can send at most %(count)d invitations.") % {"count": INVITATIONS_PER_GAME}
            )
        user = User.objects.filter(
            Q(username__iexact=who) | Q(emailaddress__email__iexact=who, emailaddress__verified=True),
            deleted_at__isnull=True,
        ).first()
        context = {"inviter": inviter, "url": absolute(reverse("invitation", args=[game.pk, game.invite_token]))}
        # Not the inviter's name, which anyone can choose to look like an address or a site.
        subject = gettext_lazy("An invitation to a game of El Grande")
        created = []
        if user is not None:
            if user.is_computer:
                raise ValueError(
                    _("%(who)s is a computer player: computer players take their seats when a game is created, "
                      "on the new-game form.") % {"who": who}
                )
            # One who blocks the inviter is answered for as one who takes no invitations.
            if (not game.seats.filter(user=user).exists() and wants_mail(user, "invitation")
                    and not friends.blocks(user, inviter)):
                with translation.override(user.mail_language):
                    created = _record_message(user=user, game=game, version=game.version, kind="invitation",
                                              context=context, subject=str(subject))
        elif not by_address:
            raise ValueError(
                _("There is no player called “%(who)s”, and it is not an email address.") % {"who": who}
            )
        elif not MailOptOut.objects.filter(address__iexact=who).exists():
            # Someone without an account: in the inviter's language, who knows them.
            created = _record_message(user=None, address=who, game=game, version=game.version, kind="invitation",
                                      context=context, subject=str(subject))
    _queue(created)
    # Every answer names the invitee as the inviter typed it, and says the same whatever came of it.
    return _(
        "Invitation sent to %(who)s, unless they were invited to this game before, have a seat in it, or "
        "do not take invitations by mail."
    ) % {"who": who}


# ---- rendering ----------------------------------------------------------------------------------


def asked(view):
    decision = view["decision"]
    return ASKED.get(decision["kind"], gettext_lazy("your move")) if decision else None


def absolute(path):
    return settings.SITE_URL.rstrip("/") + path


def subject_prefix():
    """What every mail's subject starts with: the site's name, "[El Grande] "."""
    return f"[{settings.SITE_NAME}] "


def mail_site():
    """The site as account mails name it (allauth's `current_site`): SITE_NAME at SITE_URL's host,
    not the host the request came to (an address such as 127.0.0.1:8811 behind a proxy)."""
    return SimpleNamespace(name=settings.SITE_NAME, domain=urlsplit(settings.SITE_URL).netloc)


def message_id():
    """A Message-ID in the site's own domain (SITE_URL's host) rather than the machine's name,
    Django's default (often `localhost`), which receiving servers hold against a mail."""
    return make_msgid(domain=urlsplit(settings.SITE_URL).hostname)


def play_url(game):
    """The link that opens the game at the decision, through the log-in page if need be."""
    return absolute(reverse("play_link", args=[game.pk]))


def unsubscribe_token(kind, user=None, address=""):
    """A signed token naming the recipient and the setting the link switches off."""
    setting = SETTING_OF_KIND[kind]
    payload = {"u": user.pk, "k": setting} if user is not None else {"a": address.lower(), "k": setting}
    # No time stamp: the link in an old mail keeps working, and one user's link for a kind is stable.
    return signing.Signer(salt=UNSUBSCRIBE_SALT).sign_object(payload, compress=True)


def unsubscribe(token):
    """Switch off what the token names. Returns a sentence for the page; raises ValueError for a
    token we did not sign."""
    try:
        payload = signing.Signer(salt=UNSUBSCRIBE_SALT).unsign_object(token)
        setting = payload["k"]
        label = SETTING_LABELS[setting]
    except (signing.BadSignature, KeyError, TypeError):
        raise ValueError(_("This unsubscribe link is not valid (it may have been cut short).")) from None
    if "u" in payload:
        field = f"notify_{setting}"
        User.objects.filter(pk=payload["u"]).update(**{field: False})
    else:
        MailOptOut.objects.get_or_create(address=payload["a"])
    return _("You will get no more %(what)s. You can switch them on again in your settings.") % {"what": label}


def describe_unsubscribe(token):
    try:
        return SETTING_LABELS[signing.Signer(salt=UNSUBSCRIBE_SALT).unsign_object(token)["k"]]
    except (signing.BadSignature, KeyError, TypeError):
        raise ValueError(_("This unsubscribe link is not valid (it may have been cut short).")) from None


def _record(user, game, kind, *, state, seat, seats, verified, scope=""):
    """Record one mail about `game` for the player in `seat`, if they want that kind (`verified`:
    the ids of the players with a verified address)."""
    if not _wants(user, SETTING_OF_KIND[kind], verified):
        return []
    with translation.override(user.mail_language):
        subject, text, html = game_mail(kind, user=user, game=game, state=state, seat=seat, seats=seats)
    return _store(user=user, game=game, version=game.version, kind=kind, scope=scope,
                  subject=subject, text=text, html=html)


def game_mail(kind, *, user, game, state, seat, seats):
    """(subject, text, html) of a mail about `game` for the player in `seat`. Everything in it comes
    from `view_for(state, seat)` and the game's public fields: what that seat may see."""
    view = fill_view(view_for(state, seat))
    players = [
        {
            "label": player["label"],
            "name": seat_name(seats[player["seat"]]) if player["seat"] in seats else "",
            "score": player["score"],
            "you": player["seat"] == seat,
        }
        for player in view["players"]
    ]
    what = asked(view)
    context = {
        "view": view,
        "asked": what,
        "players": players,
        "hand": ", ".join(str(card) for card in view.get("hand", ())),
        "deadline": timezone.localtime(game.deadline, user.zone) if game.deadline else None,
        "time_zone": user.zone.key,
        "url": play_url(game),
    }
    if kind.endswith("your_move"):
        context.update(turn_report.mail_context(game, seat, seats))
    if kind == "game_finished":
        ranking = {index: place for place, index in view["ranking"]}
        context["ranking"] = sorted(
            ({"place": ranking[index], **player} for index, player in enumerate(players)),
            key=lambda row: row["place"],
        )
        context["place"] = ranking[seat]
        context.update(game_over_mail.context(game, seat, seats, absolute))
    return render_mail(kind, user=user, game=game, context=context, subject=_subject(kind, game, view, what, context))


def _subject(kind, game, view, what, context):
    values = {"number": game.pk, "round": view["round"], "asked": what}
    if kind == "game_started":
        if what:
            return _("Game %(number)s has started: %(asked)s") % values
        return _("Game %(number)s has started") % values
    if kind == "game_finished":
        place = PLACES.get(context["place"], context["place"])
        return _("Game %(number)s is over: you placed %(place)s") % {**values, "place": place}
    if kind == "reminder_half":
        return _("Game %(number)s, round %(round)s: %(asked)s (half your time is gone)") % values
    if kind == "reminder_last":
        return _("Game %(number)s, round %(round)s: %(asked)s (less than 12 hours left)") % values
    return _("Game %(number)s, round %(round)s: %(asked)s") % values


@contextmanager
def written_for(user):
    """Render inside the recipient's language and time zone: the `date` filter shows a time in the
    zone active while rendering, which is the mover's (or UTC in the sweep), not the recipient's.
    An address without an account keeps the language and zone of the caller (the inviter's)."""
    if user is None:
        yield
        return
    with translation.override(user.mail_language), timezone.override(user.zone):
        yield


def render_mail(kind, *, user, game, context, subject, address=""):
    """(subject, text, html) from the kind's templates under templates/email/, rendered
    `written_for` their recipient: every mail's body is rendered here."""
    context = {
        **context,
        "game": game,
        "kind": kind,
        "recipient": user.username if user is not None else address,
        # An address without an account (an invitation) has no settings to speak of.
        "member": user is not None,
        "unsubscribe_url": unsubscribe_url(kind, user, address),
        "settings_url": absolute(reverse("settings")),
        "setting_label": SETTING_LABELS[SETTING_OF_KIND[kind]],
        # Mails name the site by SITE_NAME and SITE_URL, never by the host a request came to.
        "site_name": settings.SITE_NAME,
        "site_url": absolute("/"),
    }
    template = "reminder" if kind.startswith("reminder") else ("your_move" if kind.endswith("your_move") else kind)
    with written_for(user):
        return (
            subject,
            render_to_string(f"email/{template}.txt", context),
            render_to_string(f"email/{template}.html", context),
        )


def unsubscribe_url(kind, user=None, address=""):
    return absolute(reverse("unsubscribe", args=[unsubscribe_token(kind, user, address)]))


def _record_message(*, user, game, version, kind, context, subject, address=""):
    subject, text, html = render_mail(kind, user=user, game=game, context=context, subject=subject, address=address)
    return _store(user=user, address=address, game=game, version=version, kind=kind,
                  subject=subject, text=text, html=html)


def _store(*, user, game, version, kind, subject, text, html, scope="", address=""):
    """Store one mail under its key; [] when that key was recorded before."""
    try:
        with transaction.atomic():
            notification = Notification.objects.create(
                user=user,
                address=address if user is None else "",
                game=game,
                version=version,
                kind=kind,
                scope=scope,
                subject=subject,
                text=text,
                html=html,
                next_attempt_at=timezone.now() + LOST_AFTER,
            )
    except IntegrityError:
        return []
    return [notification.pk]


def _queue(ids):
    for notification_id in ids:
        queue_notification(notification_id)


# The Celery task that sends one mail (games/tasks.py).
SEND_MAIL = "games.tasks.send_notification"


def queue_notification(notification_id):
    """Have the notification sent soon, off the caller's path (a Celery worker with Redis, else the
    embedded mailer thread); a failure to queue is logged and left to the sweep, never raised
    into a move."""
    work.enqueue(SEND_MAIL, notification_id, label=f"mail {notification_id}")


def send_logged(notification_id):
    """Send one mail where nothing may be raised (a mailer thread): a failure is logged, and the
    row says when to try again."""
    try:
        deliver(notification_id)
    except SendFailed:
        pass  # recorded and logged by deliver(); the sweep sends it again when its time comes
    except Exception:
        # Anything else (the database away) leaves the row for the sweep too.
        logger.exception("mail %s was not sent", notification_id)


# ---- sending ------------------------------------------------------------------------------------


def deliver(notification_id, now=None):
    """Send one recorded mail unless it was sent, is being sent, or no longer applies. The claim
    is one UPDATE, so two runs of the same task send one mail. A send the server refused (or could
    not be reached for) is recorded with the time of the next attempt (doubling, at most
    MAX_ATTEMPTS), which the sweep keeps (`retry_due`), and logged, then raised as SendFailed.

    At most once: the row is marked `unknown` (committed: this runs outside a transaction) once the
    connection to the server is open and before the message is handed to it, and only a recorded
    answer moves it on, to `sent` or (the server said no) to `failed`. A mail whose answer was lost
    (the database cut while the server took its time, the server's reply never came, the worker
    killed) stays `unknown`: nothing sends it again, and the admin lists it for an operator to check
    the mail server's log. A mail sent twice by a retry cannot be taken back; one the operator
    sends again can, hence this choice over marking it sent afterwards."""
    now = now or timezone.now()
    # A failed row only when its retry is due: a task run early would spend the attempts meant to
    # stretch over a day; the sweep queues it when it is due. A `sending` row was claimed and never
    # handed over: lost, it may be claimed again.
    claimable = Q(status=Notification.Status.PENDING) | Q(
        status__in=[Notification.Status.FAILED, Notification.Status.SENDING], next_attempt_at__lte=now
    )
    claimed = (
        Notification.objects.filter(claimable, pk=notification_id)
        .update(status=Notification.Status.SENDING, attempts=F("attempts") + 1, next_attempt_at=now + LOST_AFTER)
    )
    if not claimed:
        return False
    notification = Notification.objects.select_related("user", "game").get(pk=notification_id)
    if not _still_wanted(notification):
        _finish(notification, Notification.Status.DROPPED)
        return False
    message = _message(notification)
    connection = get_connection()
    try:
        try:
            # Connecting, TLS and log-in: a failure here leaves the mail unsent for sure.
            connection.open()
        except Exception as error:
            _failed(notification, error, now)
        # From here the server may take the mail whether or not we hear its answer.
        Notification.objects.filter(pk=notification_id).update(status=Notification.Status.UNKNOWN, next_attempt_at=None)
        try:
            connection.send_messages([message])
        except REFUSED as error:
            _failed(notification, error, now)
        except Exception as error:
            Notification.objects.filter(pk=notification_id).update(last_error=_error_text(error))
            logger.error(
                "mail %s (%s to %s): no answer from the mail server (%s); it may have gone, so it is not "
                "sent again: see the mail server's log, and send it again from the admin if it did not go",
                notification_id, notification.kind, notification.user or notification.address, error,
            )
            raise SendFailed(notification_id) from error
    finally:
        connection.close()
    _finish(notification, Notification.Status.SENT, sent_at=timezone.now())
    return True


# The mail server's refusals: it answered, and did not take the mail (smtplib's errors that carry
# the server's reply, and every recipient refused), or it was never reached (a backend that
# connects only when it sends). A mail refused may be sent again.
REFUSED = (smtplib.SMTPResponseException, smtplib.SMTPRecipientsRefused, ConnectionRefusedError, socket.gaierror)


def _error_text(error):
    return f"{type(error).__name__}: {error}"[:2000]


def _failed(notification, error, now):
    """Record that the server did not take `notification` on its attempt, with the time of the next
    attempt (or given up after MAX_ATTEMPTS), log it and raise SendFailed."""
    attempts = notification.attempts
    gave_up = attempts >= MAX_ATTEMPTS
    retry_after = min(FIRST_RETRY_AFTER * 2 ** (attempts - 1), LONGEST_RETRY_AFTER)
    Notification.objects.filter(pk=notification.pk).update(
        status=Notification.Status.GAVE_UP if gave_up else Notification.Status.FAILED,
        last_error=_error_text(error),
        next_attempt_at=None if gave_up else now + retry_after,
        **(_forgotten if gave_up and notification.kind == ACCOUNT_MAIL else {}),
    )
    logger.log(
        logging.ERROR if gave_up else logging.WARNING,
        "mail %s (%s to %s) failed on attempt %s: %s; %s",
        notification.pk, notification.kind, notification.user or notification.address, attempts, error,
        "giving up" if gave_up else f"retrying in {retry_after}",
    )
    raise SendFailed(notification.pk) from error


# allauth's address confirmations, kept only when their first sending failed (accounts.adapter).
ACCOUNT_MAIL = "account"
# An account mail's text and its link are not kept once it has gone, or been given up.
_forgotten = {"text": "", "html": ""}


def keep_account_mail(message, error, now=None):
    """Keep an account mail (an EmailMultiAlternatives that allauth rendered) whose sending just
    failed, for the sweep to try again on the back-off of every other mail. It goes to its
    address, whoever's it is (an address being confirmed is not yet the account's), without an
    unsubscribe link: the player asked for it."""
    now = now or timezone.now()
    html = next((content for content, kind in message.alternatives if kind == "text/html"), "")
    # A newer confirmation of the same address replaces one still waiting: one mail, not two.
    Notification.objects.filter(
        kind=ACCOUNT_MAIL, address__iexact=message.to[0],
        status__in=[Notification.Status.PENDING, Notification.Status.FAILED],
    ).update(status=Notification.Status.DROPPED, next_attempt_at=None, **_forgotten)
    return Notification.objects.create(
        user=None, address=message.to[0], game=None, version=0, kind=ACCOUNT_MAIL,
        subject=message.subject[:200], text=message.body, html=html,
        status=Notification.Status.FAILED, attempts=1, last_error=f"{type(error).__name__}: {error}"[:2000],
        next_attempt_at=now + FIRST_RETRY_AFTER,
    )


def retry_due(now):
    """Send the mails whose retry time has come, and those lost on the way. Returns how many.

    Each is queued once per LOST_AFTER, not once per sweep: a backlog the mailer or the workers
    have not reached yet (a slow mail server) is not queued again every few seconds. Each goes back
    to `pending`, so that its claim no longer waits for `next_attempt_at`; one claimed since it was
    read has a later `next_attempt_at` and is left alone."""
    due = Notification.objects.filter(
        status__in=[Notification.Status.PENDING, Notification.Status.FAILED, Notification.Status.SENDING],
        next_attempt_at__lte=now,
    )
    ids = list(due.values_list("pk", flat=True)[:500])
    due.filter(pk__in=ids).update(status=Notification.Status.PENDING, next_attempt_at=now + LOST_AFTER)
    _queue(ids)
    return len(ids)


def _still_wanted(notification):
    user, game = notification.user, notification.game
    if notification.kind == ACCOUNT_MAIL:
        # Only while the address waits for its confirmation: not once confirmed, nor once its
        # player replaced it (a typo) or deleted the account, when the mail would tell a stranger
        # the username.
        return EmailAddress.objects.filter(email__iexact=notification.address, verified=False).exists()
    if notification.kind == "invitation" and game.status != Game.Status.OPEN:
        return False
    if user is None:
        return not MailOptOut.objects.filter(address__iexact=notification.address).exists()
    if not wants_mail(user, SETTING_OF_KIND[notification.kind]):
        return False
    if notification.kind.endswith("your_move") or notification.kind.startswith("reminder"):
        # Moved already: a late "your move" would only confuse.
        seat = game.seats.filter(user=user).values_list("index", flat=True).first()
        return game.status == Game.Status.ACTIVE and seat in game.to_act
    return True


def _finish(notification, status, **fields):
    if notification.kind == ACCOUNT_MAIL:
        fields.update(_forgotten)
    Notification.objects.filter(pk=notification.pk).update(status=status, next_attempt_at=None, **fields)


def _message(notification):
    if notification.kind == ACCOUNT_MAIL:
        # allauth wrote the subject, its prefix included.
        message = EmailMultiAlternatives(
            subject=notification.subject, body=notification.text, to=[notification.address],
            headers={"Message-ID": message_id()},
        )
        message.attach_alternative(notification.html, "text/html")
        return message
    to = notification.user.email if notification.user is not None else notification.address
    link = unsubscribe_url(notification.kind, notification.user, notification.address)
    message = EmailMultiAlternatives(
        subject=subject_prefix() + notification.subject,
        body=notification.text,
        to=[to],
        headers={
            "Message-ID": message_id(),
            # RFC 8058: a mail client may unsubscribe with one POST, no page, no log-in.
            "List-Unsubscribe": f"<{link}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(notification.html, "text/html")
    return message
