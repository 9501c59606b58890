"""The new-game form sent twice (a double click on "Create", the page sent again) opened two games,
each with the player's seat: a practice game against computers started twice. A second click must
change nothing: the second post is shown the game the first opened."""

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Game

pytestmark = pytest.mark.django_db

FORM = {"num_players": "3", "short_game": "False", "time_per_move": "86400", "veto": "on"}
PRACTICE = {"num_players": "3", "short_game": "True", "time_per_move": "86400", "computer_random": "1",
            "computer_greedy": "1"}


@pytest.mark.parametrize("form", [FORM, PRACTICE], ids=["open game", "practice game"])
def test_the_same_form_sent_twice_opens_one_game(make_user, form):
    client = Client()
    client.force_login(make_user())
    first = client.post(reverse("new_game"), form)
    second = client.post(reverse("new_game"), form)
    assert first.status_code == second.status_code == 302
    assert Game.objects.count() == 1
    assert second["Location"] == first["Location"]
    page = client.get(second["Location"]).content.decode()
    assert "You opened this game a moment ago with the same options" in page


def test_other_options_still_open_another_game(make_user):
    client = Client()
    client.force_login(make_user())
    client.post(reverse("new_game"), FORM)
    client.post(reverse("new_game"), {**FORM, "num_players": "4"})
    client.post(reverse("new_game"), PRACTICE)
    client.post(reverse("new_game"), {**PRACTICE, "computer_greedy": "0", "computer_random": "2"})
    assert Game.objects.count() == 4


def test_a_cancelled_game_is_not_given_back(make_user):
    client = Client()
    client.force_login(make_user())
    first = client.post(reverse("new_game"), FORM)
    game = Game.objects.get()
    client.post(reverse("cancel", args=[game.pk]), {"confirm": "yes"})
    second = client.post(reverse("new_game"), FORM)
    assert Game.objects.count() == 2 and second["Location"] != first["Location"]
