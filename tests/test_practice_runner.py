"""A practice game played to its end with the computer players' moves made in the background: by
the embedded runner's thread, and by a real Celery worker on Redis and PostgreSQL. The person's
moves come from the test, as from a browser; the computer players are never moved by it."""

import os
import random
import time

import pytest
from django.db import connection

from games.computer import players as computer
from games.engine import GameState, random_move, to_act
from games.infra import work
from games.models import Game, Move, Seat
from games.play import lifecycle, moving
from games.play.errors import StaleVersion
from tests.support.processes import environment, processes, start_worker  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def play_against_the_computers(game, creator, timeout):
    """Move for the creator whenever he must act, wait otherwise, until the game ends."""
    human = Seat.objects.get(game=game, user=creator).index
    rng = random.Random(game.seed)
    end = time.monotonic() + timeout
    made = 0
    while time.monotonic() < end:
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            return made
        state = GameState.from_json(game.state)
        if human in to_act(state):
            try:
                moving.submit_move(
                    game, user=creator, move=random_move(state, human, rng), expected_version=game.version
                )
                made += 1
            except StaleVersion:
                pass  # a computer player answered the same simultaneous choice meanwhile
        else:
            time.sleep(0.02)
    game.refresh_from_db()
    raise AssertionError(f"game {game.pk} did not end in {timeout} s (round {game.round}, to act {game.to_act})")


@pytest.fixture
def embedded(settings, real_computer_moves):
    settings.REDIS_URL = ""
    runner = work.embedded_worker(computer.PLAY_COMPUTER_MOVE)
    yield runner
    runner.idle.wait(10)


def test_the_embedded_runner_plays_the_computer_seats_to_the_end(make_user, embedded):
    creator = make_user()
    game = lifecycle.create_game(creator, num_players=3, short_game=True, computers=["greedy", "random"])
    made = play_against_the_computers(game, creator, timeout=240)
    game.refresh_from_db()
    assert made > 0 and game.status == Game.Status.FINISHED
    computers = Move.objects.filter(game=game, seat__computer__gt="")
    assert computers.count() > made and not computers.filter(automatic=True).exists()
    assert moving.replay(game).scores == GameState.from_json(game.state).scores


needs_celery = pytest.mark.skipif(
    not os.environ.get("REDIS_URL") or connection.vendor != "postgresql",
    reason="a real Celery worker needs REDIS_URL and a PostgreSQL DATABASE_URL (CI sets both)",
)


@needs_celery
def test_a_celery_worker_plays_the_computer_seats_to_the_end(make_user, real_computer_moves, processes, tmp_path):  # noqa: F811
    start_worker(processes, tmp_path, "bots", environment(BOT_MOVE_DELAY="0.05"))
    creator = make_user()
    game = lifecycle.create_game(creator, num_players=3, short_game=True, computers=["greedy", "greedy"])
    made = play_against_the_computers(game, creator, timeout=240)
    assert made > 0
    computers = Move.objects.filter(game=game, seat__computer__gt="")
    assert computers.count() > made and not computers.filter(automatic=True).exists()
    assert moving.replay(game).scores == GameState.from_json(game.state).scores
    assert "Traceback" not in processes[0].output()


def test_the_embedded_worker_lives_on_when_a_connection_cannot_be_closed(monkeypatch):
    """A job's broken connection that fails even to close must not end the thread: the jobs
    queued after it still run, without waiting for another to be added."""
    from games.infra import background

    done = []
    closes = iter([None, RuntimeError("the connection is gone")])

    def close_old_connections():
        failure = next(closes, None)
        if failure:
            raise failure

    monkeypatch.setattr(background, "close_old_connections", close_old_connections)
    worker = background.EmbeddedWorker("test-worker", done.append)
    worker.add(1)
    worker.add(2)
    assert worker.idle.wait(10)
    assert done == [1, 2]
