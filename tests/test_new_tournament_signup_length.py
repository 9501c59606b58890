"""The new-tournament form sent twice makes one tournament (tournaments/services.py
created_just_before), but one made again with another sign-up length is another tournament: the
sign-up's end, reckoned from each post's moment, is compared within the seconds between two posts."""

import pytest
from django.test import Client
from django.urls import reverse

from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

FORM = {"name": "Copa", "format": "swiss", "first_round": "random", "table_size": "4", "rounds": "3",
        "points": "3,2,1", "signup_days": "7", "short_game": "False", "time_per_move": "86400"}


def test_another_sign_up_length_is_another_tournament(make_user):
    client = Client()
    client.force_login(make_user())
    client.post(reverse("new_tournament"), FORM)
    second = client.post(reverse("new_tournament"), {**FORM, "signup_days": "14"})
    assert second.status_code == 302
    assert Tournament.objects.count() == 2, "a tournament whose sign-up lasts 14 days was taken for the one of 7"


def test_the_same_form_sent_twice_still_makes_one(make_user):
    client = Client()
    client.force_login(make_user())
    client.post(reverse("new_tournament"), FORM)
    client.post(reverse("new_tournament"), FORM)
    assert Tournament.objects.count() == 1
