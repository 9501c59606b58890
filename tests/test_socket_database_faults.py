# ruff: noqa: F811 - the fixtures of tests/support/processes are imported, then named as arguments
"""A game page's WebSocket against a PostgreSQL that went silent for a moment, through the relay of
tests/support/processes.py, on a real Daphne. The socket's database work (its session's user, the
game it looks at, a reader's own view) runs in threads of the web process outside any request;
a pooled connection silenced for good must not hold those threads for good, or no page of the
process ever connects again."""

import asyncio
import json
import time

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

from tests.support.processes import (  # noqa: F401 - fixtures
    database_url,
    environment,
    needs_postgresql,
    processes,
    proxy,
    start_embedded,
    until,
)
from tests.test_database_faults import get, in_parallel, server_answers

pytestmark = [pytest.mark.django_db(transaction=True), needs_postgresql]


async def first_word(port, game, timeout):
    """The page's first message ({"version": n}), or None when none came within `timeout`."""
    url = f"ws://127.0.0.1:{port}/ws/games/{game.pk}/"
    try:
        async with asyncio.timeout(timeout):
            async with connect(url, origin=f"http://127.0.0.1:{port}", open_timeout=None) as socket:
                return json.loads(await socket.recv())
    except (TimeoutError, OSError, WebSocketException):
        # Daphne gives up a handshake the application has not answered within 5 s.
        return None


def test_a_page_connects_again_soon_after_the_database_was_silent(processes, proxy, tmp_path, start_game):
    game = start_game(3)
    env = environment(REDIS_URL=None, DATABASE_URL=database_url("127.0.0.1", proxy.port), DEADLINE_TICKER="0")
    server, port = start_embedded(processes, tmp_path, env)
    until(lambda: server_answers(port), 30, "Daphne to serve the lobby")
    assert {status for status, _ in in_parallel(port, 10)} == {200}
    assert asyncio.run(first_word(port, game, 10)) == {"version": game.version}

    # The path goes silent for a second; the connections open then stay silent for good.
    proxy.silent()
    time.sleep(1)
    proxy.up()

    started = time.monotonic()
    while (word := asyncio.run(first_word(port, game, 5))) is None:
        assert time.monotonic() - started < 30, "no page connected within 30 s of the database's return\n" + (
            server.output()[-3000:]
        )
    assert word == {"version": game.version}
    print(f"\na page connected again {time.monotonic() - started:.1f} s after a 1 s silence")
    assert get(port)[0] == 200
