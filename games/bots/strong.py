"""The strong player (placeholder while the greedy player is tuned)."""

from .greedy import greedy_move
from .sampling import sample_state

DEFAULT_BUDGET = 1.0


def strong_move(view, rng, budget=DEFAULT_BUDGET, iterations=None):
    return greedy_move(sample_state(view, rng), view["seat"], rng)
