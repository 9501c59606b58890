# ruff: noqa: F811 - the `processes` fixture of tests/test_deadline_faults is imported, then named as an argument
"""Redis lost for a while, behind the relay of tests/test_deadline_faults.py: refused, or silent
(the connections stay open and nothing passes, as when a network drops packets). The games must
move on by themselves once it is back, and meanwhile the site must keep serving.
"""

import time
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings

from tests.test_deadline_faults import (
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
    """A worker as the README starts it: with gossip, mingle and events' heartbeats, each on a
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
