"""The new-tournament form sent twice (a double click on its button, the page sent again) made two
tournaments, both open for sign-up. A second click must change nothing: the second post is shown
the tournament the first made."""

import pytest
from django.test import Client
from django.urls import reverse

from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

FORM = {"name": "Copa", "format": "swiss", "first_round": "random", "table_size": "4", "rounds": "3",
        "points": "3,2,1", "signup_days": "7", "short_game": "False", "time_per_move": "86400"}


def test_the_same_form_sent_twice_makes_one_tournament(make_user):
    client = Client()
    client.force_login(make_user())
    first = client.post(reverse("new_tournament"), FORM)
    second = client.post(reverse("new_tournament"), FORM)
    assert first.status_code == second.status_code == 302
    assert Tournament.objects.count() == 1
    assert second["Location"] == first["Location"]
    page = client.get(second["Location"]).content.decode()
    assert "You made this tournament a moment ago with the same settings" in page


def test_other_settings_still_make_another_tournament(make_user):
    client = Client()
    client.force_login(make_user())
    client.post(reverse("new_tournament"), FORM)
    client.post(reverse("new_tournament"), {**FORM, "points": "4,2,1"})
    client.post(reverse("new_tournament"), {**FORM, "name": "Copa 2"})
    assert Tournament.objects.count() == 3


def test_another_sign_up_length_is_another_tournament(make_user):
    """The sign-up's end is reckoned from each post's moment: compared within the seconds between
    two posts, so that 14 days is not taken for 7."""
    client = Client()
    client.force_login(make_user())
    client.post(reverse("new_tournament"), FORM)
    second = client.post(reverse("new_tournament"), {**FORM, "signup_days": "14"})
    assert second.status_code == 302
    assert Tournament.objects.count() == 2, "a tournament whose sign-up lasts 14 days was taken for the one of 7"
