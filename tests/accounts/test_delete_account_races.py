"""Deleting an account while someone joins one of its games, or the account joins a game.

Two threads with connections of their own, on PostgreSQL (CI), where the row locks are what is
tested: one transaction is held at a chosen point (an Event), and the other is let go on only
once it runs, finished or waiting for a lock (pg_stat_activity says which), so each interleaving
happens every time. On SQLite every write transaction waits for the one before it
(the embedded settings), so there are no interleavings to test; the deleted account's refusal
itself is tested in test_delete_account.py.
"""

import threading
import time

import pytest
from django.db import connection

from accounts.deletion import AccountInUse, delete_account
from accounts.models import User
from games.models import Game
from games.play import account_deletion, lifecycle
from games.play.errors import NotAllowed

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks between transactions need PostgreSQL"),
]

PATIENCE = 60


class Run(threading.Thread):
    """`function()` in a thread of its own; `outcome` is what it returned or raised, `pid` the
    PostgreSQL backend of its connection."""

    def __init__(self, function):
        super().__init__()
        self.function = function
        self.outcome = None
        self.pid = None
        self.connected = threading.Event()

    def run(self):
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                self.pid = cursor.fetchone()[0]
            self.connected.set()
            self.outcome = self.function()
        except Exception as error:  # the outcome is what the test inspects
            self.outcome = error
        finally:
            self.connected.set()
            connection.close()


def held_at(monkeypatch, module, name):
    """Hold the first call of module.name until `go` is set; `reached` is set when it is called."""
    reached, go = threading.Event(), threading.Event()
    original = getattr(module, name)
    calls = []

    def held(*args, **kwargs):
        if not calls:
            calls.append(True)
            reached.set()
            go.wait(PATIENCE)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, held)
    return reached, go


def until_stuck_or_done(run):
    """Wait until `run` has finished or its transaction waits for a row lock."""
    assert run.connected.wait(PATIENCE)
    for _attempt in range(PATIENCE * 20):
        if not run.is_alive():
            return
        with connection.cursor() as cursor:
            cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [run.pid])
            row = cursor.fetchone()
        if row and row[0] == "Lock":
            return
        time.sleep(0.05)
    raise AssertionError("the second transaction neither finished nor waited for a lock")


def interleave(first, reached, go, second):
    """Run `first` until it reaches its held point, then `second` until it finishes or waits for
    a lock, then let `first` go on; return both outcomes."""
    one = Run(first)
    one.start()
    assert reached.wait(PATIENCE)
    two = Run(second)
    two.start()
    until_stuck_or_done(two)
    go.set()
    one.join(PATIENCE)
    two.join(PATIENCE)
    assert not one.is_alive() and not two.is_alive()
    return one.outcome, two.outcome


def test_the_accounts_own_join_during_its_deletion_is_refused(make_user, monkeypatch):
    creator, other, leaving = make_user(), make_user(), make_user()
    game = lifecycle.create_game(creator, num_players=3)
    lifecycle.join_game(game, user=other)
    reached, go = held_at(monkeypatch, account_deletion, "running_games")

    deleted, joined = interleave(
        lambda: delete_account(leaving), reached, go, lambda: lifecycle.join_game(game, user=leaving)
    )

    assert isinstance(deleted, User) and deleted.deleted_at is not None
    assert isinstance(joined, NotAllowed), joined
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN
    assert not game.seats.filter(user=leaving).exists()


def test_a_join_of_the_last_seat_waits_for_the_deletion_that_leaves_the_game(make_user, monkeypatch):
    creator, leaving, joining = make_user(), make_user(), make_user()
    game = lifecycle.create_game(creator, num_players=3)
    lifecycle.join_game(game, user=leaving)
    # Held once every lock of the deletion is taken: when it leaves its games.
    reached, go = held_at(monkeypatch, lifecycle, "leave_game")

    deleted, joined = interleave(
        lambda: delete_account(leaving), reached, go, lambda: lifecycle.join_game(game, user=joining)
    )

    assert isinstance(deleted, User) and deleted.deleted_at is not None
    assert isinstance(joined, Game), joined
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN
    assert sorted(game.seats.values_list("user_id", flat=True)) == sorted([creator.pk, joining.pk])


def test_a_game_filled_while_the_deletion_begins_refuses_it_cleanly(make_user, monkeypatch):
    creator, leaving, joining = make_user(), make_user(), make_user()
    game = lifecycle.create_game(creator, num_players=3)
    lifecycle.join_game(game, user=leaving)
    # The deletion holds the account, not yet its games; the last seat is taken meanwhile.
    reached, go = held_at(monkeypatch, account_deletion, "running_games")

    deleted, joined = interleave(
        lambda: delete_account(leaving), reached, go, lambda: lifecycle.join_game(game, user=joining)
    )

    assert isinstance(joined, Game), joined
    assert isinstance(deleted, AccountInUse), deleted
    assert f"game {game.pk}" in str(deleted)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert User.objects.get(pk=leaving.pk).deleted_at is None


def test_a_deletion_waits_for_a_join_that_starts_its_game(make_user, monkeypatch):
    creator, leaving, joining = make_user(), make_user(), make_user()
    game = lifecycle.create_game(creator, num_players=3)
    lifecycle.join_game(game, user=leaving)
    # The join holds the game, about to start it.
    reached, go = held_at(monkeypatch, lifecycle, "_start")

    joined, deleted = interleave(
        lambda: lifecycle.join_game(game, user=joining), reached, go, lambda: delete_account(leaving)
    )

    assert isinstance(joined, Game), joined
    assert isinstance(deleted, AccountInUse), deleted
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert User.objects.get(pk=leaving.pk).deleted_at is None
