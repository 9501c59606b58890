"""The game of tests/browser/test_since_visit.py, made and played on in the live site's database by
`manage.py shell`: three players at the first actions of a game; then the others move and talk
while the first player is away."""

import json
import random
import time

from tests.support.browser import PASSWORD


def make(prefix):
    """Prints {"game": id, "players": [user names by seat]}."""
    from accounts.models import User
    from games.play import lifecycle
    from tests.support.helpers import play, user_at

    names = [f"{prefix}{seat}" for seat in range(3)]
    users = [User.objects.create_user(name, f"{name}@example.org", PASSWORD) for name in names]
    game = lifecycle.create_game(users[0], num_players=3, veto=False)
    type(game).objects.filter(pk=game.pk).update(seed=4)
    for user in users[1:]:
        lifecycle.join_game(game, user=user, token=game.invite_token)
    game.refresh_from_db()
    play(game, until=lambda state: state.round == 1 and state.phase == "action")
    print(json.dumps({"game": game.pk, "players": [user_at(game, seat).username for seat in range(3)]}))


def others_play(game_id, text):
    """Seat 1 says `text`, then the seats play on until the caballeros seat 0 sees have changed;
    prints the areas that changed for seat 0."""
    from games.engine import random_move, to_act, view_for
    from games.models import Game
    from games.play import chat, moving
    from games.reading.since_visit import _caballeros
    from tests.support.helpers import state_of, user_at

    game = Game.objects.get(pk=game_id)
    _page_left(game_id)
    chat.post_message(game, game.seats.get(index=1), text)
    before = _caballeros(view_for(state_of(game), 0))
    rng = random.Random(3)
    changed = set()
    while not changed or to_act(state_of(game))[0] != 0:
        state = state_of(game)
        seat = to_act(state)[0]
        moving.submit_move(
            game, user=user_at(game, seat), move=random_move(state, seat, rng),
            expected_version=game.version)
        game.refresh_from_db()
        after = _caballeros(view_for(state_of(game), 0))
        changed = {area for area in after if after[area] != before[area]}
    print(json.dumps(sorted(changed)))


def _page_left(game_id, timeout=30):
    """Wait until the server has let go of the closed page's socket: a seat's socket still in the
    game's group is sent its view of each move, which counts as a look (so the next visit would
    show less as changed). The seed then runs in the server (tests/support/shared_site_urls.py),
    at once after the page closed."""
    from channels.layers import get_channel_layer
    from django.conf import settings

    from games.broadcast import game_group

    layer, group = get_channel_layer(), game_group(game_id)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if hasattr(layer, "groups"):  # the in-memory layer, in this process
            members = len(layer.groups.get(group, {}))
        else:
            import redis

            members = redis.Redis.from_url(settings.REDIS_URL).zcard(f"{layer.prefix}:group:{group}")
        if not members:
            return
        time.sleep(0.05)
    raise AssertionError(f"the closed page's socket is still in {group} after {timeout} s")
