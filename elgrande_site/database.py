"""A bound on how long a web request waits on PostgreSQL.

libpq has no client-side timeout on a statement, and neither TCP keepalives nor tcp_user_timeout
notice a path that went silent behind something that still acknowledges (a TCP proxy, a
firewall's relay): the request, and the pooled connection it holds, would wait for good. So every
wait of a request on a pooled connection (the pool's check on checkout, a statement, a commit) is
watched, and the connection's socket is shut down on this side when it goes on too long: the wait
fails at once as a lost connection, which the pool then discards, and the request is answered with
the 503 page (elgrande_site.middleware.DatabaseUnavailable). The web process's work outside its
requests is bounded the same way (`bounded_calls`): its sockets' look-ups and renders, its embedded
background jobs. Elsewhere (Celery tasks, the sweep, management commands) nothing is bounded here:
those have limits of their own.
"""

import functools
import os
import socket
import threading
import time
from contextlib import contextmanager

import psycopg

# How often the watchdog looks for waits that went on too long: the cut comes up to this late.
TICK = 0.2

_request = threading.local()


@contextmanager
def bounded(statement_limit, check_limit):
    """Within it, this thread's waits on PostgreSQL last at most `statement_limit` seconds each,
    and the pool's check of a connection on checkout at most `check_limit`."""
    outer = getattr(_request, "limits", None)
    _request.limits = (statement_limit, check_limit)
    try:
        yield
    finally:
        _request.limits = outer


def bounded_as_a_request():
    """`bounded` with a web request's limits (settings DATABASE_WAIT_LIMIT and DATABASE_CHECK_LIMIT):
    around the middleware and view (elgrande_site.middleware.DatabaseUnavailable), and around what
    a request's thread does after them (elgrande_site.http_handler `_settled`)."""
    from django.conf import settings

    return bounded(settings.DATABASE_WAIT_LIMIT, settings.DATABASE_CHECK_LIMIT)


def bounded_calls(function):
    """`function`, its waits on PostgreSQL bounded as a request's (`bounded_as_a_request`): for what
    the web process does on its pool's connections outside a request, in threads of its own (a
    socket's session, user and game looked up, a reader's or the spectators' view rendered, an
    embedded background job). Unbounded, a pooled connection gone silent for good (a relay, a
    proxy, a firewall that lost it) held such a thread for good, and every call queued behind it:
    after a one-second silence of the database no game page of the process ever connected its
    socket again (channels runs every socket's look-ups in one thread), though every request was
    served (tests/test_socket_database_faults.py)."""

    @functools.wraps(function)
    def call(*args, **kwargs):
        with bounded_as_a_request():
            return function(*args, **kwargs)

    return call


@contextmanager
def watched(fd, limit):
    """Within it, the socket `fd` (a connection's) is shut down on this side once `limit` seconds
    have passed: whatever waits on it then fails at once as a lost connection. For a plain
    connection, which has no bounded waits (a Celery worker's: elgrande_site/celery.py)."""
    watch = _watchdog.watch(fd, limit)
    try:
        yield watch
    finally:
        _watchdog.forget(watch)


class BoundedConnection(psycopg.Connection):
    """The pool's connections (its connection_class): their waits are bounded inside a request."""

    def wait(self, *args, **kwargs):
        limits = getattr(_request, "limits", None)
        if limits is None:
            return super().wait(*args, **kwargs)
        limit = limits[1] if getattr(_request, "checking", False) else limits[0]
        watch = _watchdog.watch(self.pgconn.socket, limit)
        try:
            return super().wait(*args, **kwargs)
        except psycopg.OperationalError as error:
            if watch.cut:
                raise psycopg.OperationalError(
                    f"no answer from the database within {limit:g} s: the connection was cut"
                ) from error
            raise
        finally:
            _watchdog.forget(watch)

    def execute(self, query, *args, **kwargs):
        # An empty statement on the connection itself, not a cursor, is the pool's check on
        # checkout (psycopg_pool's ConnectionPool.check_connection): it gets the shorter bound,
        # so that a dead connection is found, and replaced, quickly.
        if query != "":
            return super().execute(query, *args, **kwargs)
        _request.checking = True
        try:
            return super().execute(query, *args, **kwargs)
        finally:
            _request.checking = False


class _Watch:
    __slots__ = ("fd", "until", "cut")

    def __init__(self, fd, until):
        self.fd, self.until, self.cut = fd, until, False


class _Watchdog:
    """One daemon thread for the whole process, which cuts the connections whose wait is over time.
    A wait's file descriptor stays open while it is watched (its thread is inside the wait), so it
    is duplicated only when cut."""

    def __init__(self):
        self._lock = threading.Lock()
        self._watches = set()
        self._thread = None

    def watch(self, fd, limit):
        watch = _Watch(fd, time.monotonic() + limit)
        with self._lock:
            self._watches.add(watch)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="database-watchdog", daemon=True)
                self._thread.start()
        return watch

    def forget(self, watch):
        with self._lock:
            self._watches.discard(watch)

    def _run(self):
        while True:
            time.sleep(TICK)
            now = time.monotonic()
            with self._lock:
                for watch in [watch for watch in self._watches if watch.until <= now]:
                    self._watches.discard(watch)
                    watch.cut = True
                    _shut_down(watch.fd)


def _shut_down(fd):
    """Shut the socket down for both ends of this process: the wait on it sees the connection
    closed at once."""
    try:
        with socket.socket(fileno=os.dup(fd)) as duplicate:
            duplicate.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


_watchdog = _Watchdog()
