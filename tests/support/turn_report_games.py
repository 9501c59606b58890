"""A game for the turn report's browser test, made in the live site's database by `manage.py shell`
(tests/browser/test_turn_report.py): a slow 3-player game just past its first general scoring."""

import json
import random

from tests.support.browser import PASSWORD


def make():
    """Prints [game id, user name of the seat to act]."""
    from accounts.models import User
    from games.engine import random_move, to_act
    from games.mail import turn_report
    from games.play import lifecycle, moving
    from tests.support.helpers import find_position, state_of, user_at

    seed, history = find_position(lambda state: state.round == 4 and state.phase == "bid", 3)
    users = [User.objects.create_user(f"report{seat}", f"report{seat}@example.org", PASSWORD) for seat in range(3)]
    game = lifecycle.create_game(users[0], num_players=3)
    type(game).objects.filter(pk=game.pk).update(seed=seed)
    for user in users[1:]:
        lifecycle.join_game(game, user=user, token=game.invite_token)
    game.refresh_from_db()
    for seat, move in history:
        moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
        game.refresh_from_db()
    # Round 4's bids until the one to bid last moved before the general scoring: his report
    # holds it.
    rng = random.Random(seed)
    state = state_of(game)
    while True:
        seat = to_act(state)[0]
        seats = list(game.seats.select_related("user"))
        report = turn_report.since_last_move(game, seat, seats)
        if report is not None and any(item.kind == "scoring" for _, items in report.rounds for item in items):
            break
        moving.submit_move(
            game, user=user_at(game, seat), move=random_move(state, seat, rng),
            expected_version=game.version)
        game.refresh_from_db()
        state = state_of(game)
        assert state.phase == "bid", "nobody's report holds the scoring"
    print(json.dumps([game.pk, user_at(game, seat).username]))
