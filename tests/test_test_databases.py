"""The test session's own end on PostgreSQL (tests/support/test_databases.py): a session some
thread left open on a database about to be dropped is ended and named, and the drop goes through."""

import io
import uuid

import pytest
from django.db import connection, connections

from tests.support.test_databases import end_leftover_sessions, end_sessions_on

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="sessions to end need a PostgreSQL DATABASE_URL"),
]


@pytest.fixture
def scratch_database():
    name = f"test_scratch_{uuid.uuid4().hex[:12]}"
    with connection._nodb_cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')
    yield name
    with connection._nodb_cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def held_session(name):
    import psycopg

    settings = connection.settings_dict
    held = psycopg.connect(
        host=settings["HOST"] or None, port=settings["PORT"] or None, user=settings["USER"] or None,
        password=settings["PASSWORD"] or None, dbname=name, application_name="left-open-by-a-test",
    )
    held.execute("SELECT 1")
    return held


def test_a_session_left_open_is_ended_and_named_and_the_database_can_be_dropped(scratch_database):
    import psycopg

    held = held_session(scratch_database)
    said = io.StringIO()
    with connection._nodb_cursor() as cursor:
        # What made PostgreSQL refuse the drop ("being accessed by other users"), looked at
        # rather than tried: a refused drop first waits 5 s for the session to go.
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [scratch_database])
        assert cursor.fetchone()[0] == 1
        assert end_sessions_on(scratch_database, cursor, out=said) == 1
        cursor.execute(f'DROP DATABASE "{scratch_database}"')
        cursor.execute("SELECT count(*) FROM pg_database WHERE datname = %s", [scratch_database])
        assert cursor.fetchone()[0] == 0
    assert "left-open-by-a-test" in said.getvalue() and "SELECT 1" in said.getvalue()
    with pytest.raises(psycopg.OperationalError):
        held.execute("SELECT 1")
    held.close()


def test_nothing_is_said_when_no_session_is_left(scratch_database):
    said = io.StringIO()
    with connection._nodb_cursor() as cursor:
        assert end_sessions_on(scratch_database, cursor, out=said) == 0
    assert said.getvalue() == ""


def test_a_database_pytest_django_did_not_make_for_the_run_is_left_alone():
    """An alias still named as before the setup (no test of the run needed it) names a real
    database: a developer's server or the site's own may hold sessions there."""
    held = held_session(connection.settings_dict["NAME"])
    said = io.StringIO()
    end_leftover_sessions(said, names_before={alias: connections[alias].settings_dict["NAME"] for alias in connections})
    held.execute("SELECT 1")
    held.close()
    assert said.getvalue() == ""
