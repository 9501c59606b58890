"""A computer player decides on what its seat may see, nothing more: change everything private to
the other seats (as the engine's privacy test does: hands, piles below the top, the stacks, secret
disks and Castillo choices, veto answers, the hidden Castillo's counts) and, with the same random
seed, every level makes the same move."""

import random

import pytest

from games.bots import choose_move, sample_state
from games.bots.greedy import greedy_move
from games.engine import view_for
from tests.support.bot_positions import random_positions
from tests.support.engine_positions import perturb
from tests.support.examples import examples

# Positions per level under the 'ci' profile; `make test` checks the first tenth of them
# (tests/support/examples.py).
POSITIONS = {"random": 600, "greedy": 400, "strong": 40}


@pytest.mark.parametrize("level", ["random", "greedy", "strong"])
def test_a_computer_players_move_does_not_change_with_the_other_seats_secrets(level):
    rng = random.Random(21)
    changed, count = 0, examples(POSITIONS[level])
    for index, (state, seat) in enumerate(random_positions(count, seed=22, rate=0.05)):
        other = perturb(state, seat, rng)
        changed += other != state
        moves = [
            choose_move(view_for(position, seat), level, random.Random(index), iterations=2)
            for position in (state, other)
        ]
        assert moves[0] == moves[1], (state.phase, seat)
    assert changed > 0.9 * count, "the perturbation changes what the seat cannot see"


def test_a_player_given_the_whole_position_would_decide_differently():
    """The check above can fail: the greedy player run on whole positions, the true one and another
    that looks the same from the seat, often moves differently: the secrets matter to it."""
    differ = 0
    for index, (state, seat) in enumerate(random_positions(300, seed=24, rate=0.05)):
        lookalike = sample_state(view_for(state, seat), random.Random(index))
        if greedy_move(state, seat, random.Random(index)) != greedy_move(lookalike, seat, random.Random(index)):
            differ += 1
    assert differ > 15
