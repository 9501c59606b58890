"""Two games of the same player finishing at once, on PostgreSQL (where transactions really run
side by side; SQLite's immediate transactions run them one after the other): no rating update
is lost, and the order of rating stays the order of finishing that the rebuild follows."""

import random
import threading

import pytest
from django.apps import apps
from django.db import connection

from games.engine import apply_move, random_move, to_act
from games.play import after_save, moving
from ratings import rating
from ratings.models import Ladder, Rating, RatingChange
from tests.support.helpers import state_of
from tests.support.rated_games import open_rated

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def postgresql_only(db):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite runs write transactions one after the other")


def up_to_the_last_move(game):
    """Play `game` until one move would end it; return that move's (user, move, version)."""
    rng = random.Random(game.seed)
    users = {seat.index: seat.user for seat in game.seats.all()}
    while True:
        state = state_of(game)
        seat = to_act(state)[0]
        move = random_move(state, seat, rng)
        if apply_move(state, seat, move).is_over:
            return users[seat], move, game.version
        moving.submit_move(game, user=users[seat], move=move, expected_version=game.version)


def test_a_game_that_began_finishing_first_but_committed_last_is_rated_after_the_other(make_user, monkeypatch):
    shared = make_user()
    first, second = open_rated([shared, make_user()]), open_rated([shared, make_user(), make_user()])
    last_moves = {game.pk: up_to_the_last_move(game) for game in (first, second)}
    first_waits, second_done = threading.Event(), threading.Event()

    def held_back(game, seats=None):
        """The first game has its finishing time; it waits while the second finishes whole."""
        if game.pk == first.pk:
            first_waits.set()
            assert second_done.wait(timeout=30)
        return rating.rate_finished_game(game, seats)

    monkeypatch.setattr(after_save, "rate_finished_game", held_back)
    failures = []

    def finish_first():
        try:
            user, move, version = last_moves[first.pk]
            moving.submit_move(first, user=user, move=move, expected_version=version)
        except Exception as error:  # the test reports it below
            failures.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=finish_first)
    thread.start()
    assert first_waits.wait(timeout=30)
    user, move, version = last_moves[second.pk]
    moving.submit_move(second, user=user, move=move, expected_version=version)
    second_done.set()
    thread.join(timeout=60)
    assert not failures

    first.refresh_from_db()
    second.refresh_from_db()
    assert first.finished_at > second.finished_at
    for ladder in (Ladder.ALL,):
        earlier = RatingChange.objects.get(game=second, user=shared, ladder=ladder)
        later = RatingChange.objects.get(game=first, user=shared, ladder=ladder)
        assert (later.mu_before, later.sigma_before) == (earlier.mu_after, earlier.sigma_after)
    assert Rating.objects.get(user=shared, ladder=Ladder.ALL).games == 2
    assert rating.differences(apps) == []


def test_games_finishing_at_once_lose_no_update(make_user):
    shared = [make_user(), make_user()]
    games = [open_rated([*shared, make_user()]) for _ in range(3)]
    last_moves = [up_to_the_last_move(game) for game in games]
    barrier = threading.Barrier(len(games))
    failures = []

    def finish(game, user, move, version):
        try:
            barrier.wait()
            moving.submit_move(game, user=user, move=move, expected_version=version)
        except Exception as error:  # the test reports it below
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=(game, *last)) for game, last in zip(games, last_moves)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures
    for user in shared:
        for ladder in (Ladder.ALL, Ladder.THREE):
            assert Rating.objects.get(user=user, ladder=ladder).games == 3
    assert rating.differences(apps) == []
