"""Forged moves in every phase: the engine answers IllegalMove (or plays a legal move), never
crashes, and a refused move changes nothing. The web layer relies on this to answer 4xx."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import IllegalMove, apply_move, new_game, random_move, to_act
from tests.support.examples import examples

FIELDS = [
    "type",
    "card",
    "to",
    "count",
    "region",
    "plan",
    "from",
    "cut",
    "from_regions",
    "option",
    "order",
    "picks",
    "scoreboard",
    "colour",
]
TYPES = ["bid", "court", "take_card", "place", "special", "decline", "allow", "veto", "choose_region", "share"]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-3, 14)
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True)
    | st.sampled_from(["aragon", "castillo", "court", "red", "blue", "8/4/0", "", "atlantis", "own_region"])
)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=3), children, max_size=4)
    ),
    max_leaves=12,
)
forged = st.builds(
    lambda kind, fields: {**fields, "type": kind},
    st.sampled_from(TYPES),
    st.dictionaries(st.sampled_from(FIELDS), values, max_size=5),
)


def positions():
    """States from random games, sampled so that every phase and every stage of a special action
    (choices, veto, veto on a veto) and the Castillo disk are represented."""
    found = {}
    for seed in range(60):
        state = new_game(2 + seed % 4, seed=seed)
        rng = random.Random(seed)
        while not state.is_over:
            key = state.phase if state.phase != "special" else f"special-{state.action['stage']}"
            found.setdefault(key, []).append(state)
            seat = to_act(state)[0]
            state = apply_move(state, seat, random_move(state, seat, rng))
    return found


POSITIONS = positions()


def test_the_sample_reaches_every_phase_and_stage():
    assert {
        "bid",
        "court",
        "card",
        "action",
        "castillo",
        "special-choices",
        "special-veto",
        "special-counter_veto",
    } <= set(POSITIONS)


@settings(max_examples=examples(1500), deadline=None)
@given(data=st.data(), move=forged)
def test_a_forged_move_is_refused_or_legal_and_a_refusal_changes_nothing(data, move):
    phase = data.draw(st.sampled_from(sorted(POSITIONS)))
    state = data.draw(st.sampled_from(POSITIONS[phase]))
    seat = data.draw(st.sampled_from(to_act(state)))
    before = state.to_json()
    try:
        apply_move(state, seat, move)
    except IllegalMove as error:
        assert str(error)
    assert state.to_json() == before
