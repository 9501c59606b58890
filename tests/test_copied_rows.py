"""tests/support/copied_rows.py: a build asked for again is copied row for row, ids and last ids
included, only into a database that stands where the first build's stood."""

import uuid
from contextlib import contextmanager

import pytest
from django.db import connection, transaction

from tests.support import copied_rows
from tests.support.copied_rows import made_once
from tests.support.helpers import play

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "sqlite", reason="copies are made on SQLite only"),
]


@contextmanager
def rolled_back():
    """A block whose rows are gone after it, as a test's are after the test."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def everything():
    return (
        {table: sorted(copied_rows._rows(table)[1], key=repr) for table in copied_rows._tables()},
        copied_rows._sequences(),
    )


def test_a_build_asked_again_is_copied_row_for_row_and_a_changed_database_builds_afresh(start_game, make_user):
    builds = []

    def build():
        builds.append(1)
        game = start_game(3, seed=3, short_game=True)
        play(game, moves=25)
        return game

    key = ("copied rows test", uuid.uuid4().hex)
    with rolled_back():
        built = made_once(key, build)
        after_the_build = everything()
    assert everything() != after_the_build
    with rolled_back():
        copied = made_once(key, build)
        assert everything() == after_the_build
        assert (copied.pk, copied.version, copied.state) == (built.pk, built.version, built.state)
    assert builds == [1]
    with rolled_back():
        make_user("someone")
        made_once(key, build)
    assert builds == [1, 1]


def test_a_build_that_changes_a_row_it_found_is_never_copied(make_user):
    builds = []
    user = make_user()

    def build():
        builds.append(1)
        user.email = f"{len(builds)}@example.org"
        user.save()
        return make_user()

    key = ("copied rows test", uuid.uuid4().hex)
    for _ in range(2):
        with rolled_back():
            made_once(key, build)
    assert builds == [1, 1]
