"""A Celery worker process's database connection (elgrande_site/celery.py): plain, not pooled, kept
from one task to the next through Celery's own Django fixup (CELERY_DB_REUSE_MAX), and replaced
when the database dropped it, the sweep going on."""

import copy
import time
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.db import connection

from elgrande_site import celery
from games import tasks
from tests.support.processes import (
    INTERVAL,
    SLACK,
    assert_moves_within,
    database_url,
    environment,
    make_overdue,
    moved,
    needs_celery,
    start_worker,
    until,
    worker_idle,
)
from tests.support.processes import processes as processes  # noqa: F401 (a fixture)
from tests.support.processes import proxy as proxy  # noqa: F401 (a fixture)


def test_a_worker_process_uses_a_plain_connection_kept_for_a_while_and_checked(monkeypatch):
    database = copy.deepcopy(connection.settings_dict)
    database.setdefault("OPTIONS", {})["pool"] = {"min_size": 2}
    database["CONN_MAX_AGE"] = 0
    database["CONN_HEALTH_CHECKS"] = False
    # The settings as the worker's main process has them when it starts (worker_init).
    monkeypatch.setattr("django.conf.settings", SimpleNamespace(DATABASES={"default": database}))
    celery.plain_database_connections()
    assert "pool" not in database["OPTIONS"]
    assert database["CONN_MAX_AGE"] == celery.WORKER_CONNECTION_SECONDS > 0
    assert database["CONN_HEALTH_CHECKS"] is True


def test_celerys_django_fixup_is_told_to_leave_the_connection_open():
    """The fixup reads CELERY_DB_REUSE_MAX from the app's configuration: unset, it closes every
    connection before and after each task, whatever CONN_MAX_AGE says."""
    from celery.fixups.django import DjangoWorkerFixup

    assert settings.CELERY_DB_REUSE_MAX > 1
    assert DjangoWorkerFixup(celery.app).db_reuse_max == settings.CELERY_DB_REUSE_MAX


# The sweeps of the worker below give up after this many seconds (DEADLINE_SWEEP_TIME_LIMIT).
TIME_LIMIT = 4


def send_sweep(expires=INTERVAL + SLACK):
    """Send the sweep as beat would, with the time limit the worker's settings give it (a message
    carries its sender's, and this process has the site's default)."""
    tasks.sweep_deadlines.apply_async(expires=expires, time_limit=TIME_LIMIT)


def sweep_until_moved(game, version, within):
    """Send the sweep every INTERVAL, as beat would, until `game` moves on from `version`."""
    end = time.monotonic() + within
    while not moved(game, version):
        assert time.monotonic() < end, f"game {game.pk} did not move on from version {version} within {within} s"
        send_sweep(expires=INTERVAL)
        time.sleep(INTERVAL)


@needs_celery
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("fault", ["down", "silent"])
def test_a_worker_keeps_its_connection_between_tasks_and_replaces_one_the_database_dropped(
    fault, proxy, start_game, processes, tmp_path
):
    """A real worker of one process (Celery's fixup and all), its database through the relay, the
    sweeps sent by the test: one connection serves sweep after sweep. Then the relay cuts it
    ("down", the server restarted) or lets it go silent for good ("silent", a firewall that lost
    it): the sweep still goes on, on a new connection; a cut one is found by the check before the
    task's first statement, so no task fails; a silent one hangs its task until the time limit,
    whose process is replaced."""
    env = environment(DATABASE_URL=database_url("127.0.0.1", proxy.port), DEADLINE_SWEEP_TIME_LIMIT=str(TIME_LIMIT))
    games = [start_game(2) for _ in range(4)]
    worker = start_worker(processes, tmp_path, "worker", env)
    version = make_overdue(games[0])
    send_sweep()
    assert_moves_within(games[0], version, INTERVAL + SLACK)
    opened = proxy.relayed
    assert opened >= 1
    for game in games[1:3]:
        version = make_overdue(game)
        send_sweep()
        assert_moves_within(game, version, INTERVAL + SLACK)
    # Cut below only between tasks, not in the middle of one (which would fail, as it should).
    until(lambda: worker_idle(worker, sweeps=3), 10, "the worker's tasks to end")
    assert proxy.relayed == opened, "each task opened a connection of its own"

    getattr(proxy, fault)()
    proxy.up()
    version = make_overdue(games[3])
    if fault == "down":
        send_sweep()
        assert_moves_within(games[3], version, INTERVAL + SLACK)
        for failure in ("OperationalError", "InterfaceError", "Traceback", "deadline sweep failed"):
            assert failure not in worker.output(), worker.output()[-3000:]
        assert proxy.relayed == opened + 1
    else:
        send_sweep(expires=settings.DATABASE_CHECK_LIMIT + INTERVAL + SLACK)
        assert_moves_within(games[3], version, settings.DATABASE_CHECK_LIMIT + INTERVAL + SLACK)
        for failure in ("Hard time limit", "OperationalError", "deadline sweep failed"):
            assert failure not in worker.output(), worker.output()[-3000:]
        assert proxy.relayed == opened + 1


@needs_celery
@pytest.mark.django_db(transaction=True)
def test_a_kept_connection_silenced_for_good_holds_no_task_longer_than_the_check(
    proxy, start_game, processes, tmp_path
):
    """The worker's kept connection goes silent for good between two tasks (a firewall that lost
    it), and the next task is not a sweep but a computer's move, whose time limit is Celery's five
    minutes, not the sweep's: the check of the kept connection before the task gives up within
    DATABASE_CHECK_LIMIT and a new connection is opened, instead of holding the process, and every
    sweep queued behind it, until the time limit kills it."""
    env = environment(DATABASE_URL=database_url("127.0.0.1", proxy.port), DEADLINE_SWEEP_TIME_LIMIT=str(TIME_LIMIT))
    first, second = start_game(2), start_game(2)
    worker = start_worker(processes, tmp_path, "worker", env)
    version = make_overdue(first)
    send_sweep()
    assert_moves_within(first, version, INTERVAL + SLACK)
    until(lambda: worker_idle(worker, sweeps=1), 10, "the worker's tasks to end")

    proxy.silent()
    time.sleep(1)
    proxy.up()
    # A task that is not a sweep, with Celery's own time limit, takes the silenced connection first.
    tasks.play_computer_move.delay(second.pk, second.version)
    version = make_overdue(second)
    sweep_until_moved(second, version, 3 * TIME_LIMIT + 2 * SLACK)
    assert "Hard time limit" not in worker.output(), worker.output()[-3000:]
