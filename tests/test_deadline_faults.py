"""The faults that used to stall games, against real processes: a Celery worker and beat killed
with SIGKILL, the database unreachable for a while, and the embedded site restarted. After each,
the overdue games must move on by themselves, within one sweep interval of the fault ending.

The subprocesses use the test database (committed data: transactional tests) and a short sweep
interval from the environment.
"""

import json
import re
import time

import pytest

from games.models import Move
from tests.support.processes import (
    INTERVAL,
    SLACK,
    assert_moves_within,
    database_url,
    environment,
    make_overdue,
    moved,
    needs_celery,
    needs_postgresql,
    start_beat,
    start_embedded,
    start_worker,
    until,
)
from tests.support.processes import processes as processes  # noqa: F401 (a fixture)
from tests.support.processes import proxy as proxy  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db(transaction=True)


@needs_celery
def test_games_move_on_after_the_worker_and_beat_are_killed(start_game, processes, tmp_path):
    env = environment()
    first, second, third = start_game(3), start_game(3), start_game(3)
    version = make_overdue(first)
    start_beat(processes, tmp_path, "beat-1", env)
    worker = start_worker(processes, tmp_path, "worker-1", env)
    assert_moves_within(first, version, INTERVAL + SLACK)

    worker.kill()
    version = make_overdue(second)
    time.sleep(3 * INTERVAL)
    assert not moved(second, version), "nothing should sweep while no worker runs"
    start_worker(processes, tmp_path, "worker-2", env)
    assert_moves_within(second, version, INTERVAL + SLACK)

    processes[0].kill()  # beat
    # A sweep the beat sent just before it died may still start until it expires (one interval):
    # the game is made overdue after that, so only a new beat can have it swept.
    time.sleep(2 * INTERVAL)
    version = make_overdue(third)
    time.sleep(3 * INTERVAL)
    assert not moved(third, version), "nothing should be sent while no beat runs"
    start_beat(processes, tmp_path, "beat-2", env)
    assert_moves_within(third, version, INTERVAL + SLACK)


@needs_celery
def test_the_batches_of_a_sweep_are_shared_by_the_workers_processes(start_game, processes, tmp_path):
    # Batches of one game: each overdue game goes as a task of its own to either process.
    env = environment(DEADLINE_SWEEP_BATCH="1")
    games = [start_game(2) for _ in range(4)]
    versions = [make_overdue(game) for game in games]
    start_beat(processes, tmp_path, "beat", env)
    worker = start_worker(processes, tmp_path, "worker", env, concurrency=2)
    for game, version in zip(games, versions):
        assert_moves_within(game, version, INTERVAL + SLACK)
        assert Move.objects.filter(game=game, automatic=True).count() == 1
    done = re.compile(r"Task games\.tasks\.expire_deadlines\[[^]]+\] succeeded in [^:]+: 1$", re.MULTILINE)
    until(lambda: len(done.findall(worker.output())) >= 4, 10, "the batches' tasks to report a game moved each")
    assert "Traceback" not in worker.output()


def test_the_embedded_site_sweeps_after_a_restart_without_any_request(start_game, processes, tmp_path):
    """No REDIS_URL: the web process's ticker moves a game that fell overdue while the site was
    down, with no request at all; a page that only reconnects its WebSocket is told."""
    already_late, watched = start_game(3), start_game(3)
    version = make_overdue(already_late, ago=60)
    server, port = start_embedded(processes, tmp_path, environment(REDIS_URL=None))
    assert_moves_within(already_late, version, 30)  # Daphne's start-up, then at once

    from websockets.sync.client import connect

    with connect(f"ws://127.0.0.1:{port}/ws/games/{watched.pk}/", origin=f"http://127.0.0.1:{port}") as socket_:
        assert json.loads(socket_.recv(timeout=10)) == {"version": watched.version}
        version = make_overdue(watched)
        assert_moves_within(watched, version, INTERVAL + SLACK)
        assert json.loads(socket_.recv(timeout=5))["version"] > version
    assert "GET" not in server.output()


# The sweeps of the processes below give up after this many seconds (DEADLINE_SWEEP_TIME_LIMIT).
TIME_LIMIT = 4
# How long each fault lasts.
OUTAGE = 4.0


def outage(proxy, fault, game):
    """The database fails in the way `fault` says for OUTAGE seconds, while `game` falls overdue;
    nothing may move it meanwhile. Returns its version."""
    getattr(proxy, fault)()
    version = make_overdue(game)
    time.sleep(OUTAGE)
    assert not moved(game, version)
    proxy.up()
    return version


@needs_celery
@pytest.mark.parametrize("fault", ["down", "silent", "full"])
def test_games_move_on_by_themselves_after_the_database_was_away_silent_or_had_no_connection_left(
    fault, proxy, start_game, processes, tmp_path
):
    env = environment(DATABASE_URL=database_url("127.0.0.1", proxy.port), DEADLINE_SWEEP_TIME_LIMIT=str(TIME_LIMIT))
    before, during = start_game(3), start_game(3)
    version = make_overdue(before)
    start_beat(processes, tmp_path, "beat", env)
    worker = start_worker(processes, tmp_path, "worker", env)
    assert_moves_within(before, version, INTERVAL + SLACK)
    version = outage(proxy, fault, during)
    if fault == "down":
        assert "OperationalError" in worker.output(), "the sweeps during the outage should have failed"
        assert_moves_within(during, version, INTERVAL + SLACK)
        return
    # A sweep that hangs on a silent connection has its process killed and replaced.
    assert_moves_within(during, version, TIME_LIMIT + INTERVAL + SLACK)
    if fault == "full":
        assert "sorry, too many clients already" in worker.output()
    else:
        assert "Hard time limit (4" in worker.output()


@needs_postgresql
@pytest.mark.parametrize("fault", ["down", "silent", "full"])
def test_the_embedded_site_moves_games_on_by_itself_after_a_database_fault(
    fault, proxy, start_game, processes, tmp_path
):
    """The embedded site's ticker on PostgreSQL: refused, silent or out of connections for a while,
    the database then back, the next sweep moves the game (the ticker's sweeps are on plain
    connections, not the web process's pool, which reconnects on a back-off of its own)."""
    env = environment(
        REDIS_URL=None, DATABASE_URL=database_url("127.0.0.1", proxy.port),
        DEADLINE_SWEEP_TIME_LIMIT=str(TIME_LIMIT),
    )
    before, during = start_game(3), start_game(3)
    version = make_overdue(before)
    server, _ = start_embedded(processes, tmp_path, env)
    assert_moves_within(before, version, 30)  # Daphne's start-up, then at once
    version = outage(proxy, fault, during)
    within = (TIME_LIMIT if fault == "silent" else 0) + INTERVAL + SLACK
    assert_moves_within(during, version, within)
    if fault == "silent":
        assert "a deadline sweep has not ended after 4 s" in server.output()
    else:
        assert "deadline sweep failed" in server.output()
