"""Drawing whole positions from one seat's view (games/bots/sampling.py): the drawn position shows
that seat exactly its view, and what the seat cannot see is drawn, not copied."""

import json
import random

import pytest

from games.bots import sample_state
from games.engine import new_game, view_for
from games.engine.board import CASTILLO_INDEX, POWER_CARDS, REGIONS
from games.engine.cards import CARDS, stack_cards
from tests.support.bot_positions import random_positions
from tests.support.engine_builders import lay_out


def comparable(view):
    """The view as JSON data, less what a drawn position draws on purpose: the other seats'
    provinces when the Castillo is hidden (see `sample_state`: it draws how their reserve splits
    between the provinces and the Castillo)."""
    data = json.loads(json.dumps(view))
    if data["castillo"]["caballeros"] is None:
        for player in data["players"]:
            if player["seat"] != data["seat"]:
                player["provinces"] = None
    return data


def test_a_drawn_position_shows_the_seat_exactly_its_view():
    rng = random.Random(5)
    checked = set()
    for state, _seat in random_positions(1500, seed=12, rate=0.15):
        for viewer in range(state.num_players):
            view = view_for(state, viewer)
            drawn = sample_state(view, rng)
            assert comparable(view_for(drawn, viewer)) == comparable(view), (state.phase, viewer)
            checked.add(state.phase if state.phase != "special" else state.action["stage"])
    assert checked >= {"bid", "court", "card", "action", "veto", "counter_veto", "choices", "share", "castillo"}


def test_a_view_read_back_from_json_draws_the_same_position():
    for state, seat in random_positions(200, seed=16):
        view = view_for(state, seat)
        drawn = sample_state(view, random.Random(1))
        again = sample_state(json.loads(json.dumps(view)), random.Random(1))
        assert drawn == again


def test_hidden_hands_piles_and_stacks_are_drawn_within_what_the_seat_knows():
    state = None
    for candidate, seat in random_positions(400, seed=13, players=(4,)):
        if candidate.round >= 4 and candidate.phase == "bid":
            state, viewer = candidate, seat
            break
    view = view_for(state, viewer)
    hands = set()
    for draw in range(30):
        drawn = sample_state(view, random.Random(draw))
        assert drawn.hands[viewer] == sorted(state.hands[viewer])
        assert drawn.played[viewer] == state.played[viewer]
        for seat in range(state.num_players):
            assert sorted(drawn.hands[seat] + drawn.played[seat]) == list(POWER_CARDS)
            assert drawn.played[seat][-1:] == state.played[seat][-1:]
            if seat != viewer:
                hands.add((seat, tuple(drawn.hands[seat])))
        for stack, (cards, real) in enumerate(zip(drawn.stacks, state.stacks), start=1):
            assert len(cards) == len(real)
            pool = stack_cards(stack, veto=state.veto_enabled)
            assert all(CARDS[card].stack == stack for card in cards)
            assert all(cards.count(card) <= pool.count(card) for card in cards)
    assert len(hands) > 30, "the other seats' hands are drawn afresh each time"


def test_the_hidden_castillo_is_drawn_from_what_provinces_and_castillo_hold_together():
    state = lay_out(
        new_game(3, seed=4),
        caballeros={"castillo": {}, "galicia": {}, "aragon": {}},
        court={},
    )
    colours = state.colours
    state = lay_out(state, caballeros={"castillo": {colours[0]: 2, colours[1]: 5, colours[2]: 1}})
    view = view_for(state, 0)
    counts = set()
    for draw in range(40):
        drawn = sample_state(view, random.Random(draw))
        assert drawn.caballeros[CASTILLO_INDEX][0] == 2
        for seat in (1, 2):
            together = drawn.caballeros[CASTILLO_INDEX][seat] + drawn.provinces[seat]
            assert together == state.caballeros[CASTILLO_INDEX][seat] + state.provinces[seat]
            counts.add(drawn.caballeros[CASTILLO_INDEX][seat])
        assert drawn.provinces[0] == state.provinces[0]
    assert len(counts) > 2
    shown = state.clone()
    shown.show_castillo = True
    drawn = sample_state(view_for(shown, 0), random.Random(0))
    assert drawn.caballeros[CASTILLO_INDEX] == state.caballeros[CASTILLO_INDEX]
    assert drawn.provinces == state.provinces


def test_others_secret_disks_are_drawn_and_ones_own_is_kept():
    found = 0
    for state, _seat in random_positions(3000, seed=14, rate=0.0):
        action = state.action
        if state.phase != "special" or action["stage"] != "choices":
            continue
        made = [s for s, choice in enumerate(action["choices"]) if choice is not None]
        if not made:
            continue
        for viewer in range(state.num_players):
            drawn = sample_state(view_for(state, viewer), random.Random(viewer))
            for s in made:
                assert drawn.action["choices"][s] is not None
                if s == viewer:
                    assert drawn.action["choices"][s] == action["choices"][s]
                assert drawn.action["choices"][s] in range(len(REGIONS))
        found += 1
    assert found


def test_a_spectators_view_cannot_be_played():
    with pytest.raises(ValueError):
        sample_state(view_for(new_game(3, seed=1), None), random.Random(0))
