# ruff: noqa: F811 - the fixtures of tests/test_deadline_faults are imported, then named as arguments
"""The web process against a PostgreSQL that goes silent or away for a moment, through the relay
of tests/test_deadline_faults (a real Daphne, its pool warmed by parallel requests). Every request
must be answered within the bound, with the lobby or the 503 page, and the site must serve pages
again soon after the fault ends, without a restart. Each test prints how long that took."""

import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.processes import (  # noqa: F401 - fixtures
    database_url,
    environment,
    needs_postgresql,
    processes,
    proxy,
    start_embedded,
    until,
)

pytestmark = [pytest.mark.django_db(transaction=True), needs_postgresql]

# No request may go unanswered longer than this (the database's own bounds, with room for a loaded
# machine): the client gives up after it, and the test fails.
BOUND = 20
# Requests at once: more than the server's threads, so some wait for one behind those that hang.
PARALLEL = 30


def get(port, path="/"):
    """(status, body) of a GET, or an AssertionError when no answer came within BOUND."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=BOUND) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except TimeoutError:
        raise AssertionError(f"no answer to GET {path} within {BOUND} s") from None


def in_parallel(port, count=PARALLEL):
    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(lambda _: get(port), range(count)))


def start_site(processes, tmp_path, proxy):
    env = environment(REDIS_URL=None, DATABASE_URL=database_url("127.0.0.1", proxy.port))
    server, port = start_embedded(processes, tmp_path, env)
    until(lambda: server_answers(port), 30, "Daphne to serve the lobby")
    # The pool warm: as many connections open as the server has threads to use them.
    assert {status for status, _ in in_parallel(port)} == {200}
    return server, port


def server_answers(port):
    try:
        return get(port)[0] == 200
    except (OSError, AssertionError):
        return False


def assert_lobby_or_unavailable(answers, server):
    for status, body in answers:
        assert status in (200, 503), server.output()[-3000:]
        if status == 503:
            assert "The site cannot reach its database just now" in body, body[:500]


def recovery(port, within):
    """Seconds until the lobby is served again, asked one request after another from now; an
    AssertionError after `within`."""
    started = time.monotonic()
    until(lambda: get(port)[0] == 200, within, "the lobby to be served again")
    return time.monotonic() - started


def test_a_second_of_silent_database_is_answered_with_503_and_the_site_serves_again(processes, proxy, tmp_path):
    server, port = start_site(processes, tmp_path, proxy)
    with ThreadPoolExecutor(PARALLEL + 1) as pool:
        during = [pool.submit(get, port) for _ in range(PARALLEL // 2)]
        # Some are waiting on their statements when the path goes silent, others ask for a
        # connection after.
        time.sleep(0.1)
        proxy.silent()
        time.sleep(1)
        # New connections pass again; those open during the second stay silent for good.
        proxy.up()
        back = pool.submit(recovery, port, 30)
        after = [pool.submit(get, port) for _ in range(PARALLEL // 2)]
        answers = [future.result() for future in during + after]
        print(f"\nsilent for 1 s: the lobby served again {back.result():.1f} s after")
    assert_lobby_or_unavailable(answers, server)
    assert {status for status, _ in in_parallel(port)} == {200}


def test_a_refused_database_is_answered_with_503_and_the_site_serves_again_soon_after(processes, proxy, tmp_path):
    server, port = start_site(processes, tmp_path, proxy)
    proxy.down()
    started = time.monotonic()
    answers = []
    while time.monotonic() - started < 4:
        answers += in_parallel(port, 5)
    assert [status for status, _ in answers] == [503] * len(answers)
    assert_lobby_or_unavailable(answers, server)
    outage = time.monotonic() - started
    proxy.up()
    print(f"\nrefused for {outage:.1f} s: the lobby served again {recovery(port, 15):.1f} s after")
    assert {status for status, _ in in_parallel(port)} == {200}
