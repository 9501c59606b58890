"""A reader mutes a player: that player's lines disappear for that reader alone, on every page
load, until unmuted."""

import pytest
from django.test import Client
from django.urls import reverse

from games.models import ChatMute
from tests.support.chat import post_chat
from tests.support.helpers import HTMX, logged_in, user_at

pytestmark = pytest.mark.django_db


def mute(client, game, seat, muted=True, htmx=True):
    data = {"seat": seat, "muted": "1" if muted else "0"}
    return client.post(reverse("chat_mute", args=[game.pk]), data, **(HTMX if htmx else {}))


def chat_html(client, game):
    return client.get(reverse("chat", args=[game.pk]), **HTMX).content.decode()


def page_html(client, game):
    return client.get(reverse("game", args=[game.pk])).content.decode()


def test_a_muted_players_lines_disappear_for_the_muter_alone(table, make_user):
    game, players = table
    post_chat(players[1], game, "Noisy line")
    post_chat(players[2], game, "Quiet line")
    response = mute(players[0], game, 1)
    assert response.status_code == 200
    assert "Noisy line" not in response.content.decode() and "Quiet line" in response.content.decode()
    for html in (chat_html(players[0], game), page_html(players[0], game)):
        assert "Noisy line" not in html and "Quiet line" in html
        assert f"Unmute {user_at(game, 1).username}" in html
        assert f"Mute {user_at(game, 2).username}" in html
    for reader in (players[1], players[2], logged_in(make_user()), Client()):
        assert "Noisy line" in page_html(reader, game)


def test_a_muted_player_stays_muted_in_later_messages_and_page_loads(table):
    game, players = table
    mute(players[0], game, 1)
    post_chat(players[1], game, "Said after the mute")
    assert "Said after the mute" not in page_html(players[0], game)
    assert "Said after the mute" not in page_html(logged_in(user_at(game, 0)), game)
    assert ChatMute.objects.filter(user=user_at(game, 0), muted_user=user_at(game, 1)).count() == 1


def test_unmuting_brings_the_lines_back(table):
    game, players = table
    post_chat(players[1], game, "Hear me")
    mute(players[0], game, 1)
    assert "Hear me" not in chat_html(players[0], game)
    response = mute(players[0], game, 1, muted=False)
    assert response.status_code == 200 and "Hear me" in response.content.decode()
    assert not ChatMute.objects.exists()


def test_muting_twice_keeps_one_mute(table):
    game, players = table
    assert mute(players[0], game, 2).status_code == 200
    assert mute(players[0], game, 2).status_code == 200
    assert ChatMute.objects.count() == 1


def test_without_javascript_muting_leads_back_to_the_chat(table):
    game, players = table
    response = mute(players[0], game, 1, htmx=False)
    assert response.status_code == 302
    assert response["Location"] == reverse("game", args=[game.pk]) + "#chat"
    assert ChatMute.objects.count() == 1


def test_a_spectator_may_mute_a_player_for_himself(table, make_user):
    game, players = table
    spectator = logged_in(make_user())
    post_chat(players[1], game, "Noisy line")
    assert mute(spectator, game, 1).status_code == 200
    assert "Noisy line" not in chat_html(spectator, game)
    assert "Noisy line" in chat_html(players[0], game)


@pytest.mark.parametrize(
    "data, message",
    [
        ({"seat": 0, "muted": "1"}, "You cannot mute yourself."),
        ({"seat": 4, "muted": "1"}, "There is no player to mute in that seat."),
        ({"seat": 9, "muted": "1"}, "This request could not be read"),
        ({"seat": "x", "muted": "1"}, "This request could not be read"),
        ({"seat": 1, "muted": "maybe"}, "This request could not be read"),
        ({"seat": 1}, "This request could not be read"),
    ],
)
def test_a_mute_that_makes_no_sense_is_refused(table, data, message):
    game, players = table
    response = players[0].post(reverse("chat_mute", args=[game.pk]), data, **HTMX)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not ChatMute.objects.exists()


def test_a_logged_out_visitor_cannot_mute(table):
    game, _ = table
    response = mute(Client(), game, 1)
    assert response.status_code == 403
    assert not ChatMute.objects.exists()


def test_a_logged_out_visitor_is_offered_no_mute_buttons(table):
    game, players = table
    post_chat(players[1], game, "hello")
    assert "Mute " not in chat_html(Client(), game)
