"""The password asked before deleting an account is checked through allauth, under its lock."""

import pytest
from django.urls import reverse

from accounts.models import User
from tests.support.helpers import logged_in

pytestmark = pytest.mark.django_db


def test_guessing_the_password_on_the_delete_page_locks_it_as_the_log_in_does(make_user, password):
    user = make_user("felipe")
    client = logged_in(user)
    for attempt in range(6):
        client.post(reverse("delete_account"), {"password": f"guess-{attempt}"})
    response = client.post(reverse("delete_account"), {"password": password})
    assert "Too many failed login attempts" in response.content.decode()
    assert User.objects.get(pk=user.pk).deleted_at is None


def test_the_right_password_still_deletes_the_account(make_user, password):
    user = make_user("felipe")
    logged_in(user).post(reverse("delete_account"), {"password": password})
    assert User.objects.get(pk=user.pk).deleted_at is not None
