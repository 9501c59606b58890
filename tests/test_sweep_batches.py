"""The sweep in batches: each game of a batch claimed only at the version listed and committed in a
transaction of its own, and the notices of a batch sent together after its games are committed."""

import random
import threading
import time
from datetime import timedelta

import pytest
from django.db import OperationalError, connection
from django.utils import timezone

from games import broadcast, deadlines
from games.engine import random_move
from games.infra import rows
from games.models import Game, MailToDecide, Move, Seat
from games.play import expiry, lifecycle, moving
from tests.support.helpers import snapshot, state_of, user_at
from tests.support.sockets import listen

# Real commits: the notices go out after them.
pytestmark = pytest.mark.django_db(transaction=True)


def overdue(game):
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    game.refresh_from_db()
    return game


def games_of(make_user, count):
    """`count` started games of the same three players."""
    users = [make_user() for _ in range(3)]
    games = []
    for _ in range(count):
        game = lifecycle.create_game(users[0], num_players=3)
        for user in users[1:]:
            lifecycle.join_game(game, user=user)
        game.refresh_from_db()
        games.append(overdue(game))
    return users, games


def test_a_sweep_tells_each_game_page_its_new_version_and_each_lobby_once(make_user):
    users, games = games_of(make_user, 3)
    pages = [listen(broadcast.game_group(game.pk)) for game in games]
    lobby = listen(broadcast.user_group(users[1].pk))
    assert deadlines.sweep() == 3
    for game, page in zip(games, pages):
        game.refresh_from_db()
        assert page() == [{"type": "game.version", "version": game.version}]
    assert lobby() == [{"type": "lobby.changed"}]


def test_the_notices_of_the_batches_committed_before_a_lost_connection_are_still_sent(make_user, monkeypatch):
    _, (first, second) = games_of(make_user, 2)
    monkeypatch.setattr(deadlines, "SWEEP_BATCH", 1)
    page = listen(broadcast.game_group(first.pk))
    real = expiry.play_overdue_games

    def expire(pairs, announcements):
        if pairs[0][0] == second.pk:
            raise OperationalError("server closed the connection unexpectedly")
        return real(pairs, announcements=announcements)

    monkeypatch.setattr(expiry, "play_overdue_games", expire)
    with pytest.raises(OperationalError):
        deadlines.sweep()
    first.refresh_from_db()
    assert page() == [{"type": "game.version", "version": first.version}]


def test_notices_that_cannot_be_sent_are_logged_and_the_games_still_move_on(make_user, monkeypatch, caplog):
    _, games = games_of(make_user, 2)

    def unreachable(notices):
        raise ConnectionError("redis is away")

    # Whichever way they would go (from this thread to Redis, or on an event loop).
    monkeypatch.setattr(broadcast, "_send", unreachable)
    assert deadlines.sweep() == 2
    assert "notices could not be sent" in caplog.text
    assert all(Game.objects.get(pk=game.pk).version > game.version for game in games)


def test_a_batch_moves_only_the_games_still_at_the_version_listed(start_game):
    moved_on, waiting = overdue(start_game(3)), overdue(start_game(3))
    seat = moved_on.to_act[0]
    # The seat already let one deadline pass: a second one in a row would put it on autopilot.
    Seat.objects.filter(game=moved_on, index=seat).update(timeouts=1)
    listed = list(deadlines.overdue_games(timezone.now()))
    # Then its player moves himself (his count of timeouts starts again), and the next decision
    # is overdue too before the sweep's batch comes to the game.
    moving.submit_move(
        moved_on, user=user_at(moved_on, seat), move={"type": "bid", "card": 5}, expected_version=moved_on.version
    )
    moved_on = overdue(moved_on)
    assert expiry.play_overdue_games(listed) == 1
    assert Game.objects.get(pk=moved_on.pk).version == moved_on.version
    assert Game.objects.get(pk=waiting.pk).version > waiting.version
    seats = {seat.index: seat for seat in Seat.objects.filter(game=moved_on)}
    assert seats[seat].timeouts == 0 and not seats[seat].autopilot
    # At its new version the next sweep plays for the seats late there.
    assert deadlines.sweep() == 1
    seats = {seat.index: seat for seat in Seat.objects.filter(game=moved_on)}
    assert all(seats[index].timeouts == 1 for index in moved_on.to_act)


def test_a_game_the_database_refuses_rolls_back_only_its_own_transaction(make_user, caplog):
    _, (first, broken, last) = games_of(make_user, 3)
    pages = {game.pk: listen(broadcast.game_group(game.pk)) for game in (first, broken, last)}
    # Where the broken game's first default move goes, a row is already stored.
    Move.objects.create(game=broken, seat=broken.seats.first(), version=broken.version + 1, move={"type": "x"})
    before = snapshot(broken)
    assert deadlines.sweep() == 2
    assert f"deadline of game {broken.pk} at version {broken.version} failed" in caplog.text
    assert snapshot(broken) == before
    assert pages[broken.pk]() == []
    for game in (first, last):
        moved_on = Game.objects.get(pk=game.pk)
        assert moved_on.version > game.version
        assert pages[game.pk]() == [{"type": "game.version", "version": moved_on.version}]


def test_a_connection_lost_in_the_second_games_transaction_leaves_the_first_committed(make_user, monkeypatch):
    _, (first, second, third) = games_of(make_user, 3)
    page = listen(broadcast.game_group(first.pk))
    if connection.vendor == "postgresql":
        # The second game's transaction, sent after the first's, ends the server's process.
        real_sql = rows._claim_and_store_sql

        def claim_and_store_sql(db, game, *args):
            if game.pk == second.pk:
                return "SELECT pg_terminate_backend(pg_backend_pid())", []
            return real_sql(db, game, *args)

        monkeypatch.setattr(rows, "_claim_and_store_sql", claim_and_store_sql)
    else:
        # The second game's moves, stored after its claim in its transaction, meet a lost connection.
        real_insert = rows.insert

        def insert(moves):
            if moves and moves[0].game_id == second.pk:
                raise OperationalError("server closed the connection unexpectedly")
            return real_insert(moves)

        monkeypatch.setattr(rows, "insert", insert)
    with pytest.raises(OperationalError):
        deadlines.sweep()
    monkeypatch.undo()
    connection.close()
    moved_on = Game.objects.get(pk=first.pk)
    assert moved_on.version > first.version, "the first game's commit stays"
    assert Move.objects.filter(game=first, automatic=True).exists()
    assert page() == [{"type": "game.version", "version": moved_on.version}]
    for game in (second, third):
        assert Game.objects.get(pk=game.pk).version == game.version
        assert not Move.objects.filter(game=game).exists()
    assert deadlines.sweep() == 2, "the next sweep moves the others on"


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the transactions sent together need PostgreSQL")
def test_a_game_committed_before_the_connection_was_lost_but_never_answered_is_told_all_the_same(
    make_user, monkeypatch
):
    """The server may commit a transaction of the pipeline and lose the connection before its
    answer reaches the sweep: the sweep looks again on a new connection, and tells that game's
    pages and decides its mails; the game after it, never run, is left for the next sweep."""
    _, (first, second) = games_of(make_user, 2)
    page = listen(broadcast.game_group(first.pk))
    real_sql, real_each = rows._claim_and_store_sql, rows.claim_and_store_each

    def claim_and_store_sql(db, game, *args):
        if game.pk == second.pk:
            return "SELECT pg_terminate_backend(pg_backend_pid())", []
        return real_sql(db, game, *args)

    def claim_and_store_each(claims, done):
        # The first game's answer is lost with the connection, whether or not it came in time.
        return real_each(claims, lambda index, outcome: done(index, rows.UNKNOWN if index == 0 else outcome))

    monkeypatch.setattr(rows, "_claim_and_store_sql", claim_and_store_sql)
    monkeypatch.setattr(rows, "claim_and_store_each", claim_and_store_each)
    with pytest.raises(OperationalError):
        deadlines.sweep()
    monkeypatch.undo()
    moved_on = Game.objects.get(pk=first.pk)
    assert moved_on.version > first.version
    assert page() == [{"type": "game.version", "version": moved_on.version}]
    # Its mails were decided then and there: no row is left for the sweep to decide again.
    assert not MailToDecide.objects.filter(game=first).exists()
    assert Game.objects.get(pk=second.pk).version == second.version
    assert deadlines.sweep() == 1


def test_a_player_moves_in_a_swept_game_while_the_sweep_is_still_busy_with_the_others(make_user, monkeypatch):
    _, (first, second, third) = games_of(make_user, 3)
    slow = 3.0
    if connection.vendor == "postgresql":
        # The third game's transaction takes its time on the server, the batch's others sent with it.
        real_sql = rows._claim_and_store_sql

        def claim_and_store_sql(db, game, *args):
            sql, params = real_sql(db, game, *args)
            if game.pk == third.pk:
                sql = sql.replace("WITH claimed AS", f"WITH slept AS (SELECT pg_sleep({slow})), claimed AS", 1)
                sql = sql.replace(" SELECT count(*) FROM claimed", " SELECT count(*) FROM claimed, slept")
            return sql, params

        monkeypatch.setattr(rows, "_claim_and_store_sql", claim_and_store_sql)
    else:
        # SQLite writes one transaction at a time: the sweep takes its time between two games.
        real_store = expiry._store_expired

        def store_expired(game, *args):
            if game.pk == third.pk:
                time.sleep(slow)
            return real_store(game, *args)

        monkeypatch.setattr(expiry, "_store_expired", store_expired)
    player = {}

    def move_in_the_first_game():
        try:
            end = time.monotonic() + 10
            while not Game.objects.filter(pk=first.pk, version__gt=first.version).exists():
                assert time.monotonic() < end, "the first game was not committed on its own"
                time.sleep(0.02)
            game = Game.objects.get(pk=first.pk)
            seat = game.to_act[0]
            move = random_move(state_of(game), seat, random.Random(1))
            started = time.monotonic()
            moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
            player["took"], player["done"] = time.monotonic() - started, time.monotonic()
        except Exception as error:  # reported by the test's thread
            player["error"] = error
        finally:
            connection.close()

    thread = threading.Thread(target=move_in_the_first_game)
    thread.start()
    try:
        started = time.monotonic()
        assert deadlines.sweep() == 3
        swept = time.monotonic()
    finally:
        thread.join(30)
    assert "error" not in player, player
    assert swept - started >= slow
    assert player["done"] < swept, "the player's move waited for the sweep's other games"
    assert player["took"] < slow / 2
    assert Move.objects.filter(game=first, automatic=False).count() == 1
