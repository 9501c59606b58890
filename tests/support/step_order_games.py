"""The game of the step-order browser test (tests/browser/test_map_step_order.py), made in the live
site's database by `manage.py shell`: three players in a veto game, red (seat 0) at its action with
"Intrigue: 2 from court" taken and five caballeros at court, blue (seat 2) holding a veto. The
position is laid out by the engine's test builders and stored as the game's state."""

import json

from tests.support.browser import PASSWORD


def make(prefix="order"):
    """Prints {"game": id, "players": [user names by seat]}."""
    from django.db.models import F

    from games.engine import to_act
    from games.models import Game
    from tests.support.helpers import seated_game, user_at
    from tests.support.veto_positions import at

    state = at("intrigue_court_2", ("blue",), num_players=3, court={"red": 5})
    names = [f"{prefix}{seat}" for seat in range(3)]
    game = seated_game(names, PASSWORD, veto=True, short_game=False, show_castillo=False)
    Game.objects.filter(pk=game.pk).update(
        state=state.to_json(), to_act=to_act(state), status=Game.Status.ACTIVE, version=F("version") + 1
    )
    print(json.dumps({"game": game.pk, "players": [user_at(game, seat).username for seat in range(3)]}))


def recorded(game):
    """Prints the last move stored for `game` (JSON)."""
    from games.models import Move

    print(json.dumps(Move.objects.filter(game_id=game).order_by("-version").first().move))
