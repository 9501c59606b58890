"""Storing a game's new position: the fields that follow from it, the deadline of what is now
pending, and the save itself, which hands over to games/play/after_save.py (`record` in the
transaction, `announce` once committed)."""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from games import clocks
from games.engine import to_act
from games.engine.rounds import final_ranking
from games.models import Game
from games.play import after_save
from games.play.answers_ahead import answers_ahead_due, veto_question
from games.play.steps import _seats_and_vacations, _seats_query


def _save(game, state=None, previous_to_act=None, seats=None, vacations=None, also_tell=()):
    """Store the game (its version already raised) with the deadline of what is now pending (the
    deadline sweep, games/deadlines.py, finds it there), record what that implies and announce it
    once committed (games/play/after_save.py): the game's pages and the lobbies of its players
    (and of `also_tell`) hear of it. `seats` ({index: Seat}) and `vacations`
    (clocks.vacation_spans of their users), when the caller has them."""
    finishing = state is not None and state.is_over and game.status != Game.Status.FINISHED
    if state is not None:
        _set_state(game, state, previous_to_act, seats, vacations)
    game.save()
    after_save.announce_on_commit([
        after_save.record(
            game, state=state, previous_to_act=previous_to_act, seats=seats, also_tell=also_tell, finished=finishing
        )
    ])


def _set_state(game, state, previous_to_act=None, seats=None, vacations=None):
    """Set the fields of `game` that follow from its new `state`, the deadline of what is now
    pending among them; nothing is stored (a game it finishes is rated and recorded once stored:
    `after_save.record`)."""
    before = game.state
    game.state = state.to_json()
    acting = [] if state.is_over else to_act(state)
    game.deadline = _deadline(game, acting, previous_to_act, before, seats, vacations)
    if seats is None and veto_question(state):
        seats = {seat.index: seat for seat in _seats_query(game.seats.all(), timezone.now())}
    same_question = before is not None and _decision(before) == _decision(game.state)
    game.answers_ahead_due = answers_ahead_due(game, state, seats, keep=same_question) if seats else None
    game.to_act = acting
    game.round = state.round
    game.colours = list(state.colours)
    game.standings = standings(state)
    if state.is_over and game.status != Game.Status.FINISHED:
        game.status = Game.Status.FINISHED
        game.finished_at = timezone.now()


def standings(state):
    """[place, seat, score] best first; equal scores share a place, as in the final ranking."""
    return [[place, seat, state.scores[seat]] for place, seat in final_ranking(state)]


def _deadline(game, acting, previous_to_act, before, seats=None, vacations=None):
    """Every new decision gets the game's full time per move, from the end of the vacation of a
    player to act who is on one (games/clocks.py). Only the seats still answering the same
    simultaneous choice after one of them answered (`previous_to_act` was pending in the position
    `before`) keep its running deadline."""
    if not acting:
        return None
    now = timezone.now()
    if game.practice:
        known = seats if seats is not None else {seat.index: seat for seat in _seats_query(game.seats.all(), now)}
        if all(known[index].computer for index in acting):
            # Only computer players to act: should their move be lost (a worker's crash), the
            # sweep plays it soon, as a timeout, rather than after the game's time per move.
            return now + timedelta(seconds=settings.BOT_MOVE_DELAY + settings.BOT_STALL_SECONDS)
    if (
        previous_to_act
        and game.deadline is not None
        and set(acting) < set(previous_to_act)
        and before is not None
        and _decision(before) == _decision(game.state)
    ):
        return game.deadline
    if not game.clocks_stop_for_vacations:
        return now + timedelta(seconds=game.time_per_move)
    if seats is None:
        seats, vacations = _seats_and_vacations(game, now)
    return clocks.new_deadline(game, clocks.vacations_of_acting(seats.values(), acting, vacations), now)


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
