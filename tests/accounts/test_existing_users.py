"""Players from before allauth keep their accounts: their address is known, not yet verified."""

import importlib

import pytest
from allauth.account.models import EmailAddress
from django.apps import apps

from accounts.emails import has_verified_email
from accounts.models import User

pytestmark = pytest.mark.django_db
migration = importlib.import_module("accounts.migrations.0003_email_addresses_for_existing_users")


def test_existing_players_get_their_address_unverified(password, client):
    old = User.objects.create_user("felipe", "Felipe@Example.org", password)
    no_email = User.objects.create_user("isabel", "", password)
    migration.create_email_addresses(apps, None)
    address = EmailAddress.objects.get(user=old)
    assert (address.email, address.primary, address.verified) == ("felipe@example.org", True, False)
    assert not EmailAddress.objects.filter(user=no_email).exists()
    assert not has_verified_email(old)
    client.post("/accounts/login/", {"login": "felipe", "password": password})
    assert client.get("/").context["user"] == old


def test_the_migration_leaves_addresses_allauth_already_has(make_user):
    user = make_user()
    migration.create_email_addresses(apps, None)
    assert list(EmailAddress.objects.filter(user=user).values_list("verified", flat=True)) == [True]


def test_players_who_shared_an_address_both_keep_it(password):
    # The old sign-up did not insist on unique addresses; neither is verified, so both may keep it.
    first = User.objects.create_user("felipe", "same@example.org", password)
    second = User.objects.create_user("isabel", "same@example.org", password)
    migration.create_email_addresses(apps, None)
    assert EmailAddress.objects.filter(user__in=[first, second], email="same@example.org").count() == 2
