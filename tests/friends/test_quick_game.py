"""The lobby's open games with their creators' ratings, and "quick game": the oldest open public game
with the chosen options, or a new one with them; never a seat too many when players click at once."""

import re

import pytest
from django.urls import reverse

from accounts.models import Block
from games.models import Game
from games.play import lifecycle
from games.web import finding
from ratings.models import Ladder, Rating
from ratings.rating import shown
from tests.support.games import race
from tests.support.helpers import logged_in

OPTIONS = {"num_players": "3", "short_game": "False", "veto": "on", "time_per_move": "86400"}
STORED = {"num_players": 3, "short_game": False, "veto": True, "show_castillo": False, "time_per_move": 86400,
          "rated": False}


def quick(user, **changes):
    return logged_in(user).post(reverse("quick_game"), {**OPTIONS, **changes})


@pytest.mark.django_db
def test_quick_game_joins_the_oldest_open_game_with_the_same_options(make_user):
    older = lifecycle.create_game(make_user(), **STORED)
    lifecycle.create_game(make_user(), **STORED)
    lifecycle.create_game(make_user(), **{**STORED, "veto": False})
    lifecycle.create_game(make_user(), **{**STORED, "private": True})
    me = make_user("me")
    response = quick(me)
    assert response.status_code == 302 and response["Location"] == older.get_absolute_url()
    assert older.seats.filter(user=me).exists()
    assert Game.objects.filter(seats__user=me).count() == 1


@pytest.mark.django_db
def test_quick_game_opens_a_game_with_the_options_when_none_matches_and_sends_back_to_it(make_user):
    lifecycle.create_game(make_user(), **{**STORED, "num_players": 4})
    me = make_user("me")
    response = quick(me, show_castillo="on")
    game = Game.objects.get(creator=me)
    assert response["Location"] == game.get_absolute_url()
    assert (game.num_players, game.show_castillo, game.veto, game.private) == (3, True, True, False)
    # A second click does not open a second game.
    assert quick(me, show_castillo="on")["Location"] == game.get_absolute_url()
    assert Game.objects.filter(creator=me).count() == 1


@pytest.mark.django_db
def test_quick_game_skips_the_games_of_a_blocker_and_of_the_blocked(make_user):
    me, blocker, blocked = make_user("me"), make_user("blocker"), make_user("blocked")
    Block.objects.create(blocker=blocker, blocked=me)
    Block.objects.create(blocker=me, blocked=blocked)
    lifecycle.create_game(blocker, **STORED)
    lifecycle.create_game(blocked, **STORED)
    third = lifecycle.create_game(make_user(), **STORED)
    assert quick(me)["Location"] == third.get_absolute_url()


@pytest.mark.django_db
def test_quick_game_refuses_unreadable_options_and_changes_nothing(make_user):
    lifecycle.create_game(make_user(), **STORED)
    me = make_user("me")
    for bad in ({"num_players": "9"}, {"time_per_move": "x"}, {"short_game": ""}):
        response = quick(me, **bad)
        assert response["Location"] == reverse("lobby")
        (message,) = [str(m) for m in response.wsgi_request._messages]
        assert message.startswith("The quick game's options could not be read")
    assert not Game.objects.filter(seats__user=me).exists()


@pytest.mark.django_db
def test_a_rated_quick_game_needs_a_confirmed_address(make_user):
    lifecycle.create_game(make_user(), **{**STORED, "rated": True})
    me = make_user("me", verified=False)
    response = quick(me, rated="on")
    assert "verified email address" in str(list(response.wsgi_request._messages)[0])
    assert not Game.objects.filter(seats__user=me).exists()


@pytest.mark.django_db(transaction=True)
def test_players_clicking_quick_game_at_once_never_overfill_a_game(make_user):
    game = lifecycle.create_game(make_user(), **STORED)
    players = [make_user(f"quick{n}") for n in range(4)]
    outcomes = race([lambda user=user: finding.quick_game(user, STORED) for user in players])
    assert not [outcome for outcome in outcomes if isinstance(outcome, Exception)], outcomes
    game.refresh_from_db()
    assert game.seats.count() == 3 and game.status == Game.Status.ACTIVE
    # Two took the first game's two free seats; of the others, refused there, one opened a game
    # and the other joined it (not a game each).
    assert sum(1 for joined, outcome in outcomes if joined.pk == game.pk and outcome == "joined") == 2
    assert sorted(outcome for _game, outcome in outcomes) == ["created", "joined", "joined", "joined"]
    assert Game.objects.count() == 2
    for each in Game.objects.all():
        assert each.seats.count() <= each.num_players
    for user in players:
        assert Game.objects.filter(seats__user=user).count() == 1


@pytest.mark.django_db
def test_the_open_games_show_their_creators_rating(make_user):
    rated, new = make_user("rated"), make_user("new")
    Rating.objects.create(user=rated, ladder=Ladder.ALL, mu=30.0, sigma=2.0, ordinal=24.0, games=12)
    lifecycle.create_game(rated, **STORED)
    lifecycle.create_game(new, **STORED)
    response = logged_in(make_user()).get(reverse("lobby"))
    by_creator = {row["creator"]["username"]: row for row in response.context["open_games"]}
    assert by_creator["rated"]["creator_rating"] == shown(30.0, 2.0)
    assert not by_creator["rated"]["creator_provisional"]
    assert by_creator["new"]["creator_rating"] is None
    page = response.content.decode()
    assert re.search(rf'<td class="rating"[^>]*>{shown(30.0, 2.0)}</td>', page)
    assert "not rated yet" in page
