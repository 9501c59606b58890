""""Quick game" clicked twice: the first click takes the last seat of an open game, which starts;
the second must not seat the player in a second game."""

import pytest
from django.urls import reverse

from games.models import Game
from games.play import lifecycle
from tests.support.helpers import logged_in

OPTIONS = {"num_players": "3", "short_game": "False", "veto": "on", "time_per_move": "86400"}
STORED = {"num_players": 3, "short_game": False, "veto": True, "show_castillo": False, "time_per_move": 86400,
          "rated": False}

pytestmark = pytest.mark.django_db


def test_a_second_click_after_taking_the_last_seat_sends_back_to_that_game(make_user):
    almost_full = lifecycle.create_game(make_user(), **STORED)
    lifecycle.join_game(almost_full, user=make_user())
    # Another open game with the same options, which the second click would have joined.
    other = lifecycle.create_game(make_user(), **STORED)
    me = make_user("me")
    client = logged_in(me)
    first = client.post(reverse("quick_game"), OPTIONS)
    assert first["Location"] == almost_full.get_absolute_url()
    almost_full.refresh_from_db()
    assert almost_full.status == Game.Status.ACTIVE
    second = client.post(reverse("quick_game"), OPTIONS, follow=True)
    assert second.redirect_chain[0][0] == almost_full.get_absolute_url()
    assert "a moment ago" in second.content.decode()
    assert not other.seats.filter(user=me).exists()
    assert Game.objects.filter(seats__user=me).count() == 1


def test_a_quick_game_long_after_the_last_one_started_finds_another(make_user):
    from datetime import timedelta

    from django.utils import timezone

    almost_full = lifecycle.create_game(make_user(), **STORED)
    lifecycle.join_game(almost_full, user=make_user())
    other = lifecycle.create_game(make_user(), **STORED)
    me = make_user("me")
    client = logged_in(me)
    client.post(reverse("quick_game"), OPTIONS)
    Game.objects.filter(pk=almost_full.pk).update(started_at=timezone.now() - timedelta(minutes=5))
    almost_full.seats.filter(user=me).update(joined_at=timezone.now() - timedelta(minutes=5))
    response = client.post(reverse("quick_game"), OPTIONS)
    assert response["Location"] == other.get_absolute_url()
    assert other.seats.filter(user=me).exists()


def test_a_tournament_table_the_site_seated_the_player_at_a_moment_ago_is_no_first_click(make_user):
    from datetime import timedelta

    from django.utils import timezone

    from tournaments import services
    from tournaments.models import Table

    me = make_user("me")
    table = lifecycle.create_game(make_user(), **STORED)
    lifecycle.join_game(table, user=make_user())
    lifecycle.join_game(table, user=me)
    closes = timezone.now() + timedelta(days=1)
    tournament = services.create_tournament(make_user(), name="Cup", signup_closes_at=closes)
    Table.objects.create(tournament=tournament, round=1, number=1, game=table)
    waiting = lifecycle.create_game(make_user(), **STORED)
    response = logged_in(me).post(reverse("quick_game"), OPTIONS)
    assert response["Location"] == waiting.get_absolute_url()
    assert waiting.seats.filter(user=me).exists()
