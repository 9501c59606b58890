"""Password reset by mail, password change, and changing the address (verified again)."""

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from accounts.emails import has_verified_email
from accounts.models import User
from tests.support.helpers import logged_in
from tests.support.mail_links import path_of_link

pytestmark = pytest.mark.django_db
NEW_PASSWORD = "another-long-Passw0rd"


def can_log_in(client, login, password):
    client.post(reverse("account_login"), {"login": login, "password": password})
    user = client.get(reverse("lobby")).context["user"]
    client.logout()
    return user.is_authenticated


def test_password_reset_mails_a_link_that_sets_a_new_password(client, make_user, password):
    user = make_user("felipe")
    response = client.post(reverse("account_reset_password"), {"email": "felipe@example.org"})
    assert response.status_code == 302
    assert [message.to for message in mail.outbox] == [["felipe@example.org"]]
    link = path_of_link(mail.outbox[0].body, "/accounts/password/reset/key/")
    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200
    set_password_url = form_page.redirect_chain[-1][0]
    client.post(set_password_url, {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD})
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    assert can_log_in(client, "felipe", NEW_PASSWORD)
    assert not can_log_in(client, "felipe", password)


def test_a_reset_link_works_once(client, make_user):
    make_user("felipe")
    client.post(reverse("account_reset_password"), {"email": "felipe@example.org"})
    link = path_of_link(mail.outbox[0].body, "/accounts/password/reset/key/")
    set_password_url = client.get(link, follow=True).redirect_chain[-1][0]
    client.post(set_password_url, {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD})
    again = client.get(link, follow=True)
    assert "token_fail" in again.context and again.context["token_fail"]


def test_password_reset_for_an_unknown_address_says_nothing_about_accounts(client, make_user):
    make_user("felipe")
    known = client.post(reverse("account_reset_password"), {"email": "felipe@example.org"})
    unknown = client.post(reverse("account_reset_password"), {"email": "nobody@example.org"})
    assert known.status_code == unknown.status_code == 302
    assert known["Location"] == unknown["Location"]
    # The unknown address is told that it has no account, and nothing else.
    assert "/accounts/password/reset/key/" not in mail.outbox[1].body


def test_change_password_needs_the_old_one(make_user, password):
    user = make_user("felipe")
    client = logged_in(user)
    refused = client.post(
        reverse("account_change_password"),
        {"oldpassword": "not-my-password", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert refused.status_code == 200 and "oldpassword" in refused.context["form"].errors
    user.refresh_from_db()
    assert user.check_password(password)
    client.post(
        reverse("account_change_password"),
        {"oldpassword": password, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)


def test_a_new_address_replaces_the_old_only_once_verified(make_user):
    user = make_user("felipe")
    client = logged_in(user)
    client.post(reverse("account_email"), {"action_add": "", "email": "felipe@new.example.org"})
    user.refresh_from_db()
    # Until the link is followed, mail still goes to the old, verified address.
    assert user.email == "felipe@example.org" and has_verified_email(user)
    assert [message.to for message in mail.outbox] == [["felipe@new.example.org"]]
    link = path_of_link(mail.outbox[0].body, "/accounts/confirm-email/")
    client.post(link)
    user.refresh_from_db()
    assert user.email == "felipe@new.example.org"
    assert has_verified_email(user)
    assert list(EmailAddress.objects.filter(user=user).values_list("email", flat=True)) == ["felipe@new.example.org"]


def test_an_address_change_nobody_confirmed_neither_takes_the_address_nor_gets_reset_links(make_user, password):
    """Anyone may type anyone's address as the one to change to. Unconfirmed, it kept its owner
    from signing up ("account already exists", and no account made) and a password reset asked
    for it mailed a link into the account that typed it."""
    squatter = make_user("felipe")
    logged_in(squatter).post(reverse("account_email"), {"action_add": "", "email": "dora@example.org"})
    mail.outbox.clear()
    visitor = Client()
    visitor.post(reverse("account_reset_password"), {"email": "dora@example.org"})
    assert not any("felipe" in message.body for message in mail.outbox)
    # Later than the 3 minutes within which one address gets one confirmation (ACCOUNT_RATE_LIMITS).
    cache.clear()
    visitor.post(
        reverse("account_signup"),
        {"username": "dora", "email": "dora@example.org", "password1": password, "password2": password},
    )
    dora = User.objects.get(username="dora")
    assert dora.email == "dora@example.org"
    # Her own link, which confirms it for her account.
    visitor.post(path_of_link(mail.outbox[-1].body, "/accounts/confirm-email/"))
    assert has_verified_email(dora)
    mail.outbox.clear()
    Client().post(reverse("account_reset_password"), {"email": "dora@example.org"})
    assert len(mail.outbox) == 1 and "your username is dora" in mail.outbox[0].body
    # A confirmed address of another account is still taken.
    Client().post(
        reverse("account_signup"),
        {"username": "dora2", "email": "dora@example.org", "password1": password, "password2": password},
    )
    assert not User.objects.filter(username="dora2").exists()


def test_an_unverified_player_can_have_the_link_sent_again(make_user):
    user = make_user("felipe", verified=False)
    client = logged_in(user)
    client.post(reverse("account_email"), {"action_send": "", "email": "felipe@example.org"})
    assert [message.to for message in mail.outbox] == [["felipe@example.org"]]
    client.post(path_of_link(mail.outbox[0].body, "/accounts/confirm-email/"))
    assert has_verified_email(user)


def test_password_resets_for_one_address_are_rate_limited(client, make_user):
    make_user("felipe")
    statuses = [
        client.post(reverse("account_reset_password"), {"email": "felipe@example.org"}).status_code for _ in range(6)
    ]
    assert statuses == [302] * 5 + [429]
    assert len(mail.outbox) == 5
