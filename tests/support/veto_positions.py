"""Engine positions of the veto tests that tests/test_refusals.py reuses."""


from tests.support.engine_builders import at_action

FOUR_MOVES = {
    "type": "special",
    "plan": [
        {"from": "aragon", "to": "catalonia", "colour": "yellow"},
        {"from": "aragon", "to": "catalonia", "colour": "blue"},
        {"from": "aragon", "to": "basque", "colour": "yellow"},
        {"from": "aragon", "to": "basque", "colour": "blue"},
    ],
}


def intrigue_position(holders=("blue",), num_players=3):
    return at(
        "intrigue_4_any",
        holders,
        num_players=num_players,
        caballeros={"aragon": {"yellow": 2, "blue": 2}, "granada": {"red": 1}},
        court={"red": 5},
    )


def holding(state, *colours, taken=None):
    """The given colours hold a Veto card kept in round `taken` (default: this round)."""
    state = state.clone()
    state.vetoes = [[SEAT[c], state.round if taken is None else taken] for c in colours]
    return state


def at(card, holders=(), **layout):
    return holding(at_action(card, **layout), *holders)


SEAT = {"red": 0, "yellow": 1, "blue": 2, "green": 3, "brown": 4}
