"""The only code that changes a game: load and lock it, apply the change, save, then notify.

Views, tasks and tests call these functions; nothing else writes Game, Seat or Move rows.
Each function runs in one transaction with the game row locked (`select_for_update`), so two
requests for the same game are applied one after the other, never interleaved. After the commit
the channel group `game-<id>` is told only the new version number.
"""

import logging
import random
import secrets
from datetime import timedelta

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection, transaction
from django.utils import timezone

from accounts.emails import has_verified_email

from . import notifications
from .consumers import group_name
from .engine import GameState, IllegalMove, apply_move, legal_moves, new_game, random_move, to_act
from .engine.rounds import final_ranking
from .models import DEFAULT_TIME_PER_MOVE, Game, Move, Seat

logger = logging.getLogger(__name__)


class GameError(Exception):
    """A request the game cannot accept. `message` is safe to show to the requester;
    `status` is the HTTP status a view should answer with."""

    status = 400

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class NotAllowed(GameError):
    status = 403


class Conflict(GameError):
    status = 409


class StaleVersion(Conflict):
    pass


def create_game(
    user,
    *,
    num_players,
    short_game=False,
    veto=True,
    show_castillo=False,
    time_per_move=DEFAULT_TIME_PER_MOVE,
    rated=False,
    private=False,
):
    """Open a new game with its creator in the first seat taken."""
    if not 2 <= num_players <= 5:
        raise GameError("A game has 2 to 5 players.")
    if rated:
        _check_may_play_rated(user)
    with transaction.atomic():
        game = Game.objects.create(
            creator=user,
            num_players=num_players,
            short_game=short_game,
            veto=veto,
            show_castillo=show_castillo,
            time_per_move=time_per_move,
            rated=rated,
            private=private,
            invite_token=secrets.token_urlsafe(24) if private else "",
            seed=secrets.randbelow(2**62),
        )
        Seat.objects.create(game=game, user=user)
    return game


def invitation_valid(game, token):
    # As bytes: compare_digest refuses str with non-ASCII characters (a forged link's token).
    return bool(game.invite_token) and secrets.compare_digest(game.invite_token.encode(), (token or "").encode())


def join_game(game, user, token=""):
    """Take a seat; the game starts when this was the last one."""
    with transaction.atomic():
        game = _lock(game)
        if game.status != Game.Status.OPEN:
            raise Conflict("This game is no longer open for players.")
        if game.private and not invitation_valid(game, token):
            raise NotAllowed("This game is private: you need its invitation link to join.")
        if game.rated:
            _check_may_play_rated(user)
        seats = list(game.seats.all())
        if any(seat.user_id == user.pk for seat in seats):
            raise Conflict("You already have a seat in this game.")
        if len(seats) >= game.num_players:
            raise Conflict("This game is full.")
        seats.append(Seat.objects.create(game=game, user=user))
        game.version += 1
        if len(seats) == game.num_players:
            _start(game, seats)
        else:
            _save(game)
    return game


def leave_game(game, user):
    """Give up a seat before the game starts. The creator cancels instead."""
    with transaction.atomic():
        game = _lock(game)
        if game.status != Game.Status.OPEN:
            raise Conflict("You can only leave a game before it starts.")
        if game.creator_id == user.pk:
            raise Conflict("You created this game: cancel it instead of leaving.")
        deleted, _ = game.seats.filter(user=user).delete()
        if not deleted:
            raise Conflict("You have no seat in this game.")
        game.version += 1
        _save(game)
    return game


def cancel_game(game, user):
    with transaction.atomic():
        game = _lock(game)
        if game.creator_id != user.pk:
            raise NotAllowed("Only the creator can cancel this game.")
        if game.status != Game.Status.OPEN:
            raise Conflict("Only a game that has not started can be cancelled.")
        game.status = Game.Status.CANCELLED
        game.version += 1
        _save(game)
    return game


def submit_move(game, user, move, expected_version, seat_index=None):
    """Apply `user`'s move if it was made against the current version; else change nothing.

    `seat_index`, when the form names a seat, must be the user's own.
    """
    if not isinstance(move, dict) or not isinstance(move.get("type"), str):
        raise GameError('A move is a JSON object with a "type", e.g. {"type": "bid", "card": 9}.')
    with transaction.atomic():
        game = _lock(game)
        if game.status == Game.Status.FINISHED:
            raise Conflict("This game is over: no more moves.")
        if game.status != Game.Status.ACTIVE:
            raise Conflict("This game has not started.")
        seat = game.seats.filter(user=user).first() if user.is_authenticated else None
        if seat is None:
            raise NotAllowed("You have no seat in this game.")
        if seat_index is not None and seat_index != seat.index:
            raise NotAllowed("You can only act for your own seat.")
        if game.version != expected_version:
            raise StaleVersion(
                f"The game has moved on (you saw version {expected_version}, it is now at "
                f"{game.version}). Nothing was changed; look at the new position and decide again."
            )
        state = GameState.from_json(game.state)
        if seat.index not in to_act(state):
            raise Conflict("It is not your turn.")
        state = _apply(state, seat.index, move)
        game.version += 1
        _record(game, seat, move, state)
        _save(game, state, previous_to_act=game.to_act)
    return game


def apply_default_moves(game_id, version):
    """On a deadline: make a default move for every seat still to act in `version`. A late player
    whose turn it is has the rest of that turn played out too (the court move, the card, the
    placement and special action), instead of waiting a whole deadline per step; any later
    decision gets a full deadline of its own.

    Does nothing when the game has moved on, its deadline has not passed, or another transaction
    holds it (a player moving right now: the sweep will look again), so running it twice, late,
    or from two sweeps at once is harmless. A veto window is answered with "allow"; any other
    decision with a random legal move. Returns whether it changed the game.
    """
    with transaction.atomic():
        game = (
            Game.objects.select_for_update(skip_locked=True)
            .filter(pk=game_id, version=version, status=Game.Status.ACTIVE, deadline__lte=timezone.now())
            .first()
        )
        if game is None:
            return False
        if connection.vendor == "postgresql":
            # The sweep need not wait for the disk: should the database lose this commit in a
            # crash, the expired deadline is still in the row and the next sweep plays the very
            # same moves again (their random choices are seeded by the game and its version).
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
        state = GameState.from_json(game.state)
        seats = {seat.index: seat for seat in game.seats.all()}
        rng = random.Random(f"{game.seed}-{version}")
        late = to_act(state)
        turn = (state.round, state.current_player)
        moves = []
        for index in late:
            while index in to_act(state):
                move = default_move(state, index, rng)
                state = apply_move(state, index, move)
                game.version += 1
                moves.append(_move_row(game, seats[index], move, state, automatic=True))
                if (state.round, state.current_player) != turn or index != state.current_player:
                    break
        Move.objects.bulk_create(moves)
        # No `previous_to_act`: every seat of the expired decision has been played for, so
        # whatever is pending now is a new decision with a full deadline of its own.
        _save(game, state)
    return True


def default_move(state, seat, rng):
    allow = {"type": "allow"}
    if allow in legal_moves(state, seat):
        return allow
    return random_move(state, seat, rng)


def replay(game, upto=None):
    """Rebuild the position after the moves up to version `upto` (all moves when None)."""
    state = new_game(**game.engine_options())
    moves = game.moves.select_related("seat").order_by("version")
    if upto is not None:
        moves = moves.filter(version__lte=upto)
    for move in moves:
        state = apply_move(state, move.seat.index, move.move)
    return state


def notify(game_id, version):
    """Tell every open page of the game that `version` exists; they fetch their own view."""
    async_to_sync(get_channel_layer().group_send)(
        group_name(game_id), {"type": "game.version", "version": version}
    )


def _check_may_play_rated(user):
    if not has_verified_email(user):
        raise NotAllowed(
            "Rated games are for players with a verified email address: follow the link we mailed "
            "you, or send a new one from your settings."
        )


def _lock(game):
    return Game.objects.select_for_update().get(pk=game.pk)


def _apply(state, seat, move):
    try:
        return apply_move(state, seat, move)
    except IllegalMove as error:
        raise GameError(str(error)) from error
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        # The engine validates moves itself; a crash here is an engine bug met by a forged or
        # malformed move. The player gets a 4xx, the log gets the traceback.
        logger.exception("engine failed on move %r for seat %s", move, seat)
        raise GameError("This move is malformed.") from error


def _start(game, seats):
    # The seed decides the seating, so a game and its moves replay to the same table.
    random.Random(game.seed).shuffle(seats)
    for index, seat in enumerate(seats):
        seat.index = index
    Seat.objects.bulk_update(seats, ["index"])
    game.status = Game.Status.ACTIVE
    game.started_at = timezone.now()
    state = new_game(**game.engine_options())
    game.first_events = state.events
    _save(game, state)


def _record(game, seat, move, state, automatic=False):
    """Store an accepted move (the game's version already raised) with the events it made."""
    _move_row(game, seat, move, state, automatic).save(force_insert=True)


def _move_row(game, seat, move, state, automatic=False):
    """The Move row of `_record`, unsaved: the default moves of a deadline go in one insert."""
    return Move(
        game=game,
        seat=seat,
        version=game.version,
        move=move,
        automatic=automatic,
        events=state.events,
        round=state.round,
    )


def _save(game, state=None, previous_to_act=None):
    """Store the game (its version already raised) with the deadline of what is now pending (the
    deadline sweep, games/deadlines.py, finds it there), then after commit notify."""
    if state is not None:
        before = game.state
        game.state = state.to_json()
        acting = [] if state.is_over else to_act(state)
        game.deadline = _deadline(game, acting, previous_to_act, before)
        game.to_act = acting
        game.round = state.round
        game.colours = list(state.colours)
        game.standings = standings(state)
        if state.is_over:
            game.status = Game.Status.FINISHED
            game.finished_at = timezone.now()
    game.save()
    game_id, version = game.pk, game.version
    transaction.on_commit(lambda: notify(game_id, version), robust=True)
    if state is not None:
        # Mail (your move, started, finished): decided after the commit, sent off the request.
        transaction.on_commit(lambda: notifications.game_saved(game, state, previous_to_act), robust=True)


def standings(state):
    """[place, seat, score] best first; equal scores share a place, as in the final ranking."""
    return [[place, seat, state.scores[seat]] for place, seat in final_ranking(state)]


def _deadline(game, acting, previous_to_act, before):
    """Every new decision gets the game's full time per move. Only the seats still answering
    the same simultaneous choice after one of them answered (`previous_to_act` was pending in
    the position `before`) keep its running deadline."""
    if not acting:
        return None
    if (
        previous_to_act
        and game.deadline is not None
        and set(acting) < set(previous_to_act)
        and before is not None
        and _decision(before) == _decision(game.state)
    ):
        return game.deadline
    return timezone.now() + timedelta(seconds=game.time_per_move)


def _decision(position):
    """What tells one decision from the next in a stored position: the round, the phase, whose
    turn, and for a special action its card, taker, stage (choices, share, veto, counter-veto),
    the veto window and the share it is about. Fewer seats to act is not enough: a choice of
    three can be followed by another one of two."""
    action = position.get("action") or {}
    return (
        position.get("round"),
        position.get("phase"),
        position.get("turn_index"),
        action.get("card"),
        action.get("taker"),
        action.get("stage"),
        action.get("window"),
        action.get("turn"),
    )
