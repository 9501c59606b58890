"""Games for the replay's browser test, made in the live site's database by `manage.py shell`
(tests/browser/test_replay.py): a finished game and a running one, played with random moves."""

import json
import random

from tests.support.browser import PASSWORD


def make():
    """Prints {"finished": id, "running": id, "player": username in the running game's seat 0}."""
    from accounts.models import User
    from games.play import lifecycle
    from tests.support.helpers import play, user_at

    def game(names, moves=None, **options):
        users = [User.objects.create_user(name, f"{name}@example.org", PASSWORD) for name in names]
        started = lifecycle.create_game(users[0], num_players=len(users), **options)
        for user in users[1:]:
            lifecycle.join_game(started, user=user)
        started.refresh_from_db()
        play(started, moves=moves, rng=random.Random(started.pk))
        return started

    finished = game(["ana", "blas", "cris"], short_game=True)
    running = game(["dora", "eloy", "fina"], moves=40)
    print(json.dumps({"finished": finished.pk, "running": running.pk, "player": user_at(running, 0).username}))
