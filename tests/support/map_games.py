"""The game of the map's browser test (tests/browser/test_map_moves.py), made in the live site's
database by `manage.py shell`: three players at the bidding of the last round of a short game, with
an Eviction and an Intrigue that moves "up to" some caballeros on offer, so that one round shows
every kind of move the map makes (placements, a plan, an eviction, secret choices)."""

import json

from tests.support.browser import PASSWORD

OPTIONS = {"veto": False, "short_game": True, "show_castillo": False}


def _last_round_with_our_cards(state):
    from games.engine.cards import CARDS
    from games.engine.cards.intrigue import MoveCaballeros

    if not (state.phase == "bid" and state.round == state.num_rounds):
        return False
    plans = [card for card in state.display if isinstance(CARDS[card], MoveCaballeros) and not CARDS[card].exact]
    return "eviction" in state.display and bool(plans)


def make(prefix="map"):
    """Prints {"game": id, "players": [user names by seat], "plan_card": an Intrigue's id}."""
    from games.engine.cards import CARDS
    from games.engine.cards.intrigue import MoveCaballeros
    from tests.support.helpers import find_position, seated_game, state_of, user_at

    seed, history = find_position(_last_round_with_our_cards, 3, **OPTIONS)
    names = [f"{prefix}{seat}" for seat in range(3)]
    game = seated_game(names, PASSWORD, seed=seed, history=history, **OPTIONS)
    state = state_of(game)
    assert _last_round_with_our_cards(state)
    plan = next(card for card in state.display if isinstance(CARDS[card], MoveCaballeros) and not CARDS[card].exact)
    print(json.dumps({"game": game.pk, "players": [user_at(game, s).username for s in range(3)], "plan_card": plan}))
