# ruff: noqa: F811 - the `processes` fixture of tests/test_deadline_faults is imported, then named as an argument
"""Redis lost for a while, behind the relay of tests/test_deadline_faults.py: refused, or silent
(the connections stay open and nothing passes, as when a network drops packets). The games must
move on by themselves once it is back, and meanwhile the site must keep serving.
"""

import random
import time
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from games.engine import random_move, to_act
from games.models import Game
from tests.support.games import post_move
from tests.support.helpers import state_of, user_at
from tests.support.processes import (
    INTERVAL,
    SLACK,
    Process,
    Proxy,
    assert_moves_within,
    celery,
    environment,
    make_overdue,
    needs_celery,
    processes,  # noqa: F401 - a fixture
    start_beat,
    start_worker,
    until,
)

pytestmark = pytest.mark.django_db(transaction=True)

# How long the silent drop of the Celery test lasts, and how soon after it the sweep must have
# moved an overdue game.
DROP = 1.0
RECOVERY = 60


def through(relay):
    """REDIS_URL with its host and port replaced by the relay's."""
    parts = urlsplit(settings.REDIS_URL)
    return urlunsplit(parts._replace(netloc=f"127.0.0.1:{relay.port}"))


@pytest.fixture
def redis_relay():
    """A Proxy in front of the Redis of REDIS_URL, up; taken down at the end."""
    parts = urlsplit(settings.REDIS_URL)
    relay = Proxy((parts.hostname or "127.0.0.1", parts.port or 6379))
    relay.up()
    yield relay
    if relay.running:
        relay.down()


def start_full_worker(processes, tmp_path, name, env):
    """A worker as docs/architecture.md ("Deadlines") starts it: with gossip, mingle and events' heartbeats, each on a
    Redis connection of its own that the drop silences too."""
    worker = Process(celery("worker", "--concurrency=1", "-n", f"{name}@%h"), env, tmp_path / f"{name}.log")
    processes.append(worker)
    worker.wait_for_output(" ready.")
    return worker


@needs_celery
@pytest.mark.parametrize("start", [start_worker, start_full_worker], ids=["worker", "full-worker"])
def test_the_sweep_comes_back_after_a_silent_drop_of_redis(start, redis_relay, start_game, processes, tmp_path):
    """Beat and the worker reach Redis through the relay. It drops everything for a second, the
    connections open then staying dead for good (as a firewall that lost their state): both must
    notice, connect again, and the sweep move an overdue game within RECOVERY seconds."""
    env = environment(REDIS_URL=through(redis_relay))
    before, during = start_game(3), start_game(3)
    version = make_overdue(before)
    start_beat(processes, tmp_path, "beat", env)
    start(processes, tmp_path, "worker", env)
    assert_moves_within(before, version, INTERVAL + SLACK)

    redis_relay.silent()
    time.sleep(DROP)
    redis_relay.up()
    # Overdue only now: a sweep the worker took before the drop cannot be the one that moves it.
    version = make_overdue(during)
    took = assert_moves_within(during, version, RECOVERY)
    print(f"an overdue game moved {took:.1f} s after the end of a {DROP:.0f} s silent drop of Redis")


# ---- the site while Redis is away -----------------------------------------------------------

needs_redis = pytest.mark.skipif(not settings.REDIS_URL, reason="Redis to come back needs REDIS_URL (CI sets it)")


@pytest.fixture
def site_through(redis_relay, settings):
    """The site's cache (sessions, rate limits) and channel layer reach Redis through the relay;
    each test starts with the cache's memory of failures empty."""
    from elgrande_site import cache

    url = through(redis_relay)
    # Only the shared cache goes through the relay; the process's own (the log lines) stay.
    settings.CACHES = {**settings.CACHES, "default": {**settings.CACHES["default"], "LOCATION": url}}
    layer = settings.CHANNEL_LAYERS["default"]
    hosts = [{**host, "address": url} for host in layer["CONFIG"]["hosts"]]
    settings.CHANNEL_LAYERS = {"default": {**layer, "CONFIG": {**layer["CONFIG"], "hosts": hosts}}}
    cache._down_until = 0.0
    cache._stale.clear()
    yield redis_relay
    cache._down_until = 0.0
    cache._stale.clear()


class Took(dict):
    """How long each step took, in seconds: figures for the report, not assertions."""

    @contextmanager
    def __call__(self, step):
        started = time.monotonic()
        yield
        self[step] = round(time.monotonic() - started, 2)


def log_in(client, user, password):
    return client.post(reverse("account_login"), {"login": user.username, "password": password})


UNAVAILABLE = "Logging in, signing up and changes to accounts are paused while part of the site is down."


@needs_redis
@pytest.mark.parametrize("fault", ["down", "silent"])
def test_the_site_keeps_serving_while_redis_is_away(fault, site_through, start_game, make_user, password):
    """Redis refuses (down) or swallows everything (silent): a logged-in player's pages answer,
    with the note that live updates are paused ready for their script; a move is made; a log-in
    is refused with a page that says why; a log-out holds. Once Redis is back, all works again."""
    game = start_game(3)
    seat = to_act(state_of(game))[0]
    player = Client()
    player.force_login(user_at(game, seat))
    leaving = Client()
    leaving.force_login(make_user())
    left_key = leaving.session.session_key
    assert leaving.get(reverse("lobby")).context["user"].is_authenticated
    stranger = make_user()

    getattr(site_through, fault)()
    took = Took()
    with took("lobby"):
        lobby = player.get(reverse("lobby"))
    assert lobby.status_code == 200 and lobby.context["user"] == user_at(game, seat)
    assert 'id="live-paused"' in lobby.content.decode()
    with took("game page"):
        page = player.get(reverse("game", args=[game.pk]))
    assert page.status_code == 200 and 'id="live-paused"' in page.content.decode()
    version = game.version
    move = random_move(state_of(game), seat, random.Random(1))
    with took("move"):
        assert post_move(player, game, move, version).status_code == 200
    assert Game.objects.get(pk=game.pk).version == version + 1

    with took("refused log-in"):
        refused = log_in(Client(), stranger, password)
    print(f"Redis {fault}:", took)
    assert refused.status_code == 503 and UNAVAILABLE in refused.content.decode()
    assert "_auth_user_id" not in refused.wsgi_request.session
    assert leaving.post(reverse("account_logout")).status_code == 302

    site_through.up()
    # The cache tries Redis again RETRY_AFTER seconds after its last failure.
    until(lambda: log_in(Client(), stranger, password).status_code == 302, 30, "a log-in to succeed")
    assert player.get(reverse("lobby")).context["user"] == user_at(game, seat)
    # The session logged out while Redis was away stays logged out, though Redis still held it.
    returning = Client()
    returning.cookies[settings.SESSION_COOKIE_NAME] = left_key
    assert not returning.get(reverse("lobby")).context["user"].is_authenticated
    from django.core.cache import cache

    cache.set("back", 1)
    assert cache.get("back") == 1
