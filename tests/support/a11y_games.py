"""Games for the accessibility audit (tests/browser/test_accessibility.py), made in the live site's
database by `manage.py shell`: one game standing at each phase a player sees (bidding, choosing a
card, placing, a veto question, a scoring, the end)."""

import json

from tests.support.browser import PASSWORD
from tests.support.oneclick_games import _place_limit, _seat, _stage

POSITIONS = {
    "bidding": lambda state: state.phase == "bid" and state.round == 2,
    "card": lambda state: state.phase == "card",
    "placing": lambda state: state.phase == "action" and not state.placed and _place_limit(state) > 0,
    "veto": lambda state: _stage(state, "veto"),
    "scoring": lambda state: state.phase == "castillo",
}


def make():
    """Prints {phase: [game id, user name of the seat to act (seat 0 at the end)]}."""
    from tests.support.helpers import find_position, play, seated_game, state_of, user_at

    options = {"veto": True, "short_game": False, "show_castillo": False}

    made = {}
    for name, predicate in POSITIONS.items():
        seed, history = find_position(predicate, 3, **options)
        game = seated_game([f"axe{name}{seat}" for seat in range(3)], PASSWORD, seed=seed, history=history, **options)
        assert predicate(state_of(game)), name
        made[name] = [game.pk, user_at(game, _seat(state_of(game))).username]
    finished = seated_game([f"axeend{seat}" for seat in range(3)], PASSWORD, **{**options, "short_game": True})
    play(finished)
    made["end"] = [finished.pk, user_at(finished, 0).username]
    print(json.dumps(made))
