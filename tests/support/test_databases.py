"""The end of a test session on PostgreSQL: sessions still open on a test database when it is to
be dropped, ended from the server's side (tests/conftest.py `django_db_setup`)."""

import sys
import time

from django.db import connections

# How long the backends told to end are waited for before the drop is left to try anyway.
END_SECONDS = 10
# The sessions of clients on a database (its one parameter) other than the one asking: not the
# server's own workers (an autovacuum worker), which DROP DATABASE deals with itself.
OTHER_CLIENTS = (
    "FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
)


def end_sessions_on(name, cursor, out=sys.stderr):
    """End every session of PostgreSQL on database `name` but `cursor`'s own, naming each on
    `out` (its application, state and last statement: what left it open), and wait until they
    are gone. Returns how many there were."""
    cursor.execute(f"SELECT pid, application_name, state, left(query, 160) {OTHER_CLIENTS}", [name])
    left = cursor.fetchall()
    for pid, application, state, query in left:
        print(f"\nA session left open on {name} at the end of the tests, ended: pid {pid}, "
              f"application {application!r}, {state}, last statement {query!r}", file=out)
    if not left:
        return 0
    cursor.execute(f"SELECT pg_terminate_backend(pid) {OTHER_CLIENTS}", [name])
    deadline = time.monotonic() + END_SECONDS
    while time.monotonic() < deadline:
        cursor.execute(f"SELECT count(*) {OTHER_CLIENTS}", [name])
        if cursor.fetchone()[0] == 0:
            break
        time.sleep(0.05)
    return len(left)


class Said:
    """A file's `write` that goes to pytest's terminal, past the capture of the test's output (an
    xdist worker has no terminal: its controller shows none of it)."""

    def __init__(self, config):
        self.reporter = config.pluginmanager.get_plugin("terminalreporter")
        self.capture = config.pluginmanager.get_plugin("capturemanager")

    def write(self, text):
        if self.reporter is None:
            return
        if self.capture is None:  # -p no:capture: nothing to get past
            self.reporter.write(text)
            self.reporter.flush()
            return
        with self.capture.global_and_fixture_disabled():
            self.reporter.write(text)
            self.reporter.flush()


def end_leftover_sessions(out=sys.stderr, *, names_before):
    """Before pytest-django drops the test databases: each PostgreSQL one's connection of this
    thread closed and its pool too (as Django's drop does), then whatever session some other
    thread still holds on it (a socket consumer's database thread, a live server's request
    thread) ended, which would otherwise make PostgreSQL refuse the drop ("being accessed by
    other users") and leave the database behind with a warning. Only an alias whose NAME is no
    longer its `names_before` one: a test database pytest-django set up in its place. Another
    still names the real database (the site's, a developer's server), whose sessions are not ours."""
    for alias in connections:
        connection = connections[alias]
        if connection.vendor != "postgresql" or connection.settings_dict["NAME"] == names_before.get(alias):
            continue
        connection.close()
        connection.close_pool()
        with connection._nodb_cursor() as cursor:
            end_sessions_on(connection.settings_dict["NAME"], cursor, out)
