"""A seat's own changes of a running game: submitting a move, handing the seat to the computer
(the autopilot) and taking it back, answering every veto question ahead; and what the site plays
for a seat on autopilot or answering ahead (`_play_autopilot`), for a seat whose time ran out
(`default_move`, used by games/play/expiry.py too), and the replay of a game's moves.

Each change runs in one transaction with the game's row locked and goes through
games/play/saving.py (`_save`), then games/play/after_save.py.
"""

import logging
import random
from functools import partial

from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.computer import players as computer
from games.engine import GameState, apply_move, legal_moves, new_game, random_move, to_act
from games.models import Game, Move
from games.moves import move_shapes
from games.play.answers_ahead import answers_ahead_due, queue_answer_ahead, read_answers_ahead, veto_question
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

logger = logging.getLogger(__name__)


def submit_move(game, *, user, move, expected_version, seat_index=None, seats=None, locked=False):
    """Apply `user`'s move if it was made against the current version; else change nothing.
    Returns the saved game.

    `seat_index`, when the form names a seat, must be the user's own. With `seats` (the game's
    seats, loaded with `clocks.with_vacation_hint` as games/reading/selectors.py `game_for_move` does),
    the caller's `game` and `seats` are used and changed in place when the row locked here is
    still at the version loaded (each change of a game raises it: `_save`): the move's path then
    reads the game once. Without, the game is read again under the lock and the caller's object
    is left as it was. A `move` that is not a JSON object with a "type" is refused, after the
    checks that do not depend on it (a move from a seat with no decision to make is None).

    `locked`: the caller's transaction read `game` and `seats` with the game's row locked
    (selectors.game_for_move's `lock`), and this runs in that transaction, without a savepoint (a
    refusal then ends the whole transaction: the caller's rolls back). The game's row is then the
    newest; its seats' rows, under READ COMMITTED, are as they stood when that SELECT began, which
    is as good: every change of a seat that a move reads raises the game's version (checked here
    against the one posted), and the answers given ahead, which change without one, are read again
    under the lock (games/play/answers_ahead.py `read_answers_ahead`).
    """
    with transaction.atomic(savepoint=not locked):
        if locked:
            current = True
        else:
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
    """Move at once, with the default moves, for every seat on autopilot that must act, until a
    player who moves himself must act, the game ends, or AUTOPILOT_MOVES_AT_MOST moves were made
    (the game is then left with a deadline, and the sweep goes on from there). Appends the Move
    rows to `moves`; returns the new state. A seat that answers its veto questions ahead is not
    answered here: its question is saved open, and answered after a pause (`answer_ahead`)."""
    if not any(seat.autopilot for seat in seats.values()):
        return state
    rng = random.Random(f"{game.seed}-autopilot-{game.version}")
    for _turn in range(AUTOPILOT_MOVES_AT_MOST):
        acting = [] if state.is_over else to_act(state)
        autopilot = [index for index in acting if seats[index].autopilot]
        if not autopilot:
            break
        move = default_move(state, seat=autopilot[0], rng=rng, greedy=True)
        state = apply_move(state, autopilot[0], move)
        game.version += 1
        moves.append(_move_row(game, seats[autopilot[0]], move, state, automatic=True, autopilot=True))
    return state


def _answered_ahead_row(game, seat, state):
    """The seat's standing "allow" to the veto question of `state`, applied (the game's version
    raised): (the new state, its Move row). The row leads with the mark "answered ahead", said to
    the seat alone (and in the finished game's replay): to the others the answer is a player's
    "allow" like any other, and the setting stays his own."""
    mark = {**_site_event("answered_ahead", seat.index, state), "private": True}
    state = apply_move(state, seat.index, ALLOW)
    game.version += 1
    row = _move_row(game, seat, dict(ALLOW), state)
    row.events = [mark, *row.events]
    return state, row


ALLOW = {"type": "allow"}


def answered_ahead(state, seat):
    """Whether the site answers "allow" for `seat` (a Seat) in `state`: `Seat.answers_ahead_now`."""
    return seat.answers_ahead_now(state)


def set_answers_ahead(game, *, user, on, seat_index=None):
    """The player of a seat in a running game with veto cards sets (`on`) or takes back his
    standing "allow" to every veto question. Set while such a question waits for him, it is
    answered after the pause any question answered ahead waits (`answer_ahead`); taken back
    before that, the question waits for him. Nothing of the game the others see changes (no
    version, no deadline), and nobody else is told."""
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
        due = answers_ahead_due(game, GameState.from_json(game.state), seats, keep=True)
        if due != game.answers_ahead_due:
            game.answers_ahead_due = due
            Game.objects.filter(pk=game.pk).update(answers_ahead_due=due)
            if due is not None:
                _queue_answer_ahead_after_commit(game)
    return game


def _queue_answer_ahead_after_commit(game):
    """Once committed, have `answer_ahead` run for `game` at its due time (answers_ahead.py)."""
    game_id, due = game.pk, game.answers_ahead_due
    transaction.on_commit(partial(queue_answer_ahead, game_id, due), robust=True)


def answer_ahead(game_id, due=None, *, wait=True):
    """Answer "allow", as his own move marked "answered ahead", for one seat that answers ahead
    the veto question open in game `game_id`, if its due time (`Game.answers_ahead_due`) has
    come: the task queued when it was set, or the deadline sweep when that task was lost. Under
    the game's lock the question must still be open and the seat still answer it ahead (its
    player may have answered by hand, taken the setting back, or the game moved on): else
    nothing is answered, and the due time goes. The answer is saved as any move of the seat's
    (notices, mails, the autopilot's and the computers' moves after it); another seat that
    answers the same question ahead then gets a pause of its own. Returns whether it answered.

    `due` (a POSIX timestamp), from the task, is the due time it was queued for: a task of a due
    time the game no longer has does nothing (the due time it has now has a task of its own, or
    the sweep). Run twice (the task and the sweep), the second finds the due time gone and does
    nothing. Not yet due (a task run early), it queues itself for the time left. Without `wait`
    (the sweep), a game another transaction holds is skipped, not waited for (on PostgreSQL)."""
    now = timezone.now()
    with transaction.atomic():
        game = Game.objects.select_for_update(skip_locked=not wait).filter(pk=game_id).first()
        if game is None or game.answers_ahead_due is None:
            return False
        if due is not None and game.answers_ahead_due.timestamp() != due:
            return False
        if game.answers_ahead_due > now:
            _queue_answer_ahead_after_commit(game)
            return False
        seats, vacations = _seats_and_vacations(game, now)
        state = GameState.from_json(game.state)
        running = game.status == Game.Status.ACTIVE
        ahead = [index for index in to_act(state) if answered_ahead(state, seats[index])] if running else []
        game.answers_ahead_due = None
        if not ahead:
            Game.objects.filter(pk=game.pk).update(answers_ahead_due=None)
            return False
        previous_to_act = game.to_act
        state, row = _answered_ahead_row(game, seats[ahead[0]], state)
        if seats[ahead[0]].timeouts:
            # His own decision, as a move of his: the timeouts before it are no longer in a row.
            seats[ahead[0]].timeouts = 0
            seats[ahead[0]].save(update_fields=["timeouts"])
        _play_autopilot_and_save(
            game, state, [row], seats=seats, vacations=vacations, previous_to_act=previous_to_act
        )
    return True


def answer_overdue_ahead(now):
    """The deadline sweep's part: `answer_ahead` for every running game whose answer given ahead
    is due at or before `now` (its task lost, or late), each in a transaction of its own, a game
    another holds skipped until the next sweep. Returns how many it answered."""
    due = (
        overdue_ahead(now)
        .order_by("answers_ahead_due")
        .values_list("pk", flat=True)[:OVERDUE_ANSWERS_PER_SWEEP]
    )
    answered = 0
    for game_id in list(due):
        try:
            answered += answer_ahead(game_id, wait=False)
        except (OperationalError, InterfaceError):
            raise
        except Exception:
            logger.exception("the answer given ahead in game %s failed", game_id)
    return answered


def overdue_ahead(now):
    """The games whose answer given ahead is due at or before `now` (`answer_overdue_ahead`)."""
    return Game.objects.filter(answers_ahead_due__lte=now)


# The most answers given ahead one sweep makes: there are only as many due as tasks were lost.
OVERDUE_ANSWERS_PER_SWEEP = 500


def _play_autopilot_and_save(game, state, moves, *, seats, vacations, previous_to_act):
    """Store `moves` (a seat's own change: a move, handed over, an answer given ahead) with what
    the seats on autopilot then owe, and save. One move leaves the decision as it
    was (`previous_to_act`: the others answering the same choice keep their deadline); after
    more, the position is a new decision with a deadline of its own. Returns whether anything was
    stored."""
    state = _play_autopilot(game, state, seats, moves)
    if not moves:
        return False
    if veto_question(state):
        # Whether a seat answers it ahead (`_set_state`), as its player last set it.
        read_answers_ahead(seats)
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
