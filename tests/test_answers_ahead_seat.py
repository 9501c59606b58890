"""POST /games/<pk>/answers-ahead/ with a `seat` that str.isdigit() takes but int() refuses
answered 500 (ValueError from int()). It must be refused like any unreadable form, changing nothing."""

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Seat
from tests.support.helpers import snapshot, user_at

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("seat", ["²", "١" * 5000, "9" * 5000])
def test_an_unreadable_seat_is_refused_and_changes_nothing(start_game, seat):
    game = start_game(3)
    user = user_at(game, 0)
    client = Client(raise_request_exception=False)
    client.force_login(user)
    before = snapshot(game), list(Seat.objects.filter(game=game).values_list("answers_ahead", flat=True))
    response = client.post(reverse("answers_ahead", args=[game.pk]), {"on": "1", "seat": seat})
    assert response.status_code == 302, response.status_code
    page = client.get(response["Location"]).content.decode()
    assert "This form could not be read: reload the page and try again." in page
    assert (snapshot(game), list(Seat.objects.filter(game=game).values_list("answers_ahead", flat=True))) == before


def test_the_own_seat_in_ascii_digits_still_sets_it(start_game):
    game = start_game(3)
    user = user_at(game, 0)
    client = Client()
    client.force_login(user)
    response = client.post(reverse("answers_ahead", args=[game.pk]), {"on": "1", "seat": "0"})
    assert response.status_code == 302
    assert Seat.objects.get(game=game, index=0).answers_ahead
