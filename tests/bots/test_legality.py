"""Every move a computer player makes is legal: over thousands of positions of random games (every
phase, every card, veto windows, secret disks, shares), and through whole games between levels."""

import random

import pytest

from games.bots import LEVELS, choose_move
from games.engine import apply_move, new_game, to_act, view_for
from games.engine.cards import CARDS
from tests.support.bot_positions import random_positions
from tests.support.examples import examples

# Positions per level under the 'ci' profile; `make test` checks the first tenth of them
# (tests/support/examples.py).
POSITIONS = {"random": 3000, "greedy": 2500, "strong": 80}


@pytest.mark.parametrize("level", LEVELS)
def test_every_move_of_a_computer_player_is_legal(level):
    for index, (state, seat) in enumerate(random_positions(examples(POSITIONS[level]), seed=31, rate=0.12)):
        move = choose_move(view_for(state, seat), level, random.Random(index), iterations=1)
        apply_move(state, seat, move)  # raises IllegalMove if the move is not legal


def test_the_greedy_player_plans_every_kind_of_special_action_legally():
    """The special actions are the open-ended moves the players build themselves: each card's
    plan is made, and legal, in some turn."""
    used = set()
    for index, (state, seat) in enumerate(random_positions(6000, seed=32, rate=0.12)):
        if state.phase != "action":
            continue
        for _ in range(2):  # the placement first, then the special action, or the other way round
            if state.phase != "action" or state.current_player != seat:
                break
            move = choose_move(view_for(state, seat), "greedy", random.Random(index))
            if move["type"] == "special":
                used.add(state.taken[seat])
            state = apply_move(state, seat, move)
    assert used == set(CARDS)


@pytest.mark.parametrize(
    ("levels", "short"),
    [(("strong", "greedy", "random"), True), (("greedy", "random", "greedy", "random", "greedy"), False)],
)
def test_computer_players_play_whole_games(levels, short):
    state = new_game(len(levels), seed=41, short_game=short)
    rngs = [random.Random(seat) for seat in range(len(levels))]
    moves = 0
    while not state.is_over:
        seat = to_act(state)[0]
        move = choose_move(view_for(state, seat), levels[seat], rngs[seat], iterations=1)
        state = apply_move(state, seat, move)
        moves += 1
    assert state.round == state.num_rounds and moves > 50
