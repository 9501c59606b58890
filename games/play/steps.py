"""The small steps the play room's changes share: locking a game (and a player who takes a seat),
reading its seats and their players' vacations, the checks a change makes first (the game is
running, the seat is the poster's, the version is the one seen), applying a move through the
engine, and the rows and site events a change writes."""

import logging

from django.db.models import prefetch_related_objects
from django.utils.translation import gettext as _

from accounts.models import User
from games import clocks
from games.engine import IllegalMove, apply_move
from games.models import Game, Move
from games.play.errors import Conflict, GameError, NotAllowed, StaleVersion
from games.words.refusals import refusal_message

logger = logging.getLogger(__name__)


def _check_running(game):
    if game.status == Game.Status.FINISHED:
        raise Conflict(_("This game is over: no more moves."))
    if game.status != Game.Status.ACTIVE:
        raise Conflict(_("This game has not started."))


def _own_seat(seats, user):
    """`user`'s seat among `seats` ({index: Seat}); NotAllowed for anyone without one."""
    seat = next((s for s in seats.values() if s.user_id == user.pk), None) if user.is_authenticated else None
    if seat is None:
        raise NotAllowed(_("You have no seat in this game."))
    return seat


def _check_version(game, expected_version):
    """A change asked against an older version than the game's is refused and changes nothing."""
    if game.version != expected_version:
        raise StaleVersion(
            _(
                "The game has moved on (you saw version %(seen)s, it is now at %(now)s). Nothing "
                "was changed; look at the new position and decide again."
            )
            % {"seen": expected_version, "now": game.version}
        )


def _log_after_last_move(game, event):
    """A site event in the log after the last move made (after the game's setup before any)."""
    last = game.moves.order_by("-version").first()
    if last is None:
        game.first_events = [*game.first_events, event]
    else:
        last.events = [*last.events, event]
        last.save(update_fields=["events"])


def _seats_and_vacations(game, now, seats=None):
    """The game's seats by index (unless given), and `clocks.vacation_spans` at `now` of their
    players, asked only in a game whose clocks stop for vacations and only about the players with
    a vacation about now (their users are loaded then): most of the time no query beyond the
    seats'."""
    if seats is None:
        seats = {seat.index: seat for seat in _seats_query(game.seats.all(), now)}
    if not game.clocks_stop_for_vacations:
        return seats, {}
    return seats, _vacations(seats.values(), now)


def _vacations(seats, now):
    """`clocks.vacation_spans` at `now` of the players of `seats` (from `_seats_query`) who have a
    vacation about now: no query when nobody has, else two (their users, their vacations)."""
    maybe_away = [seat for seat in seats if seat.maybe_away]
    if not maybe_away:
        return {}
    prefetch_related_objects(maybe_away, "user")
    return clocks.vacation_spans([seat.user for seat in maybe_away], now)


def _seats_query(seats, now):
    # Only what the hot paths use: the seat's own columns, not its game's nor its user's.
    columns = ("game_id", "user_id", "index", "timeouts", "autopilot", "answers_ahead", "computer")
    return clocks.with_vacation_hint(seats.only(*columns), now)


def _site_event(kind, seat, state):
    """An event of the site's own about a seat (not the engine's), stored with a move's events."""
    return {"event": kind, "seat": seat, "round": state.round}


def _lock_player(user):
    """Lock the account that takes a seat, before the game: the order in which an account's
    deletion locks them (accounts/deletion.py), so the two cannot deadlock. An account being
    deleted is waited for; a deleted one is refused."""
    if not User.objects.select_for_update().filter(pk=user.pk, deleted_at__isnull=True).values_list("pk").first():
        raise NotAllowed(_("This account has been deleted: it cannot take a seat."))


def _lock(game):
    return Game.objects.select_for_update().get(pk=game.pk)


def _lock_loaded(game):
    """Lock the game's row: (`game` itself when the row is still at its version, else the row
    read again; whether it was still current). Only the version is read when `game` was loaded
    whole: a game at a version is the same game whoever reads it."""
    if game.get_deferred_fields():
        return _lock(game), False
    locked = Game.objects.select_for_update().filter(pk=game.pk).order_by().values_list("version", flat=True)
    version = next(iter(locked), None)
    if version is not None and version == game.version:
        return game, True
    return _lock(game), False


def _apply(state, seat, move):
    try:
        return apply_move(state, seat, move)
    except IllegalMove as error:
        raise GameError(refusal_message(error)) from error
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        # The engine validates moves itself; a crash here is an engine bug met by a forged or
        # malformed move. The player gets a 4xx, the log gets the traceback.
        logger.exception("engine failed on move %r for seat %s", move, seat)
        raise GameError(_("This move is malformed.")) from error


def _move_row(game, seat, move, state, automatic=False, autopilot=False):
    """An accepted move (the game's version already raised) with the events it made, unsaved:
    the moves of one transaction go in one insert."""
    return Move(
        game=game,
        seat=seat,
        version=game.version,
        move=move,
        automatic=automatic,
        autopilot=autopilot,
        events=state.events,
        round=state.round,
    )
