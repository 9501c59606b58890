"""A seat's own changes of a running game: submitting a move, handing the seat to the computer
(the autopilot) and taking it back, answering every veto question ahead; and what the site plays
for a seat on autopilot or answering ahead (`_play_autopilot`), for a seat whose time ran out
(`default_move`, used by games/play/expiry.py too), and the replay of a game's moves.

Each change runs in one transaction with the game's row locked and goes through
games/play/saving.py (`_save`), then games/play/after_save.py.
"""

import random

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.computer import players as computer
from games.engine import GameState, apply_move, legal_moves, new_game, random_move, to_act
from games.models import Game, Move, Seat
from games.moves import move_shapes
from games.play.errors import Conflict, GameError, NotAllowed
from games.play.saving import _save
from games.play.steps import (
    _apply,
    _check_running,
    _check_version,
    _lock,
    _lock_loaded,
    _log_after_last_move,
    _move_row,
    _own_seat,
    _seats_and_vacations,
    _site_event,
)


def submit_move(game, *, user, move, expected_version, seat_index=None, seats=None):
    """Apply `user`'s move if it was made against the current version; else change nothing.
    Returns the saved game.

    `seat_index`, when the form names a seat, must be the user's own. With `seats` (the game's
    seats, loaded with `clocks.with_vacation_hint` as games/reading/selectors.py `game_for_move` does),
    the caller's `game` and `seats` are used and changed in place when the row locked here is
    still at the version loaded (each change of a game raises it: `_save`): the move's path then
    reads the game once. Without, the game is read again under the lock and the caller's object
    is left as it was. A `move` that is not a JSON object with a "type" is refused, after the
    checks that do not depend on it (a move from a seat with no decision to make is None).
    """
    with transaction.atomic():
        game, current = _lock_loaded(game) if seats is not None else (_lock(game), False)
        _check_running(game)
        loaded = {seat.index: seat for seat in seats} if seats is not None and current else None
        seats, vacations = _seats_and_vacations(game, timezone.now(), loaded)
        seat = _own_seat(seats, user)
        if seat_index is not None and seat_index != seat.index:
            raise NotAllowed(_("You can only act for your own seat."))
        _check_version(game, expected_version)
        state = GameState.from_json(game.state)
        if seat.index not in to_act(state):
            raise Conflict(_("It is not your turn."))
        # Stored as cleaned: the engine ignores fields it does not read, which could hold what no
        # export can write (a number beyond 64 bits, a list nested hundreds deep).
        try:
            special = isinstance(move, dict) and move.get("type") == "special"
            move = move_shapes.clean(move, move_shapes.special_action(state, seat.index) if special else None)
        except move_shapes.BadShape as error:
            raise GameError(str(error)) from None
        state = _apply(state, seat.index, move)
        game.version += 1
        row = _move_row(game, seat, move, state)
        if seat.autopilot:
            row.events = [_site_event("autopilot_off", seat.index, state), *row.events]
        if seat.autopilot or seat.timeouts:
            seat.autopilot, seat.timeouts = False, 0
            seat.save(update_fields=["autopilot", "timeouts"])
        moves = [row]
        _play_autopilot_and_save(game, state, moves, seats=seats, vacations=vacations, previous_to_act=game.to_act)
    return game


def hand_seat_to_computer(game, *, user, expected_version):
    """The player of a seat lets the computer play it, at once and until he takes it back: his
    seat goes on autopilot as after two timeouts, and when it must act the autopilot moves for it
    in this transaction, through the path a move takes (`_play_autopilot`). A post made against an
    older version is refused, as a move is, and changes nothing."""
    with transaction.atomic():
        game = _lock(game)
        _check_running(game)
        seats, vacations = _seats_and_vacations(game, timezone.now())
        seat = _own_seat(seats, user)
        _check_version(game, expected_version)
        if seat.autopilot:
            raise Conflict(_("The computer plays your seat already."))
        state = GameState.from_json(game.state)
        seat.autopilot, seat.timeouts = True, 0
        seat.save(update_fields=["autopilot", "timeouts"])
        # The log says so after the last move made (after the game's setup before any move).
        event = _site_event("autopilot_chosen", seat.index, state)
        _log_after_last_move(game, event)
        moves, to_act_before = [], game.to_act
        if not _play_autopilot_and_save(
            game, state, moves, seats=seats, vacations=vacations, previous_to_act=to_act_before
        ):
            # Not its turn: the autopilot moves for it when it is (a move's or the sweep's path).
            game.version += 1
            _save(game)
    return game


def take_back_seat(game, *, user):
    """The player of a seat on autopilot plays himself again: the site stops moving for him at
    once, and his next decisions get deadlines as before. No version is asked for: whatever the
    autopilot played meanwhile, the player wants his seat back (a second post finds it back and is
    refused)."""
    with transaction.atomic():
        game = _lock(game)
        seat = game.seats.filter(user=user).first() if user.is_authenticated else None
        if seat is None:
            raise NotAllowed(_("You have no seat in this game."))
        if game.status != Game.Status.ACTIVE or not seat.autopilot:
            raise Conflict(_("Your seat is not on autopilot."))
        seat.autopilot, seat.timeouts = False, 0
        seat.save(update_fields=["autopilot", "timeouts"])
        # The log says so after the last move made, the autopilot's own (after the game's setup
        # when the seat was handed over and taken back before any move).
        event = {"event": "autopilot_off", "seat": seat.index, "round": game.round}
        _log_after_last_move(game, event)
        game.version += 1
        _save(game)
    return game


# The most moves the autopilot makes in one transaction. A whole game of five seats on autopilot
# takes a few hundred; the bound only guards against a rules bug that never ends a decision.
AUTOPILOT_MOVES_AT_MOST = 2000


def _play_autopilot(game, state, seats, moves):
    """Move at once, with the default moves, for every seat on autopilot that must act, and answer
    "allow" for every seat that answers its veto questions ahead (`answered_ahead`), until a
    player who moves himself must act, the game ends, or AUTOPILOT_MOVES_AT_MOST moves were made
    (the game is then left with a deadline, and the sweep goes on from there). Appends the Move
    rows to `moves`; returns the new state."""
    if not any(seat.autopilot for seat in seats.values()) and not _veto_question(state):
        return state
    rng = random.Random(f"{game.seed}-autopilot-{game.version}")
    fresh = False
    for _turn in range(AUTOPILOT_MOVES_AT_MOST):
        acting = [] if state.is_over else to_act(state)
        autopilot = [index for index in acting if seats[index].autopilot]
        if not autopilot and not fresh and _veto_question(state):
            _read_answers_ahead(seats)
            fresh = True
        ahead = [index for index in acting if answered_ahead(state, seats[index])]
        if autopilot:
            move = default_move(state, seat=autopilot[0], rng=rng, greedy=True)
            state = apply_move(state, autopilot[0], move)
            game.version += 1
            moves.append(_move_row(game, seats[autopilot[0]], move, state, automatic=True, autopilot=True))
        elif ahead:
            # Said to the seat alone (and in the finished game's replay): to the others the
            # answer is a player's "allow" like any other, and the setting stays his own.
            mark = {**_site_event("answered_ahead", ahead[0], state), "private": True}
            state = apply_move(state, ahead[0], ALLOW)
            game.version += 1
            row = _move_row(game, seats[ahead[0]], dict(ALLOW), state)
            row.events = [mark, *row.events]
            moves.append(row)
        else:
            break
    return state


ALLOW = {"type": "allow"}


def answered_ahead(state, seat):
    """Whether the site answers "allow" now for `seat` (a Seat), by its player's standing answer:
    only a veto question asked of it, never a veto-on-veto question (allowing one lets a veto
    stand: not what "allow every veto question" says) nor any other decision."""
    return seat.answers_ahead and _veto_question(state) and seat.index in state.action["awaiting"]


def _veto_question(state):
    return not state.is_over and state.phase == "special" and state.action["stage"] == "veto"


def _read_answers_ahead(seats):
    """Read the seats' answers given ahead again: the seats of a move may have been loaded before
    the game was locked, and setting or taking back the answer changes no version. Under the
    game's lock it is as its player last set it (set_answers_ahead locks the game first). One
    query, only when a veto question is open."""
    flags = dict(Seat.objects.filter(pk__in=[seat.pk for seat in seats.values()]).values_list("pk", "answers_ahead"))
    for seat in seats.values():
        seat.answers_ahead = flags.get(seat.pk, False)


def set_answers_ahead(game, *, user, on, seat_index=None):
    """The player of a seat in a running game with veto cards sets (`on`) or takes back his
    standing "allow" to every veto question. Set while such a question waits for him, it answers
    it at once, as his own move; else nothing of the game changes, and nobody else is told."""
    with transaction.atomic():
        game = _lock(game)
        if game.status != Game.Status.ACTIVE:
            raise Conflict(_("Only a running game takes answers given ahead."))
        if not game.veto:
            raise Conflict(_("This game is played without veto cards."))
        seats, vacations = _seats_and_vacations(game, timezone.now())
        seat = _own_seat(seats, user)
        if seat_index is not None and seat_index != seat.index:
            raise NotAllowed(_("You can only act for your own seat."))
        seat.answers_ahead = bool(on)
        seat.save(update_fields=["answers_ahead"])
        state = GameState.from_json(game.state)
        if not answered_ahead(state, seat):
            return game
        _play_autopilot_and_save(game, state, [], seats=seats, vacations=vacations, previous_to_act=game.to_act)
    return game


def _play_autopilot_and_save(game, state, moves, *, seats, vacations, previous_to_act):
    """Store `moves` (a seat's own change: taken back, handed over, answers ahead) with what the
    seats on autopilot or answering ahead then owe, and save. One move leaves the decision as it
    was (`previous_to_act`: the others answering the same choice keep their deadline); after
    more, the position is a new decision with a deadline of its own. Returns whether anything was
    stored."""
    state = _play_autopilot(game, state, seats, moves)
    if not moves:
        return False
    Move.objects.bulk_create(moves)
    _save(
        game, state, previous_to_act=previous_to_act if len(moves) == 1 else None, seats=seats, vacations=vacations
    )
    return True


def default_move(state, *, seat, rng, greedy=False):
    """What the site plays for a seat whose time ran out, or that is on autopilot: "allow" in a
    veto window; else, with `greedy` (a seat on autopilot, or a computer seat the sweep stands
    in for), the greedy computer player's move (from the seat's view only), and for a person's
    single timeout a random legal move. The sweep plays a thousand timeouts in
    well under two seconds only with the random one (bench/sweep.py): the greedy player's
    decisions cost some 10 ms of CPU on average, with a long tail."""
    if ALLOW in legal_moves(state, seat):
        return dict(ALLOW)
    if greedy:
        return computer.greedy_default(state, seat, rng)
    return random_move(state, seat, rng)


def replay(game, *, upto=None):
    """Rebuild the position after the moves up to version `upto` (all moves when None)."""
    state = new_game(**game.engine_options())
    moves = game.moves.select_related("seat").order_by("version")
    if upto is not None:
        moves = moves.filter(version__lte=upto)
    for move in moves:
        state = apply_move(state, move.seat.index, move.move)
    return state
