"""Computer players for El Grande: pure Python beside the engine, no Django.

A computer player sees what its seat sees and nothing more: it is given `view_for(state, seat)`
and answers with a move of the engine's vocabulary (games/engine/README.md). Where it must reason
about what it cannot see (others' hands, the stacks, secret disks, hidden Castillo counts) it
draws whole positions consistent with its view (sampling.py) and decides on those.

    from games.bots import choose_move
    move = choose_move(view_for(state, seat), "greedy", random.Random(7))
    state = apply_move(state, seat, move)

Levels:
- `random`: a legal move at random (the engine's random play, on a drawn position);
- `greedy`: one move looked ahead, judged by an evaluation of the board (greedy.py, evaluate.py);
- `strong`: a search over drawn positions guided by the greedy player, within a time budget
  (strong.py).

With the same view, level, seed of `rng` and budget in `iterations`, the move is always the same;
a budget in seconds makes the strong player's move depend on the machine's speed too.
"""

import random

from games.engine import random_move

from .greedy import greedy_move
from .sampling import sample_state
from .strong import DEFAULT_BUDGET, strong_move

LEVELS = ("random", "greedy", "strong")


def choose_move(view, level, rng=None, budget=DEFAULT_BUDGET, iterations=None):
    """The move of the computer player of that level for the seat whose view this is.

    rng: a random.Random (a fresh one if None); budget: the strong player's time in seconds;
    iterations: instead of time, a number of the strong player's search iterations.
    """
    if level not in LEVELS:
        raise ValueError(f"no computer player level {level!r}; choose one of {', '.join(LEVELS)}")
    seat = view["seat"]
    if seat is None or seat not in view["to_act"]:
        raise ValueError("this seat has nothing to decide now")
    rng = rng if rng is not None else random.Random()
    forced = _forced(view)
    if forced is not None:
        return forced
    if level == "random":
        return random_move(sample_state(view, rng), seat, rng)
    if level == "greedy":
        return greedy_move(sample_state(view, rng), seat, rng)
    return strong_move(view, rng, budget=budget, iterations=iterations)


def _forced(view):
    """The one legal move, when there is no choice at all."""
    decision = view["decision"]
    if decision["kind"] in ("action", "veto"):
        return None
    moves = decision["moves"]
    return moves[0] if len(moves) == 1 else None


__all__ = ["LEVELS", "DEFAULT_BUDGET", "choose_move", "sample_state"]
