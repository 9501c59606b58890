"""A game is rated exactly once, whichever way it finishes: a player's move, the deadline sweep,
the autopilot; saving or sweeping it again changes nothing."""

import random
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import deadlines
from games.engine import random_move, to_act
from games.models import Game
from games.play import expiry, moving
from games.play.errors import Conflict
from ratings.models import Ladder, Rating, RatingChange
from ratings.rating import rate_finished_game
from tests.support.helpers import play, state_of, user_at
from tests.support.rated_games import open_rated, play_rated, stored

pytestmark = pytest.mark.django_db


def sweep_until_finished(game):
    """Let every deadline pass, one sweep after the other, until the game ends: the seats go on
    autopilot after two timeouts, and the site plays the game out."""
    for _ in range(50):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            return game
        Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        deadlines.sweep()
    raise AssertionError("the sweeps did not finish the game")


def test_saving_or_sweeping_a_finished_game_again_rates_nothing_more(make_user):
    users = [make_user() for _ in range(3)]
    game = play_rated(users)
    before = stored(Rating), stored(RatingChange)
    assert RatingChange.objects.filter(game=game).count() == 6
    rate_finished_game(game)
    assert not expiry.apply_default_moves(game.pk, version=game.version)
    deadlines.sweep(timezone.now() + timedelta(days=30))
    with pytest.raises(Conflict):
        moving.submit_move(game, user=users[0], move={"type": "bid", "card": 1}, expected_version=game.version)
    assert (stored(Rating), stored(RatingChange)) == before


def test_the_database_refuses_a_second_change_for_one_game_player_and_ladder(make_user):
    users = [make_user() for _ in range(2)]
    game = play_rated(users)
    change = RatingChange.objects.filter(game=game, ladder=Ladder.ALL).first()
    change.pk = None
    with pytest.raises(IntegrityError), transaction.atomic():
        change.save()


def test_a_game_the_deadline_sweep_finishes_is_rated_once(make_user):
    users = [make_user() for _ in range(3)]
    game = sweep_until_finished(open_rated(users))
    assert all(seat.autopilot for seat in game.seats.all())
    changes = RatingChange.objects.filter(game=game)
    assert changes.count() == 6
    assert {change.place for change in changes} == {place for place, _, _ in game.standings}
    assert all(change.finished_at == game.finished_at for change in changes)
    assert set(Rating.objects.values_list("games", flat=True)) == {1}
    before = stored(Rating), stored(RatingChange)
    deadlines.sweep(timezone.now() + timedelta(days=30))
    assert (stored(Rating), stored(RatingChange)) == before


def test_a_move_that_hands_over_to_the_autopilot_rates_the_game_it_finishes(make_user):
    """The others are on autopilot: one move of the last player plays the game out, and that
    move's transaction rates it."""
    users = [make_user() for _ in range(3)]
    game = open_rated(users)
    rng = random.Random(game.seed)
    state = play(game, until=lambda state: 0 in to_act(state))
    game.seats.exclude(index=0).update(autopilot=True)
    while not state.is_over:
        moving.submit_move(
            game, user=user_at(game, 0), move=random_move(state, 0, rng), expected_version=game.version
        )
        state = state_of(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert RatingChange.objects.filter(game=game).count() == 6
    assert Rating.objects.get(user=user_at(game, 1), ladder=Ladder.ALL).games == 1


def test_a_game_finishing_after_a_later_rated_game_of_a_player_is_rated_after_it(make_user):
    """Another game of a player committed with a later finishing time (its transaction began
    later but ended first): this game's finishing time moves just after it, so that the order of
    finishing stays the order of rating, the one the rebuild follows."""
    users = [make_user() for _ in range(2)]
    first = play_rated(users)
    ahead = first.finished_at + timedelta(hours=1)
    Rating.objects.filter(user=users[1]).update(last_game_at=ahead)
    second = play_rated(users)
    assert second.finished_at == ahead + timedelta(microseconds=1)
    assert set(RatingChange.objects.filter(game=second).values_list("finished_at", flat=True)) == {second.finished_at}
