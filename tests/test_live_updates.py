"""Game pages' WebSockets against a real Daphne server on the Redis channel layer: an idle page
stays connected, hundreds of pages may arrive or leave at the same moment, and spectators' pages
hear the moves again after Redis was away."""

import asyncio
import gzip
import json
import os
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
import redis
from channels.db import database_sync_to_async
from django.conf import settings
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus, WebSocketException

from games.play import moving
from tests.support.helpers import serving, user_at
from tests.support.redis_relay import relayed_redis, through
from tests.support.sockets import move_now

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not settings.REDIS_URL, reason="needs REDIS_URL: these tests are about the channels-redis layer (CI sets it)"
    ),
]


def database_url():
    """The test database, for the server process (it must see what the tests commit)."""
    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    credentials = quote(db["USER"] or "", safe="") + (f":{quote(db['PASSWORD'], safe='')}" if db["PASSWORD"] else "")
    return f"postgres://{credentials}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{quote(db['NAME'])}"


def daphne_serving(log_path, static_root, **overrides):
    """Daphne serving the site on a free loopback port, as in production (DEBUG=0), on this test
    process's database and channel-layer prefix, its environment changed by `overrides`: a
    context manager that yields the port."""
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="tests.support.live_settings",
        TEST_CHANNEL_PREFIX=f"test-{os.getpid()}",
        DATABASE_URL=database_url(),
        DEBUG="0",
        STATIC_ROOT=str(static_root),
        SECRET_KEY="a-test-only-secret-key-that-is-long-enough-for-django-checks-0123456789",
        SITE_URL="http://127.0.0.1",
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
        **overrides,
    )
    # Daphne drops a socket whose handshake is not done within --websocket_connect_timeout
    # (5 s by default): 500 pages arriving at once on a loaded 2-core CI machine took longer
    # for some, which then saw no HTTP response at all. The tests bound a handshake by their
    # own open_timeout (60 s), a bound for a loaded machine, not a speed.
    daphne = [
        *[sys.executable, "-m", "daphne", "-b", "127.0.0.1", "--access-log", os.devnull],
        *["--websocket_connect_timeout", "60"],
    ]
    return serving(
        lambda port: [*daphne, "-p", str(port), "elgrande_site.asgi:application"], env=env, cwd=ROOT, log_path=log_path
    )


@pytest.fixture(scope="module")
def site(django_db_setup, tmp_path_factory, collected_static):
    """Daphne on Redis: (port, path of the server's log)."""
    log_path = tmp_path_factory.mktemp("daphne") / "server.log"
    with daphne_serving(log_path, collected_static) as port:
        yield port, log_path


def open_page(port, game):
    return connect(
        f"ws://127.0.0.1:{port}/ws/games/{game.pk}/", origin=f"http://127.0.0.1:{port}", open_timeout=60
    )


async def bid(game):
    mover = await database_sync_to_async(user_at)(game, game.to_act[0])
    await database_sync_to_async(moving.submit_move)(
        game, user=mover, move={"type": "bid", "card": 9}, expected_version=game.version
    )


async def test_an_idle_page_stays_connected_for_30_seconds_and_still_hears_the_next_move(site, start_game):
    port, log_path = site
    game = await database_sync_to_async(start_game)(3)
    async with open_page(port, game) as page:
        assert json.loads(await page.recv()) == {"version": game.version}
        with pytest.raises(TimeoutError):
            # Nothing arrives, and the server does not close the socket meanwhile (that would
            # end this recv early with ConnectionClosed).
            await asyncio.wait_for(page.recv(), timeout=30)
        await bid(game)
        assert json.loads(await asyncio.wait_for(page.recv(), timeout=5)) == {"version": game.version + 1}
    assert log_path.read_text() == ""


async def test_500_pages_connecting_and_leaving_at_once_all_connect_hear_the_move_and_leave_cleanly(
    site, start_game, channel_prefix_of_this_process
):
    port, log_path = site
    game = await database_sync_to_async(start_game)(3)
    count = 500

    async def arrive():
        page = await open_page(port, game)
        assert json.loads(await asyncio.wait_for(page.recv(), timeout=60)) == {"version": game.version}
        return page

    pages = await asyncio.gather(*(arrive() for _ in range(count)))
    assert len(pages) == count
    await bid(game)
    heard = await asyncio.gather(*(asyncio.wait_for(page.recv(), timeout=30) for page in pages))
    assert [json.loads(message) for message in heard] == [{"version": game.version + 1}] * count

    await asyncio.gather(*(page.close() for page in pages))
    # Every page that left is also gone from the game's group in Redis: no dead members to which
    # each later move would still be sent.
    group = f"{channel_prefix_of_this_process}:group:game-{game.pk}"
    members = redis.Redis.from_url(settings.REDIS_URL)
    deadline = time.monotonic() + 20
    while members.zcard(group) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    assert members.zcard(group) == 0
    assert log_path.read_text() == ""


@pytest.mark.parametrize("path", ["/ws/", "/ws/games/abc/", "/ws/games/%00/", "/ws/games/99999999999999999999/"])
async def test_the_server_refuses_sockets_for_paths_and_games_it_does_not_serve_with_403_and_logs_nothing(site, path):
    port, log_path = site
    with pytest.raises(InvalidStatus) as refused:
        async with connect(f"ws://127.0.0.1:{port}{path}", origin=f"http://127.0.0.1:{port}"):
            pass
    assert refused.value.response.status_code == 403
    assert log_path.read_text() == ""


@pytest.fixture
def redis_relay():
    with relayed_redis() as relay:
        yield relay


@pytest.fixture
def site_behind_relay(redis_relay, tmp_path, collected_static):
    """Daphne whose Redis (channel layer, cache) is reached through `redis_relay`: (port, log path)."""
    log_path = tmp_path / "server.log"
    with daphne_serving(log_path, collected_static, REDIS_URL=through(redis_relay, settings.REDIS_URL)) as port:
        yield port, log_path


class SpectatorsPage:
    """A logged-out spectator's page as static/game.js keeps it current: its socket asks for the
    spectators' frames, and is opened again half a second after it closed or could not open.
    `version`: the newest version it heard of, from a notice or a frame."""

    def __init__(self, port, game):
        self.url = f"ws://127.0.0.1:{port}/ws/games/{game.pk}/?play=gzip&lang=en"
        self.origin = f"http://127.0.0.1:{port}"
        self.version = -1
        self.task = asyncio.create_task(self._keep_open())

    async def _keep_open(self):
        while True:
            try:
                async with connect(self.url, origin=self.origin, open_timeout=30) as socket:
                    async for message in socket:
                        if isinstance(message, bytes):
                            message = gzip.decompress(message)
                        self.version = max(self.version, json.loads(message).get("version", -1))
            except (OSError, TimeoutError, WebSocketException):
                pass
            await asyncio.sleep(0.5)

    async def hears(self, version, timeout=90):
        """Whether the page hears of `version` within `timeout` seconds (a bound for a loaded
        machine, not a speed)."""
        deadline = time.monotonic() + timeout
        while self.version < version and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        return self.version >= version

    async def close(self):
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


# How long Redis stays away: the spectators' pages saw the cut of 10 to 20 s.
OUTAGE = 10


@pytest.mark.parametrize("fault", ["down", "silent"])
async def test_spectators_pages_hear_the_moves_again_after_redis_was_away(
    fault, redis_relay, site_behind_relay, start_game
):
    """The whole of tests/test_spectators_socket.py's hub test on a real server, whose consumers
    receive too: which of them sees Redis fail first is chance, and the pages of a hub that
    could not close them (1011, refused by Daphne) stayed deaf in 4 runs of 5 after a cut."""
    port, log_path = site_behind_relay
    game = await database_sync_to_async(start_game)(3)
    pages = [SpectatorsPage(port, game) for _ in range(5)]
    try:
        assert await asyncio.gather(*(page.hears(game.version) for page in pages)) == [True] * len(pages)

        # Redis refuses every connection, or holds the open ones without a word (they stay so
        # afterwards) for OUTAGE seconds; then it is back.
        getattr(redis_relay, fault)()
        await asyncio.sleep(OUTAGE)
        redis_relay.up()

        # A move after Redis came back reaches every page (its frame, or its version told to a
        # page that reconnected), and so does the next: the pages are fed again, not only told
        # once.
        for _ in range(2):
            await database_sync_to_async(move_now)(game)
            heard = await asyncio.gather(*(page.hears(game.version) for page in pages))
            assert heard == [True] * len(pages), log_path.read_text()[-3000:]
    finally:
        for page in pages:
            await page.close()
    assert "invalid close code" not in log_path.read_text()
