"""A GET of an address that takes only a form's post (a refused post's page reloaded or restored,
an address copied from the bar) answers 405 with a page saying so, in the player's language, and
a link back to the game or tournament, never Django's empty body: a blank page."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.support.helpers import logged_in, snapshot, user_at
from tournaments import services

pytestmark = pytest.mark.django_db


def test_a_game_s_form_address_opened_says_nothing_was_changed_and_links_to_the_game(start_game):
    game = start_game(3)
    client = logged_in(user_at(game, 0))
    before = snapshot(game)
    for name in ("move", "join", "leave", "hand_seat_to_computer", "take_back_seat", "answers_ahead", "invite"):
        response = client.get(reverse(name, args=[game.pk]))
        assert response.status_code == 405 and response["Allow"] == "POST"
        page = response.content.decode()
        assert "Nothing was changed." in page, name
        assert f'href="{game.get_absolute_url()}"' in page and "Back to the game" in page
    assert snapshot(game) == before


def test_a_tournament_s_form_address_links_to_the_tournament(client, make_user):
    organiser = make_user("organiser")
    tournament = services.create_tournament(
        organiser, name="Copa", signup_closes_at=timezone.now() + timedelta(days=2)
    )
    client.force_login(organiser)
    response = client.get(reverse("tournament_withdraw", args=[tournament.pk]))
    assert response.status_code == 405
    assert f'href="{tournament.get_absolute_url()}"' in response.content.decode()


def test_the_page_is_in_the_player_s_language_and_others_link_to_the_lobby(client):
    client.cookies["django_language"] = "fr"
    response = client.get(reverse("set_language"))
    assert response.status_code == 405
    page = response.content.decode()
    assert "Rien n'a été modifié." in page and f'href="{reverse("lobby")}"' in page


def test_a_head_request_keeps_an_empty_answer(start_game):
    game = start_game(3)
    response = logged_in(user_at(game, 0)).head(reverse("move", args=[game.pk]))
    assert response.status_code == 405 and response.content == b""


def test_a_post_to_a_page_s_address_keeps_django_s_plain_refusal(start_game):
    """The page speaks of an address a form posts to, opened on its own: not of a POST to a page."""
    game = start_game(3)
    response = logged_in(user_at(game, 0)).post(reverse("game_partial", args=[game.pk, "play"]))
    assert response.status_code == 405 and response.content == b""


def test_the_refusal_is_logged_once(start_game, caplog):
    game = start_game(3)
    with caplog.at_level("WARNING", logger="django.request"):
        logged_in(user_at(game, 0)).get(reverse("move", args=[game.pk]))
    assert [record.status_code for record in caplog.records if record.name == "django.request"] == [405]
