"""Rated games are for players whose email address is verified."""

import pytest
from allauth.account.models import EmailAddress
from django.urls import reverse

from accounts.emails import has_verified_email, wants_mail
from games.models import Game
from games.play import lifecycle
from games.play.errors import NotAllowed
from tests.support.helpers import logged_in

pytestmark = pytest.mark.django_db
NEW_GAME = {"num_players": "3", "short_game": "False", "time_per_move": "86400", "veto": "on"}


def test_an_unverified_player_cannot_create_a_rated_game(make_user):
    with pytest.raises(NotAllowed, match="verified email address"):
        lifecycle.create_game(make_user(verified=False), num_players=3, rated=True)
    assert not Game.objects.exists()


def test_an_unverified_player_creates_and_joins_unrated_games(make_user):
    player = make_user(verified=False)
    game = lifecycle.create_game(player, num_players=2)
    lifecycle.join_game(game, user=make_user(verified=False))
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def test_an_unverified_player_cannot_join_a_rated_game(make_user):
    game = lifecycle.create_game(make_user(), num_players=3, rated=True)
    with pytest.raises(NotAllowed, match="verified email address"):
        lifecycle.join_game(game, user=make_user(verified=False))
    assert game.seats.count() == 1


def test_the_new_game_form_says_why_a_rated_game_was_refused(make_user):
    client = logged_in(make_user(verified=False))
    form_page = client.get(reverse("new_game")).content.decode()
    assert "Rated games need a verified email address" in form_page
    response = client.post(reverse("new_game"), {**NEW_GAME, "rated": "on"})
    assert response.status_code == 403
    assert "Rated games are for players with a verified email address" in response.content.decode()
    assert not Game.objects.exists()


def test_joining_a_rated_game_unverified_shows_the_reason_on_the_game_page(make_user):
    game = lifecycle.create_game(make_user(), num_players=3, rated=True)
    client = logged_in(make_user(verified=False))
    page = client.post(reverse("join", args=[game.pk]), follow=True).content.decode()
    assert "Rated games are for players with a verified email address" in page
    assert game.seats.count() == 1


def test_only_the_current_address_counts_as_verified(make_user):
    user = make_user(verified=False)
    # A verified address the player no longer uses does not make the account verified.
    EmailAddress.objects.create(user=user, email="old@example.org", verified=True)
    assert not has_verified_email(user)
    EmailAddress.objects.filter(user=user, email=user.email).update(verified=True)
    assert has_verified_email(user)


def test_mail_goes_only_to_verified_players_who_want_that_kind(make_user):
    verified, unverified = make_user(), make_user(verified=False)
    assert wants_mail(verified, "your_move")
    assert not wants_mail(unverified, "your_move")
    # Live games' "your move" mails are off until the player asks for them.
    assert not wants_mail(verified, "live_your_move")
    verified.notify_your_move = False
    assert not wants_mail(verified, "your_move")
