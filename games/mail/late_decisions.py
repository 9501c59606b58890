"""The sweep's share of deciding: the commits whose mails were lost on the way (a worker killed
between a commit and its mails), and the "your move" mails that waited for their player to leave
the table."""

import logging
from datetime import timedelta

from django.db.models import Exists, OuterRef, Q

from games.engine import GameState
from games.mail import decisions, kinds, outbox
from games.models import Game, MailToDecide, Move, Notification, Seat

logger = logging.getLogger(__name__)

# A commit whose mails are not decided this long after it was made lost them on the way (see
# MailToDecide): the sweep decides them, a sweep at a time.
MAIL_DECISION_LOST_AFTER = timedelta(minutes=2)
MAIL_DECISION_GIVEN_UP_AFTER = timedelta(days=1)
# A "your move" mail that waits for its player to leave the table waits this long at most.
WAITING_GIVEN_UP_AFTER = timedelta(days=1)
LOST_DECISIONS_PER_SWEEP = 200


def decide_lost(now):
    """Decide the mails of the commits whose decision was lost: their MailToDecide row is still
    there MAIL_DECISION_LOST_AFTER after the commit (a worker killed, a process restarted or the
    database lost between a commit and its mails). Returns how many games it decided.

    A game that has moved on since is decided at its present version (`as_lost`): whoever must
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
            state, previous_to_act = as_lost(game, version, previous_to_act, started)
        except Exception:
            logger.exception("the mails of game %s at version %s were not decided", game_id, version)
            continue
        if decisions.to_decide(game, state, previous_to_act) is None:
            done.add(game_id)
        else:
            saved.append((game, state, previous_to_act))
    if saved:
        done |= decisions.games_saved(saved)
    if done:
        # The lost decisions of a game decided at its present version are all made.
        MailToDecide.objects.filter(
            Q(*(Q(game_id=game_id, version__lte=games[game_id].version) for game_id in done), _connector=Q.OR),
            due_at__isnull=True,
        ).delete()
    return len(done)


def as_lost(game, version, previous_to_act, started):
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
    told = Notification.objects.filter(game=game, version__gte=version, kind__in=kinds.TELLS_WHAT_IS_ASKED)
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


def rows_due(now):
    """The MailToDecide rows `decide_lost` or `decide_waiting` would find at `now` (lost, given
    up, due, waited too long), and possibly more: whether either has anything to do."""
    return MailToDecide.objects.filter(
        Q(created_at__lte=now - min(MAIL_DECISION_LOST_AFTER, MAIL_DECISION_GIVEN_UP_AFTER, WAITING_GIVEN_UP_AFTER))
        | Q(due_at__lte=now)
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
                seats = {seat.index: seat for seat in kinds.seats_with_mail().filter(game=game)}
                verified = kinds.verified_users(seats.values())
                for index in row.waiting_for:
                    # One that has acted since has nothing waiting: a later decision has its own row.
                    if index not in game.to_act or index not in seats:
                        continue
                    user = seats[index].user
                    told = Notification.objects.filter(
                        user=user, game=game, kind__in=kinds.TELLS_WHAT_IS_ASKED, version__gte=row.version
                    )
                    if not told.exists():
                        created += decisions.your_move(user, game, state, index, seats, verified, deferred, now)
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
    outbox.queue_sending(created)
    return len(created)
