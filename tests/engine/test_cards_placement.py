"""Every action card's placement from court: its allowance, where, and the order with the special action."""

import pytest

from games.engine import apply_move, to_act, view_for
from games.engine.cards import CARDS
from tests.support.engine_builders import at_action, holdings, refused

ALL_CARDS = sorted(CARDS)


def test_the_catalogue_has_the_45_cards_of_the_rules():
    copies = {card: kind.copies for card, kind in CARDS.items()}
    assert sum(copies.values()) == 45
    assert len(CARDS) == 33
    by_stack = {}
    for kind in CARDS.values():
        by_stack[kind.stack] = by_stack.get(kind.stack, 0) + kind.copies
    assert by_stack == {1: 11, 2: 11, 3: 11, 4: 11, 5: 1}


@pytest.mark.parametrize("card", ALL_CARDS)
def test_every_card_places_up_to_its_stack_number(card):
    allowance = 5 if card == "king_card" else CARDS[card].stack
    state = at_action(card, court={"red": 7})
    decision = view_for(state, 0)["decision"]
    assert decision["place_limit"] == allowance
    assert decision["card"]["placement"] == allowance
    refused(state, 0, {"type": "place", "to": {"aragon": allowance, "castillo": 1}})
    after = apply_move(state, 0, {"type": "place", "to": {"aragon": allowance - 1, "castillo": 1}})
    expected = {"aragon": allowance - 1} if allowance > 1 else {}
    expected.update(castillo=1, court=7 - allowance, provinces=23)
    assert holdings(after, "red") == expected
    assert after.phase == "action" and to_act(after) == [0]
    assert view_for(after, 0)["decision"]["can_place"] is False


def test_the_king_card_places_five():
    state = at_action("king_card")
    after = apply_move(state, 0, {"type": "place", "to": {"granada": 5}})
    assert holdings(after, "red")["granada"] == 5
    refused(state, 0, {"type": "place", "to": {"granada": 6}})


def test_placement_is_limited_by_the_court():
    state = at_action("king_card", court={"red": 2})
    assert view_for(state, 0)["decision"]["place_limit"] == 2
    refused(state, 0, {"type": "place", "to": {"granada": 3}})


@pytest.mark.parametrize("target", ["galicia", "catalonia", "seville", "new_castile"])
def test_placement_goes_only_next_to_the_king_or_into_the_castillo(target):
    # King in Aragon: neighbours basque, old_castile, new_castile, catalonia, valencia.
    state = at_action("king_card", king="aragon")
    assert view_for(state, 0)["decision"]["place_areas"] == [
        "basque", "catalonia", "old_castile", "new_castile", "valencia", "castillo"
    ]
    if target in ("catalonia", "new_castile"):
        after = apply_move(state, 0, {"type": "place", "to": {target: 2, "castillo": 3}})
        assert holdings(after, "red") == {target: 2, "castillo": 3, "court": 2, "provinces": 23}
    else:
        refused(state, 0, {"type": "place", "to": {target: 1}})


def test_placement_never_goes_into_the_kings_region():
    state = at_action("king_card", king="aragon")
    refused(state, 0, {"type": "place", "to": {"aragon": 1}})


@pytest.mark.parametrize("spread", [{"basque": -1}, {"basque": 1.0}, {"basque": "1"}, {"narnia": 1}, ["basque"]])
def test_placement_refuses_malformed_counts_and_areas(spread):
    state = at_action("king_card", king="aragon")
    refused(state, 0, {"type": "place", "to": spread})


def test_placement_then_special_action_then_the_turn_ends():
    state = at_action("court_2", court={"red": 5})
    state = apply_move(state, 0, {"type": "place", "to": {"granada": 4}})
    state = apply_move(state, 0, {"type": "special"})
    assert holdings(state, "red") == {"granada": 4, "court": 3, "provinces": 23}
    assert to_act(state) == [1] and state.phase in ("court", "card")


def test_special_action_then_placement_then_the_turn_ends():
    state = at_action("court_2", court={"red": 5})
    state = apply_move(state, 0, {"type": "special"})
    assert holdings(state, "red") == {"court": 7, "provinces": 23}
    assert to_act(state) == [0] and state.phase == "action"
    state = apply_move(state, 0, {"type": "place", "to": {"granada": 4}})
    assert holdings(state, "red") == {"granada": 4, "court": 3, "provinces": 23}
    assert to_act(state) == [1]


def test_placement_happens_only_once():
    state = at_action("king_card")
    state = apply_move(state, 0, {"type": "place", "to": {"granada": 1}})
    refused(state, 0, {"type": "place", "to": {"granada": 1}})
    refused(state, 0, {"type": "place", "to": {}})


def test_an_empty_placement_still_uses_up_the_placement():
    state = at_action("king_card")
    state = apply_move(state, 0, {"type": "place", "to": {}})
    refused(state, 0, {"type": "place", "to": {"granada": 1}})


def test_the_special_action_happens_only_once():
    state = at_action("court_2")
    state = apply_move(state, 0, {"type": "special"})
    refused(state, 0, {"type": "special"})
    refused(state, 0, {"type": "decline"})


def test_a_declined_special_action_cannot_be_used_afterwards():
    state = at_action("court_2")
    state = apply_move(state, 0, {"type": "decline"})
    assert holdings(state, "red") == {"court": 7, "provinces": 23}
    refused(state, 0, {"type": "special"})
    refused(state, 0, {"type": "decline"})
    state = apply_move(state, 0, {"type": "place", "to": {}})
    assert to_act(state) == [1]


def test_after_the_king_card_placement_uses_the_new_kings_neighbours():
    state = at_action("king_card", king="new_castile")
    state = apply_move(state, 0, {"type": "special", "to": "galicia"})
    assert view_for(state, 0)["decision"]["place_areas"] == ["basque", "old_castile", "castillo"]
    refused(state, 0, {"type": "place", "to": {"seville": 1}})
    refused(state, 0, {"type": "place", "to": {"galicia": 1}})
    after = apply_move(state, 0, {"type": "place", "to": {"basque": 3, "old_castile": 2}})
    assert holdings(after, "red") == {"basque": 3, "old_castile": 2, "court": 2, "provinces": 23}


def test_after_the_royal_adviser_placement_uses_the_new_kings_neighbours():
    state = at_action("royal_adviser", king="galicia")
    state = apply_move(state, 0, {"type": "special", "to": "basque"})
    refused(state, 0, {"type": "place", "to": {"basque": 1}})
    after = apply_move(state, 0, {"type": "place", "to": {"aragon": 2, "galicia": 2}})
    assert holdings(after, "red") == {"aragon": 2, "galicia": 2, "court": 3, "provinces": 23}


def test_placement_before_a_king_move_uses_the_old_kings_neighbours():
    state = at_action("king_card", king="new_castile")
    state = apply_move(state, 0, {"type": "place", "to": {"seville": 5}})
    state = apply_move(state, 0, {"type": "special", "to": "galicia"})
    assert holdings(state, "red") == {"seville": 5, "court": 2, "provinces": 23}
    assert state.king == 0
