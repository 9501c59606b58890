"""As a web process ends, the database connections that its live threads keep are given back and its
pool closed (elgrande_site/shutdown.py): under Uvicorn at the ASGI lifespan's shutdown, under
Daphne as the interpreter exits. Each connection is closed, which says goodbye to PostgreSQL, rather
than cut with the process (an unexpected EOF in the server's log, once per connection and deploy)."""

import asyncio
import json
import threading

import pytest
from asgiref.testing import ApplicationCommunicator
from channels.db import database_sync_to_async
from django.db import connection

from elgrande_site.asgi import application
from games.live import own_views
from games.live import spectators as hub_module
from games.reading import play_view
from tests.support.kept_connections import closed, kept_in_every_thread
from tests.support.processes import database_url
from tests.support.settings_process import run

pytestmark = pytest.mark.django_db(transaction=True)


async def lifespan_started():
    life = ApplicationCommunicator(application, {"type": "lifespan", "asgi": {"version": "3.0"}})
    await life.send_input({"type": "lifespan.startup"})
    assert await life.receive_output(10) == {"type": "lifespan.startup.complete"}
    return life


async def test_the_lifespans_shutdown_gives_back_every_kept_connection_and_closes_them():
    held = await asyncio.to_thread(kept_in_every_thread)
    life = await lifespan_started()
    await life.send_input({"type": "lifespan.shutdown"})
    assert await life.receive_output(30) == {"type": "lifespan.shutdown.complete"}
    assert not own_views.holding()
    assert all(closed(raw) for raw in held)


async def test_the_lifespans_shutdown_waits_for_a_spectators_render_under_way(start_game, monkeypatch):
    game = await database_sync_to_async(start_game)(3)
    rendering, release = threading.Event(), threading.Event()
    held = []
    real = play_view.spectators_play

    def held_up(game_id):
        found = real(game_id)
        held.append(connection.connection)
        rendering.set()
        release.wait(30)
        return found

    monkeypatch.setattr(play_view, "spectators_play", held_up)
    render = asyncio.create_task(hub_module._frame(game.pk, "en", game.version))
    assert await asyncio.to_thread(rendering.wait, 30)
    life = await lifespan_started()
    await life.send_input({"type": "lifespan.shutdown"})
    assert await life.receive_nothing(0.3)
    release.set()
    assert await life.receive_output(30) == {"type": "lifespan.shutdown.complete"}
    assert (await render)["type"] == "game.play"
    assert closed(held[0])


async def test_the_lifespans_shutdown_closes_the_pool_even_when_a_live_thread_did_not_answer(monkeypatch):
    """A thread held up past the barrier's timeout fails the give-back; the pool is closed all the
    same (its idle connections said goodbye to), and the server told that the shutdown failed."""
    def held_up():
        raise threading.BrokenBarrierError

    monkeypatch.setattr(own_views, "give_back_connections", held_up)
    pool = await asyncio.to_thread(lambda: getattr(connection, "pool", None))
    if pool is not None:
        await asyncio.to_thread(pool.open)

    life = await lifespan_started()
    await life.send_input({"type": "lifespan.shutdown"})
    answer = await life.receive_output(30)
    assert answer["type"] == "lifespan.shutdown.failed"
    assert "BrokenBarrierError" in answer["message"]
    if pool is not None:  # PostgreSQL with DATABASE_POOL, as CI runs
        assert pool.closed


EXITING = """
import atexit, json

held = []
# Registered before the site's exit function: atexit runs the last registered first.
atexit.register(lambda: print(json.dumps([closed(raw) for raw in held])))

import elgrande_site.asgi  # as a server loads the site
from tests.support.kept_connections import closed, kept_in_every_thread

held.extend(kept_in_every_thread())
print(json.dumps([closed(raw) for raw in held]))
"""


def test_a_process_that_loaded_the_site_closes_its_kept_connections_as_it_exits():
    """As under Daphne, which has no lifespan: stopped, its loop ends and so does the interpreter,
    joining the threads (which can give nothing back after that) before the exit functions run."""
    exited = run(EXITING, DJANGO_SETTINGS_MODULE="elgrande_site.settings", DATABASE_URL=database_url(),
                 DEADLINE_TICKER="0")
    assert exited.returncode == 0, exited.stderr
    before, after = [json.loads(line) for line in exited.stdout.splitlines()]
    assert before == [False] * (own_views.RENDERING_THREADS + 1)
    assert after == [True] * (own_views.RENDERING_THREADS + 1), exited.stderr
