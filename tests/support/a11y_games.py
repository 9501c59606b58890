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
    from accounts.models import User
    from games.play import lifecycle, moving
    from tests.support.helpers import find_position, play, state_of, user_at

    options = {"veto": True, "short_game": False, "show_castillo": False}

    def started(name, seed=None, **more):
        users = [User.objects.create_user(f"{name}{seat}", f"{name}{seat}@example.org", PASSWORD) for seat in range(3)]
        game = lifecycle.create_game(users[0], num_players=3, **{**options, **more})
        if seed is not None:
            type(game).objects.filter(pk=game.pk).update(seed=seed)
        for user in users[1:]:
            lifecycle.join_game(game, user=user, token=game.invite_token)
        game.refresh_from_db()
        return game

    made = {}
    for name, predicate in POSITIONS.items():
        seed, history = find_position(predicate, 3, **options)
        game = started(f"axe{name}", seed)
        for seat, move in history:
            moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
            game.refresh_from_db()
        assert predicate(state_of(game)), name
        made[name] = [game.pk, user_at(game, _seat(state_of(game))).username]
    finished = started("axeend", short_game=True)
    play(finished)
    made["end"] = [finished.pk, user_at(finished, 0).username]
    print(json.dumps(made))
