"""POST /games/new/ with fields the form refuses (num_players=9, a missing time per move, seven
computer players) answered 200 with the form's errors, where every other refusal of the form (a
rated game without a verified address: 403) and the new-tournament form answer 4xx. Nothing is
created either way."""

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Game

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "form, words",
    [
        ({"num_players": "9", "short_game": "False", "time_per_move": "86400"}, "Select a valid choice. 9 is not one"),
        ({"num_players": "3", "short_game": "False"}, "This field is required."),
        ({"num_players": "3", "short_game": "False", "time_per_move": "86400", "computer_random": "-1"},
         "Ensure this value is greater than or equal to 0."),
        ({"num_players": "3", "short_game": "False", "time_per_move": "86400", "computer_random": "2",
          "computer_greedy": "2"}, "has room for at most 2 computer players"),
    ],
)
def test_a_refused_new_game_form_is_a_bad_request(make_user, form, words):
    client = Client()
    client.force_login(make_user())
    response = client.post(reverse("new_game"), form)
    assert response.status_code == 400
    assert words in response.content.decode()
    assert not Game.objects.exists()


def test_the_empty_form_is_still_a_page(make_user):
    client = Client()
    client.force_login(make_user())
    assert client.get(reverse("new_game")).status_code == 200
