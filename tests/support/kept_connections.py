"""The connections that the threads of games/live/own_views.py keep, made and looked at: for the
tests of their giving back, in the test process and in a process that exits."""

import threading

from django.db import connection

from games.live import own_views


def closed(raw):
    """Whether a connection of the database's driver is closed: psycopg's says so, sqlite3's
    refuses a cursor."""
    if hasattr(raw, "closed"):
        return bool(raw.closed)
    try:
        raw.cursor()
    except Exception:
        return True
    return False


def kept_in_every_thread():
    """Each thread of own_views made to keep a connection, as after a render or a seen mark: the
    driver's connections they keep, none of them closed."""
    held = []

    def take():
        connection.ensure_connection()
        held.append(connection.connection)

    kept = own_views._on_kept_connection(take)
    # One at a time, so that none finds another waiting for the pool (and gives its connection
    # back for it); each rendering thread held at the barrier, so that the other takes a call.
    one_at_a_time = threading.Lock()
    barrier = threading.Barrier(own_views.RENDERING_THREADS, timeout=10)

    def keep():
        with one_at_a_time:
            kept()

    calls = [own_views._RENDERING.submit(lambda: (keep(), barrier.wait())) for _ in range(own_views.RENDERING_THREADS)]
    calls.append(own_views._MARKING.submit(keep))
    for done in calls:
        done.result(timeout=30)
    assert len(own_views._holding) == own_views.RENDERING_THREADS + 1
    assert not any(closed(raw) for raw in held)
    return held
