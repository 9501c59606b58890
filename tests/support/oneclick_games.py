"""Games for the one-click browser test (tests/browser/test_one_click.py), made in the live site's
database by `manage.py shell`: one game standing at each decision sent by a button of the panel (an
action card, declining the special action, going on without placing, a veto and a veto of the veto),
and one at a placement composed on the map for each size of window."""

import json

from tests.support.browser import PASSWORD


def _seat(state):
    from games.engine import to_act

    return to_act(state)[0]


def _place_limit(state):
    from games.engine.cards import CARDS

    seat = _seat(state)
    return min(CARDS[state.taken[seat]].placement, state.court[seat])


def _stage(state, stage):
    return state.phase == "special" and state.action.get("stage") == stage


def _to_place(state):
    """An action turn with caballeros to place, the special action still to come."""
    return state.phase == "action" and not state.placed and _place_limit(state) > 0 and not state.special_done


def _special_without_choice(state):
    """An action turn whose special action has nothing to choose (a scoring card, say), placed or not."""
    from games.engine import view_for

    if state.phase != "action" or state.special_done:
        return False
    decision = view_for(state, _seat(state))["decision"]
    return bool(decision.get("can_special")) and decision["special"]["action"] == "none"


POSITIONS = {
    "card": lambda state: state.phase == "card",
    "card_keys": lambda state: state.phase == "card",
    "card_plain": lambda state: state.phase == "card",
    "decline": lambda state: state.phase == "action" and state.placed and not state.special_done,
    "place_none": lambda state: state.phase == "action" and not state.placed and _place_limit(state) == 0,
    "place_desktop": _to_place,
    "place_phone": _to_place,
    "place_empty": _to_place,
    "special_none": _special_without_choice,
    "veto": lambda state: _stage(state, "veto"),
    "counter_veto": lambda state: _stage(state, "counter_veto"),
}


def make(prefix="one"):
    """Prints {position: [game id, user name of the seat to act]}."""
    from tests.support.helpers import find_position, seated_game, state_of, user_at

    options = {"veto": True, "short_game": False, "show_castillo": False}
    made = {}
    for name, predicate in POSITIONS.items():
        seed, history = find_position(predicate, 3, **options)
        names = [f"{prefix}{name}{seat}" for seat in range(3)]
        game = seated_game(names, PASSWORD, seed=seed, history=history, **options)
        state = state_of(game)
        assert predicate(state), name
        made[name] = [game.pk, user_at(game, _seat(state)).username]
    print(json.dumps(made))
