"""What the one-process CPU benches (page_cpu.py, own_view_cpu.py) share: a scratch SQLite file
(never db.sqlite3) with Django set up on it, and a 4-player game played `moves` random moves."""

import os
import random
import tempfile


def set_up_scratch():
    """Point Django at a new scratch SQLite file, without Redis, set it up and migrate it; returns
    the file's path (the caller deletes it)."""
    scratch = tempfile.NamedTemporaryFile(prefix="elgrande-bench-", suffix=".sqlite3", delete=False).name
    os.environ["DATABASE_URL"] = f"sqlite:///{scratch}"
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "elgrande_site.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return scratch


def played_game(moves=60):
    """(the four players, their game, the random source that chose its moves) after `moves` random
    legal moves through the play room."""
    from accounts.models import User
    from games.engine import GameState, random_move, to_act
    from games.play import lifecycle, moving

    users = [User.objects.create_user(f"bench-{n}", password=None) for n in range(4)]
    game = lifecycle.create_game(users[0], num_players=4, time_per_move=604800)
    for user in users[1:]:
        game = lifecycle.join_game(game, user=user)
    rng = random.Random(1)
    for _ in range(moves):
        state = GameState.from_json(game.state)
        seat = to_act(state)[0]
        game = moving.submit_move(
            game, user=game.seats.get(index=seat).user, move=random_move(state, seat, rng),
            expected_version=game.version)
    return users, game, rng
