"""The forms the engine describes for special actions offer only what the rules accept, and the
share a King's-return player is asked for matches the moves the engine lists."""

import random

import pytest

from games.engine import IllegalMove, apply_move, legal_moves, new_game, random_move, to_act, view_for
from games.engine.cards import CARDS

from .builders import at_action


def action_positions():
    """Action-phase positions from random games, each with the taker's card."""
    found = []
    for seed in range(12):
        state = new_game(2 + seed % 4, seed=seed)
        rng = random.Random(seed)
        while not state.is_over:
            seat = to_act(state)[0]
            if state.phase == "action" and not state.special_done:
                found.append((state, seat))
            state = apply_move(state, seat, random_move(state, seat, rng))
    return found


POSITIONS = action_positions()


def single_choice_moves(form):
    """One special move per offered choice, for the forms with one field to choose."""
    if form["form"] in ("king", "grande"):
        return [{"to": target} for target in form["targets"]]
    if form["form"] == "score_region":
        return [{"region": area} for area in form["areas"]]
    if form["form"] == "retake":
        return [{"card": card} for card in form["cards"]]
    if form["form"] == "mobile":
        return [
            {"scoreboard": board["id"], "to": target}
            for board in form["scoreboards"]
            for target in form["targets"]
            if target != board["where"]
        ]
    return []


def test_every_single_choice_a_form_offers_is_accepted_or_explained():
    checked = 0
    for state, seat in POSITIONS:
        card = CARDS[state.taken[seat]]
        form = view_for(state, seat)["decision"]["special"]
        assert form == card.special_form(state, seat)
        for fields in single_choice_moves(form):
            try:
                apply_move(state, seat, {"type": "special", **fields})
            except IllegalMove as error:  # only the mobile scoreboard may refuse: onto the other one
                assert form["form"] == "mobile" and "same place" in str(error), (card.id, fields, error)
            checked += 1
    assert checked > 200


@pytest.mark.parametrize("card", ["intrigue_4_own", "intrigue_3_foreign", "intrigue_4_any", "intrigue_2_own_2_foreign"])
def test_a_plan_form_offers_the_colours_the_card_may_move(card):
    state = at_action(card, caballeros={"aragon": {"red": 2, "yellow": 2}})
    form = CARDS[card].special_form(state, 0)
    expected = {
        "intrigue_4_own": ["red"],
        "intrigue_3_foreign": [c for c in state.colours if c != "red"],
    }.get(card, list(state.colours))
    assert form["colours"] == expected
    assert form["rows"] == {"intrigue_4_own": 4, "intrigue_3_foreign": 3, "intrigue_4_any": 4}.get(card, 4)
    assert state.colours[0] == "red"
    assert "castillo" in form["destinations"] and "castillo" not in form["sources"]


def test_the_share_a_player_is_asked_for_matches_the_legal_shares():
    state = at_action("king_returns", caballeros={"aragon": {"yellow": 2}, "granada": {"yellow": 1}})
    state = apply_move(state, 0, {"type": "special"})
    seat = state.colours.index("yellow")
    decision = view_for(state, seat)["decision"]
    assert decision["kind"] == "share" and decision["needed"] == 3
    assert {s["id"]: s["max"] for s in decision["sources"]} == {"court": 7, "aragon": 2, "granada": 1}
    for move in legal_moves(state, seat):
        assert sum(move["from"].values()) == 3
        assert all(count <= {"court": 7, "aragon": 2, "granada": 1}[source] for source, count in move["from"].items())
