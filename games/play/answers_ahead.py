"""Answers given ahead: when the site answers an open veto question for a seat whose player allows
every one ahead (`Seat.answers_ahead`), and the queueing of that answer. The answer itself is a move
of the seat's (games/play/moving.py `answer_ahead`); docs/answers-ahead.md says why it waits."""

import secrets
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from games.engine import to_act
from games.infra import work
from games.models import Seat

ANSWER_AHEAD = "games.tasks.answer_ahead"


def veto_question(state):
    """Whether `state` asks its seats whether to veto (not a veto-on-veto question)."""
    return not state.is_over and state.phase == "special" and state.action["stage"] == "veto"


def read_answers_ahead(seats):
    """Read the seats' answers given ahead again: the seats of a move may have been loaded before
    the game was locked, and setting or taking back the answer changes no version. Under the
    game's lock it is as its player last set it (set_answers_ahead locks the game first). One
    query, only when a veto question is open."""
    flags = dict(Seat.objects.filter(pk__in=[seat.pk for seat in seats.values()]).values_list("pk", "answers_ahead"))
    for seat in seats.values():
        seat.answers_ahead = flags.get(seat.pk, False)


def answers_ahead_due(game, state, seats, keep=False):
    """When the site answers the open veto question of `state` for a seat that answers it ahead:
    None when no seat to answer it does; the due time `game` has when `keep` (the same question
    as before) and it has one; else a new one, after a pause drawn at random between the bounds
    of ANSWERS_AHEAD_DELAY from the system's source (secrets), not the game's seed, which its
    record shows: nobody can tell a prompt answer given ahead from a prompt one given by hand."""
    acting = [] if state.is_over else to_act(state)
    if not any(seats[index].answers_ahead_now(state) for index in acting):
        return None
    if keep and game.answers_ahead_due is not None:
        return game.answers_ahead_due
    least, most = settings.ANSWERS_AHEAD_DELAY
    return timezone.now() + timedelta(seconds=secrets.SystemRandom().uniform(least, most))


def queue_answer_ahead(game_id, due):
    """Have games.tasks.answer_ahead run for game `game_id` at `due`, keyed by that time (call it
    once committed). A task lost costs one sweep interval: the deadline sweep answers what is
    overdue (moving.answer_overdue_ahead)."""
    work.enqueue(
        ANSWER_AHEAD, game_id, due.timestamp(), delay=max(0.0, (due - timezone.now()).total_seconds()),
        label=f"answer ahead in game {game_id}",
    )
