"""Computer players on the site: their accounts, their seats in practice games, and their moves,
made off the players' requests.

A computer player is a user of the site (`accounts.User.computer_level`), "Computer (greedy)" and
so on, made the first time a game needs it: it has a profile and ratings, cannot log in (no
usable password), has no address (so no mail) and never takes a vacation. A practice game with
two seats of the same level seats two such users, "Computer (greedy)" and "Computer (greedy) 2"
(a user has one seat per game).

Its moves: after every commit that leaves a computer seat to act (games.play.after_save),
`queue_move(game_id, version)` has games.play.computer_moves.play(game_id, version) run after
BOT_MOVE_DELAY seconds, by a Celery worker with REDIS_URL (games.tasks.play_computer_move), else by
one thread of the web process (games.infra.work). `play` reads the position, decides with only the seat's view
(`view_for`), and submits through `games.play.moving.submit_move` against that version: a duplicate or
late task finds the game moved on and does nothing, so a move is made exactly once. A decision
that crashes is tried again (BOT_RETRIES times), then by the greedy player, then the random one,
then the engine's random play; should all that or the worker die, the decision's short deadline
(BOT_STALL_SECONDS, games.play.saving._deadline) lets the deadline sweep play it as a timeout does.
"""

import logging
import random

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import IntegrityError, transaction

from games.bots import LEVELS, choose_move
from games.engine import apply_move, random_move, to_act, view_for
from games.infra import work
from games.models import Seat

logger = logging.getLogger(__name__)

# What a level falls back to when its decision crashes (after its own retries).
FALLBACKS = ("greedy", "random")


def username(level, number=1):
    """The account name of a computer player: not one a person can sign up with (the sign-up
    refuses spaces and parentheses)."""
    return f"Computer ({level})" if number == 1 else f"Computer ({level}) {number}"


def computer_user(level, number=1):
    """The account of computer player `level` (its `number`th, for a game seating several),
    made the first time it is needed."""
    if level not in LEVELS:
        raise ValueError(f"no computer player level {level!r}")
    User = get_user_model()
    name = username(level, number)
    try:
        with transaction.atomic():
            user, _ = User.objects.get_or_create(
                username=name, defaults={"computer_level": level, "password": make_password(None)}
            )
    except IntegrityError:  # made by another process at the same moment
        user = User.objects.get(username=name)
    return user


def take_seats(game, levels):
    """Seat computer players of these levels (a list, one per seat) in `game`; returns the seats."""
    numbers = {}
    seats = []
    for level in levels:
        numbers[level] = numbers.get(level, 0) + 1
        user = computer_user(level, numbers[level])
        seats.append(Seat.objects.create(game=game, user=user, computer=level))
    return seats


def computer_must_act(seats, state):
    """Whether a computer seat of `seats` ({index: Seat}) must act in `state`."""
    return not state.is_over and any(seats[index].computer for index in to_act(state) if index in seats)


# ---- deciding ------------------------------------------------------------------------------------


def decide(state, seat, level, seed):
    """The move of computer player `level` for `seat`, from the seat's view only. A decision that
    raises or answers an illegal move is logged and tried again, BOT_RETRIES times, then by the
    fallbacks; the engine's random play is the last resort, so there is always a move."""
    view = view_for(state, seat)
    attempts = [level] * (1 + settings.BOT_RETRIES) + [fallback for fallback in FALLBACKS if fallback != level]
    for attempt, tried in enumerate(attempts):
        rng = random.Random(f"{seed}-{attempt}")
        try:
            move = choose_move(view, tried, rng, budget=settings.BOT_STRONG_BUDGET)
            apply_move(state, seat, move)  # an illegal move counts as a crash
            return move
        except Exception:
            logger.exception("computer player %s failed for seat %s (attempt %d)", tried, seat, attempt + 1)
    return random_move(state, seat, random.Random(f"{seed}-last"))


def greedy_default(state, seat, rng):
    """The site's default move for a seat whose time ran out (or that is on autopilot): the
    greedy player's, a few milliseconds of CPU, from the seat's view; the engine's random play
    should the greedy player fail, so that a deadline never stalls."""
    try:
        move = choose_move(view_for(state, seat), "greedy", rng)
        apply_move(state, seat, move)
        return move
    except Exception:
        logger.exception("the greedy player failed on a default move for seat %s", seat)
        return random_move(state, seat, rng)


# ---- running them off the requests ---------------------------------------------------------------


# The Celery task that makes a computer seat's move (games/tasks.py; games/play/computer_moves.py).
PLAY_COMPUTER_MOVE = "games.tasks.play_computer_move"


def queue_move(game_id, version):
    """Have a computer seat's move at `version` made in BOT_MOVE_DELAY seconds, off the caller's
    path. A failure to queue is logged; the decision's short deadline has the sweep play it."""
    work.enqueue(
        PLAY_COMPUTER_MOVE,
        game_id,
        version,
        delay=settings.BOT_MOVE_DELAY,
        label=f"the computer move of game {game_id}",
    )


