"""Rows made once per test process and copied into the later tests that ask for the same thing.

A fixture that plays a whole game through the services (`tests/replays/conftest.py: finished_game`)
made the same rows in every test that named it: the same seed, the same users, the same moves. Here
the first test to ask builds them as before, and the rows its build added are kept; a later test
whose database stands where the first one's stood (the same rows in every table and the same
last ids, as after each test's rollback) gets those rows inserted as they were,
which is what its own build would have made. Otherwise (rows that test made first, ids moved on by
a transactional test) it builds afresh. A build that changed or deleted a row it found is never
copied, nor is one in a transactional test. SQLite only: on PostgreSQL the sequences are not
rolled back with the test, so the ids would not be the build's; there every test builds.

What is not in the database is not copied: the caches start empty in each test anyway (their keys
get a prefix per test, tests/conftest.py), and the work a build queued (mails, computer moves) is
not queued again, so a test that reads those lists must not take its game from here."""

from collections import Counter

from django.db import connection

_kept = {}


def _tables():
    with connection.cursor() as cursor:
        return [name for name in connection.introspection.table_names(cursor) if not name.startswith("sqlite_")]


def _rows(table):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
        columns = [column[0] for column in cursor.description]
        return columns, cursor.fetchall()


def _sequences():
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, seq FROM sqlite_sequence")
        return dict(cursor.fetchall())


def made_once(key, build):
    """`build()`'s model instance (or list of them), its rows made by `build` the first time `key`
    is asked in this process and copied afterwards when the database stands where it stood then
    (see above)."""
    if connection.vendor != "sqlite" or not connection.in_atomic_block:
        # Outside the test's transaction (a transactional test) the copy's inserts would be checked
        # one by one against rows not yet inserted, and the build's after-commit work ran: build.
        return build()
    kept = _kept.get(key)
    if kept is not None:
        found, sequences, added, after, made = kept
        tables = _tables()
        if set(tables) == set(found) and _sequences() == sequences and all(
            Counter(_rows(table)[1]) == found[table] for table in tables
        ):
            with connection.cursor() as cursor:
                for table, (columns, rows) in added.items():
                    names = ", ".join(map(connection.ops.quote_name, columns))
                    marks = ", ".join(["%s"] * len(columns))
                    cursor.executemany(
                        f"INSERT INTO {connection.ops.quote_name(table)} ({names}) VALUES ({marks})", rows
                    )
                # The last ids as the build left them (a row it made and deleted moved them too).
                cursor.execute("DELETE FROM sqlite_sequence")
                cursor.executemany("INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", list(after.items()))
            if isinstance(made, list):
                return [model._default_manager.get(pk=pk) for model, pk in made]
            model, pk = made
            return model._default_manager.get(pk=pk)
        return build()

    tables = _tables()
    found = {table: _rows(table) for table in tables}
    sequences = _sequences()
    made = build()
    added = {}
    for table in tables:
        columns, rows = _rows(table)
        old = Counter(found[table][1])
        new = Counter(rows) - old
        if columns != found[table][0] or old - Counter(rows):
            return made  # a row it found was changed or deleted: not a build to copy
        if new:
            added[table] = (columns, list(new.elements()))
    _kept[key] = (
        {table: Counter(rows) for table, (_, rows) in found.items()}, sequences, added, _sequences(),
        [(type(one), one.pk) for one in made] if isinstance(made, list) else (type(made), made.pk),
    )
    return made
