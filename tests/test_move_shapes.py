"""games/moves/move_shapes.py takes every legal move as it is: the moves of random play and the greedy
player's candidates, of every kind and card, pass `clean` unchanged (a shape too narrow would
refuse a player's legal move); `canonical` leaves them unchanged too, and strips anything more."""

import random

import pytest

from games.bots.greedy import _card_candidates
from games.engine import apply_move, new_game, random_move, to_act
from games.engine.cards import CARDS
from games.moves import move_shapes


def legal_moves_met(seeds):
    for seed in seeds:
        for num_players in (2, 3, 4, 5):
            state = new_game(num_players=num_players, seed=seed, short_game=seed % 2 == 0, veto=seed % 3 != 0)
            rng = random.Random(seed)
            while not state.is_over:
                seat = to_act(state)[0]
                move = random_move(state, seat, rng)
                yield state, seat, move
                if state.phase == "action" and not state.special_done:
                    for fields in _card_candidates(state, seat, CARDS[state.taken[seat]]):
                        yield state, seat, {"type": "special", **fields}
                state = apply_move(state, seat, move)


def test_every_legal_move_met_in_play_is_clean_as_it_is():
    kinds, specials = set(), set()
    for state, seat, move in legal_moves_met(range(1, 13)):
        special = move_shapes.special_action(state, seat) if move["type"] == "special" else None
        assert move_shapes.clean(move, special) == move
        assert move_shapes.canonical(move) == move
        kinds.add(move["type"])
        specials.add(special)
    assert kinds == set(move_shapes.FIELDS)
    assert specials - {None} == set(move_shapes.SPECIAL_FIELDS)


@pytest.mark.parametrize(
    ("stored", "shape"),
    [
        ({"type": "bid", "card": 9, "note": 10**20}, {"type": "bid", "card": 9}),
        ({"type": "court", "count": 2, "from_regions": None}, {"type": "court", "count": 2}),
        (
            {"type": "special", "plan": [{"from": "aragon", "to": "galicia", "colour": "red", "x": [[[]]]}]},
            {"type": "special", "plan": [{"from": "aragon", "to": "galicia", "colour": "red"}]},
        ),
        ({"type": "place", "to": [["castillo", 1], ["aragon", 2]]},
         {"type": "place", "to": [["castillo", 1], ["aragon", 2]]}),
        ({"type": "veto", "cut": 10**20}, {"type": "veto"}),
    ],
)
def test_canonical_keeps_what_the_engine_reads_and_nothing_else(stored, shape):
    assert move_shapes.canonical(stored) == shape
