"""How much work SQLite does for a call: its virtual machine's steps, counted in tens through the
connection's progress handler. A plan that grows with rows it does not need shows here, however
quick the machine (tests/test_lobby.py, tests/test_sweep_checks.py)."""

from django.db import connection


def sqlite_steps(call):
    """(what `call()` returned, SQLite's steps in tens while it ran) on the default connection."""
    connection.ensure_connection()
    counted = []
    connection.connection.set_progress_handler(lambda: counted.append(1), 10)
    try:
        result = call()
    finally:
        connection.connection.set_progress_handler(None, 10)
    return result, len(counted)
