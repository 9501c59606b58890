"""Games for the phone layout's browser test, made in the live site's database by `manage.py shell`
(tests/browser/test_phone.py): one game standing at each kind of decision a phone must show."""

import json

from tests.support.browser import PASSWORD


def _plan_turn(state):
    """An action turn whose card is moved with the plan table (an Intrigue that moves caballeros)."""
    from games.engine import to_act
    from games.engine.cards import CARDS
    from games.engine.cards.intrigue import MoveCaballeros

    if state.phase != "action" or state.special_done:
        return False
    seat = to_act(state)[0]
    return isinstance(CARDS[state.taken[seat]], MoveCaballeros)


def _secret_choice(state):
    return state.phase == "special" and state.action["stage"] == "choices"


PHASES = {
    "bidding": lambda state: state.phase == "bid" and state.round == 2,
    "intrigue": _plan_turn,
    "secret": _secret_choice,
    "scoring": lambda state: state.phase == "castillo",
}


def make():
    """Prints {phase: [game id, user name of the seat to act (seat 0 at the end)]}."""
    from games.engine import to_act
    from tests.support.helpers import find_position, play, seated_game, state_of, user_at

    options = {"veto": True, "short_game": False, "show_castillo": False}

    def started(phase, seed=None, history=()):
        return seated_game([f"{phase}{seat}" for seat in range(4)], PASSWORD, seed=seed, history=history, **options)

    made = {}
    for phase, predicate in PHASES.items():
        seed, history = find_position(predicate, 4, **options)
        game = started(phase, seed, history)
        assert predicate(state_of(game)), phase
        made[phase] = [game.pk, user_at(game, to_act(state_of(game))[0]).username]
    finished = started("end")
    play(finished)
    made["end"] = [finished.pk, user_at(finished, 0).username]
    print(json.dumps(made))
