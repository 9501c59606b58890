"""Sign-up, log-in and log-out through allauth, and its rate limit on wrong passwords."""

import re

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.urls import reverse
from django.utils.html import escape

from accounts.models import User
from tests.support.mail_links import path_of_link

pytestmark = pytest.mark.django_db


def sign_up(client, password, username="isabel", email="isabel@example.org"):
    return client.post(
        reverse("account_signup"),
        {"username": username, "email": email, "password1": password, "password2": password},
    )


def logged_in_user(client):
    return client.get(reverse("lobby")).context["user"]


def test_sign_up_creates_a_player_with_an_unverified_address_who_is_asked_to_check_their_mail(client, password):
    response = sign_up(client, password)
    assert response.status_code == 302 and response["Location"] == reverse("account_email_verification_sent")
    user = User.objects.get(username="isabel")
    assert user.email == "isabel@example.org"
    address = EmailAddress.objects.get(user=user)
    assert (address.email, address.primary, address.verified) == ("isabel@example.org", True, False)
    # Not logged in by the sign-up (a taken address gets the same answer), but verification stays
    # optional: the password logs in at once.
    assert not logged_in_user(client).is_authenticated
    client.post(reverse("account_login"), {"login": "isabel", "password": password})
    assert logged_in_user(client) == user


def test_the_page_after_sign_up_says_to_check_the_mail_and_that_the_player_may_log_in_now(client, password):
    """The site's own page, not allauth's "to finalize the signup process", which contradicted the
    sign-up page's "play at once" and led nowhere; the same for an address that had an account."""
    for name, address in (("isabel", "isabel@example.org"), ("isabel2", "isabel@example.org")):
        text = " ".join(client.get(sign_up(client, password, name, address)["Location"]).content.decode().split())
        assert "Check your mail" in text and "finalize" not in text
        assert f'You need not wait to play: <a href="{reverse("account_login")}">log in</a> now' in text


def test_sign_up_mails_a_link_that_verifies_the_address(client, password):
    sign_up(client, password)
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["isabel@example.org"]
    link = path_of_link(message.body, "/accounts/confirm-email/")
    page = client.get(link)
    assert page.status_code == 200
    assert not EmailAddress.objects.get(email="isabel@example.org").verified
    client.post(link)
    assert EmailAddress.objects.get(email="isabel@example.org").verified


@pytest.mark.parametrize(
    "sent, kept",
    [("Europe/Madrid", "Europe/Madrid"), ("Mars/Olympus", "UTC"), ("", "UTC"), ("Europe/" + "x" * 200, "UTC")],
)
def test_sign_up_takes_the_browsers_time_zone_when_it_is_a_real_one(client, password, sent, kept):
    response = client.post(
        reverse("account_signup"),
        {"username": "isabel", "email": "isabel@example.org", "password1": password, "password2": password,
         "time_zone": sent},
    )
    # A forged zone is no reason to refuse the sign-up: it ends on "check your mail" all the same.
    assert response.status_code == 302 and response["Location"] == reverse("account_email_verification_sent")
    assert User.objects.get(username="isabel").time_zone == kept


@pytest.mark.parametrize(
    "field, value",
    [("email", ""), ("email", "not-an-address"), ("username", ""), ("username", "deleted-7")],
)
def test_sign_up_needs_a_username_and_a_valid_email(client, password, field, value):
    data = {"username": "isabel", "email": "isabel@example.org", "password1": password, "password2": password}
    data[field] = value
    response = client.post(reverse("account_signup"), data)
    assert response.status_code == 200
    assert field in response.context["form"].errors
    assert not User.objects.exists()
    assert not mail.outbox


def test_sign_up_refuses_a_taken_username(client, make_user, password):
    make_user("isabel")
    response = sign_up(client, password, email="other@example.org")
    assert "username" in response.context["form"].errors
    assert User.objects.count() == 1


def test_following_the_sign_up_link_logs_the_new_player_in(client, password):
    sign_up(client, password)
    client.post(path_of_link(mail.outbox[0].body, "/accounts/confirm-email/"))
    assert logged_in_user(client) == User.objects.get(username="isabel")


def signed_up(password, email):
    """A sign-up with `email` by a new visitor: (status, where it leads, the page it leads to),
    the address taken out."""
    from django.test import Client

    client = Client()
    response = client.post(
        reverse("account_signup"),
        {"username": "isabel", "email": email, "password1": password, "password2": password},
        follow=True,
    )
    token = re.compile(r'(csrfmiddlewaretoken" value=|X-CSRFToken": )"[^"]+"')
    # The address as typed, or as the form keeps it (in lower case).
    page = token.sub("", response.content.decode()).replace(email, "ADDRESS").replace(email.lower(), "ADDRESS")
    return response.redirect_chain, response.status_code, page, logged_in_user(client).is_authenticated


def test_signing_up_with_an_address_that_has_an_account_answers_as_a_new_address_and_mails_its_owner(
    make_user, password
):
    make_user("felipe")
    make_user("unconfirmed", verified=False)
    new = signed_up(password, "isabel@example.org")
    assert new[:2] == ([(reverse("account_email_verification_sent"), 302)], 200) and not new[3]
    User.objects.filter(username="isabel").delete()
    mail.outbox.clear()
    # Each address once: allauth mails an address at most once in three minutes (the rate limit
    # confirm_email), and a second try within them is answered without the "sent" line, for a
    # new address (by then taken by the account the first try made) as for any other.
    for taken in ("felipe@example.org", "UNCONFIRMED@example.org"):
        assert signed_up(password, taken) == new, taken
    assert not User.objects.filter(username="isabel").exists()
    assert [message.to for message in mail.outbox] == [["felipe@example.org"], ["unconfirmed@example.org"]]
    assert all("Account Already Exists" in message.subject for message in mail.outbox)
    assert "password forgotten procedure" in mail.outbox[0].body


@pytest.mark.parametrize("login", ["felipe", "felipe@example.org", "FELIPE@example.org"])
def test_log_in_by_username_or_email(client, make_user, password, login):
    user = make_user("felipe")
    response = client.post(reverse("account_login"), {"login": login, "password": password})
    assert response.status_code == 302
    assert logged_in_user(client) == user


def test_a_name_signed_up_fullwidth_logs_in_typed_the_same_way(client, make_user, password):
    """Sign-up keeps "ｆｅｌｉｐｅ" as "felipe" (NFKC): typed again as at sign-up, the name is
    that account's, not a wrong one."""
    client.post(
        reverse("account_signup"),
        {"username": "\uff46\uff45\uff4c\uff49\uff50\uff45", "email": "felipe@example.org",
         "password1": password, "password2": password},
    )
    user = User.objects.get(username="felipe")
    for typed in ("\uff46\uff45\uff4c\uff49\uff50\uff45", "\uff26\uff25\uff2c\uff29\uff30\uff25"):
        client.logout()
        response = client.post(reverse("account_login"), {"login": typed, "password": password})
        assert response.status_code == 302
        assert logged_in_user(client) == user


def test_a_name_taken_before_the_nfkc_rule_logs_in_as_it_was_written(client, password):
    # Saved without create_user, which would put it in NFKC form.
    user = User(username="\uff4f\uff4c\uff44", email="old@example.org")
    user.set_password(password)
    user.save()
    response = client.post(reverse("account_login"), {"login": "\uff4f\uff4c\uff44", "password": password})
    assert response.status_code == 302
    assert logged_in_user(client) == user


def test_a_wrong_password_does_not_log_in(client, make_user):
    make_user("felipe")
    response = client.post(reverse("account_login"), {"login": "felipe", "password": "wrong-password-1"})
    assert response.status_code == 200
    assert response.context["form"].errors
    assert not logged_in_user(client).is_authenticated


def test_the_login_page_links_to_password_reset_and_sign_up(client):
    page = client.get(reverse("account_login")).content.decode()
    assert f'href="{reverse("account_reset_password")}"' in page
    assert f'href="{reverse("account_signup")}"' in page


def test_log_out_takes_a_post_not_a_get(client, make_user, password):
    make_user("felipe")
    client.post(reverse("account_login"), {"login": "felipe", "password": password})
    client.get(reverse("account_logout"))
    assert logged_in_user(client).is_authenticated
    client.post(reverse("account_logout"))
    assert not logged_in_user(client).is_authenticated


def test_after_25_wrong_passwords_even_the_right_one_does_not_log_in(client, make_user, password):
    make_user("felipe")
    for attempt in range(25):
        client.post(reverse("account_login"), {"login": "felipe", "password": f"guess-{attempt}"})
    response = client.post(reverse("account_login"), {"login": "felipe", "password": password})
    assert not logged_in_user(client).is_authenticated
    assert "Too many failed login attempts" in response.content.decode()


def test_the_lock_after_wrong_passwords_is_for_that_login_only(make_user, password):
    from django.test import Client

    make_user("felipe")
    make_user("isabel")
    attacker = Client(REMOTE_ADDR="10.0.0.1")
    for attempt in range(6):
        attacker.post(reverse("account_login"), {"login": "felipe", "password": f"guess-{attempt}"})
    other = Client(REMOTE_ADDR="10.0.0.2")
    other.post(reverse("account_login"), {"login": "isabel", "password": password})
    assert logged_in_user(other).username == "isabel"


def test_after_5_wrong_passwords_from_many_addresses_that_login_is_locked(make_user, password):
    from django.test import Client

    make_user("felipe")
    for attempt in range(5):
        Client(REMOTE_ADDR=f"10.0.1.{attempt}").post(
            reverse("account_login"), {"login": "Felipe", "password": f"guess-{attempt}"}
        )
    client = Client(REMOTE_ADDR="10.0.2.1")
    response = client.post(reverse("account_login"), {"login": "felipe", "password": password})
    assert not logged_in_user(client).is_authenticated
    assert "Too many failed login attempts" in response.content.decode()


def answer(response, login):
    """What a log-in page tells the visitor, less the login echoed in its field and the CSRF
    token (masked anew each time)."""
    page = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"|"X-CSRFToken": "[^"]*"', "", response.content.decode())
    return response.status_code, page.replace(escape(login), "LOGIN")


def test_a_locked_username_does_not_say_which_address_is_its_accounts(make_user, password):
    """Five wrong passwords by a username lock its account, but an address tried afterwards is
    answered alike whether it is that account's, another's or nobody's: else players' addresses
    could be learnt from their public usernames."""
    from django.test import Client

    make_user("felipe")  # felipe@example.org
    make_user("isabel")  # isabel@example.org
    for attempt in range(5):
        Client(REMOTE_ADDR=f"10.0.4.{attempt}").post(
            reverse("account_login"), {"login": "felipe", "password": f"guess-{attempt}"}
        )
    answers = set()
    for number, address in enumerate(("felipe@example.org", "isabel@example.org", "nobody@example.org")):
        response = Client(REMOTE_ADDR=f"10.0.5.{number}").post(
            reverse("account_login"), {"login": address, "password": "wrong"}
        )
        assert "Wrong username, email address or password." in response.content.decode()
        answers.add(answer(response, address))
    assert len(answers) == 1
    # Felipe's account is locked by any of its logins, without a word: even the right password
    # by the address is answered as a wrong one.
    client = Client(REMOTE_ADDR="10.0.5.9")
    response = client.post(reverse("account_login"), {"login": "felipe@example.org", "password": password})
    assert not logged_in_user(client).is_authenticated
    assert answer(response, "felipe@example.org") in answers


def test_five_wrong_passwords_by_username_and_address_lock_the_account(make_user, password):
    from django.test import Client

    make_user("felipe")  # felipe@example.org
    for attempt, login in enumerate(["felipe"] * 3 + ["Felipe@example.org"] * 2):
        Client(REMOTE_ADDR=f"10.0.6.{attempt}").post(
            reverse("account_login"), {"login": login, "password": f"guess-{attempt}"}
        )
    # Neither login was typed five times: allauth's lock per login would still let the right
    # password in, by either.
    for number, login in enumerate(("felipe", "felipe@example.org")):
        client = Client(REMOTE_ADDR=f"10.0.7.{number}")
        response = client.post(reverse("account_login"), {"login": login, "password": password})
        assert not logged_in_user(client).is_authenticated, login
        content = response.content.decode()
        assert "Wrong username, email address or password." in content
        assert "Too many failed login attempts" not in content


def test_four_wrong_passwords_do_not_lock_the_account(make_user, password):
    from django.test import Client

    make_user("felipe")
    for attempt, login in enumerate(["felipe"] * 2 + ["felipe@example.org"] * 2):
        Client(REMOTE_ADDR=f"10.0.8.{attempt}").post(
            reverse("account_login"), {"login": login, "password": f"guess-{attempt}"}
        )
    client = Client(REMOTE_ADDR="10.0.8.9")
    client.post(reverse("account_login"), {"login": "felipe@example.org", "password": password})
    assert logged_in_user(client).username == "felipe"


def test_a_locked_account_answers_its_username_and_address_as_an_unknown_login(make_user, password):
    """Right or wrong password, by its username or its address: a locked account answers what a
    login that names nobody gets, and the right password is counted as a wrong one against the
    login typed, so that allauth's lock of that login does not come later for it either."""
    from django.test import Client

    make_user("felipe")  # felipe@example.org
    for attempt in range(5):
        Client(REMOTE_ADDR=f"10.0.9.{attempt}").post(
            reverse("account_login"), {"login": "felipe@example.org", "password": f"guess-{attempt}"}
        )
    tried = [("felipe", password), ("felipe", "wrong"), ("nobody", "wrong")]
    answers = {}
    for number, (login, typed) in enumerate(tried):
        client = Client(REMOTE_ADDR=f"10.0.10.{number}")
        response = client.post(reverse("account_login"), {"login": login, "password": typed})
        answers[login, typed] = answer(response, login)
        assert not logged_in_user(client).is_authenticated
    assert len(set(answers.values())) == 1
    # Right passwords by the username count against that login as wrong ones do: after five in
    # all (the two above and three more), allauth's lock of that login says so.
    for attempt in range(3):
        Client(REMOTE_ADDR=f"10.0.11.{attempt}").post(
            reverse("account_login"), {"login": "felipe", "password": password}
        )
    response = Client(REMOTE_ADDR="10.0.11.9").post(
        reverse("account_login"), {"login": "felipe", "password": password}
    )
    assert "Too many failed login attempts" in response.content.decode()


def test_a_password_reset_lifts_the_accounts_lock(client, make_user, password):
    from django.test import Client

    make_user("felipe")  # felipe@example.org
    for attempt in range(5):
        Client(REMOTE_ADDR=f"10.0.12.{attempt}").post(
            reverse("account_login"), {"login": "felipe", "password": f"guess-{attempt}"}
        )
    locked = Client(REMOTE_ADDR="10.0.12.8")
    locked.post(reverse("account_login"), {"login": "felipe@example.org", "password": password})
    assert not logged_in_user(locked).is_authenticated
    client.post(reverse("account_reset_password"), {"email": "felipe@example.org"})
    link = path_of_link(mail.outbox[-1].body, "/accounts/password/reset/key/")
    form = client.get(link, follow=True)
    new_password = "a-new-long-password-9"
    client.post(form.redirect_chain[-1][0], {"password1": new_password, "password2": new_password})
    assert User.objects.get(username="felipe").check_password(new_password)
    other = Client(REMOTE_ADDR="10.0.12.9")
    other.post(reverse("account_login"), {"login": "felipe@example.org", "password": new_password})
    assert logged_in_user(other).username == "felipe"


def test_wrong_logins_that_name_no_account_are_counted_as_typed(make_user, password):
    from django.test import Client

    make_user("felipe")
    for attempt in range(6):
        Client(REMOTE_ADDR=f"10.0.3.{attempt}").post(
            reverse("account_login"), {"login": "nobody", "password": f"guess-{attempt}"}
        )
    client = Client(REMOTE_ADDR="10.0.3.9")
    client.post(reverse("account_login"), {"login": "felipe", "password": password})
    assert logged_in_user(client).username == "felipe"


def test_behind_the_sites_proxy_the_limits_count_each_players_own_address(settings, make_user, password):
    from django.test import Client

    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 1
    for number in range(12):
        make_user(f"player{number}")
    # Each wrong password from an address of its own, all through the one proxy (REMOTE_ADDR):
    # counted by the proxy's address they made 12, past the 10 a minute one address may make.
    for number in range(12):
        Client(REMOTE_ADDR="10.9.9.9", HTTP_X_FORWARDED_FOR=f"203.0.113.{number}").post(
            reverse("account_login"), {"login": f"player{number}", "password": "wrong"}
        )
    client = Client(REMOTE_ADDR="10.9.9.9", HTTP_X_FORWARDED_FOR="203.0.113.200")
    client.post(reverse("account_login"), {"login": "player0", "password": password})
    assert logged_in_user(client).username == "player0"
    # One address behind the proxy is limited all the same.
    for attempt in range(10):
        Client(REMOTE_ADDR="10.9.9.9", HTTP_X_FORWARDED_FOR="203.0.113.77").post(
            reverse("account_login"), {"login": f"nobody{attempt}", "password": "wrong"}
        )
    client = Client(REMOTE_ADDR="10.9.9.9", HTTP_X_FORWARDED_FOR="203.0.113.77")
    response = client.post(reverse("account_login"), {"login": "player1", "password": password})
    assert not logged_in_user(client).is_authenticated
    assert "Too many failed login attempts" in response.content.decode()


def test_without_a_trusted_proxy_a_forwarded_address_is_not_believed(make_user, password):
    from django.test import Client

    make_user("felipe")
    for attempt in range(10):
        Client(REMOTE_ADDR="10.9.9.8", HTTP_X_FORWARDED_FOR=f"203.0.113.{attempt}").post(
            reverse("account_login"), {"login": f"nobody{attempt}", "password": "wrong"}
        )
    forged = Client(REMOTE_ADDR="10.9.9.8", HTTP_X_FORWARDED_FOR="203.0.113.250")
    response = forged.post(reverse("account_login"), {"login": "felipe", "password": password})
    assert not logged_in_user(forged).is_authenticated
    assert "Too many failed login attempts" in response.content.decode()


def test_a_request_naming_fewer_hops_than_the_trusted_proxies_counts_by_its_own_address(settings, make_user, password):
    from django.test import Client

    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 2
    make_user("felipe")
    client = Client(REMOTE_ADDR="10.9.9.7", HTTP_X_FORWARDED_FOR="203.0.113.1")
    client.post(reverse("account_login"), {"login": "felipe", "password": password})
    assert logged_in_user(client).username == "felipe"


def test_sign_ups_from_one_address_are_rate_limited(password):
    from django.test import Client

    client = Client(REMOTE_ADDR="10.0.0.3")
    statuses = []
    for n in range(21):
        statuses.append(sign_up(client, password, f"player{n}", f"player{n}@example.org").status_code)
        client.logout()
    assert statuses[:20] == [302] * 20
    assert statuses[20] == 429
    assert User.objects.count() == 20


def test_a_request_through_fewer_proxies_and_with_no_client_address_is_refused_not_an_error(settings):
    # Daphne on a Unix socket names no client: allauth refuses such a request (403), as here.
    from django.core.exceptions import PermissionDenied
    from django.test import RequestFactory

    from accounts.adapter import AccountAdapter

    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 2
    request = RequestFactory().post("/accounts/login/", HTTP_X_FORWARDED_FOR="203.0.113.1")
    del request.META["REMOTE_ADDR"]
    with pytest.raises(PermissionDenied):
        AccountAdapter(request).get_client_ip(request)
    request.META["REMOTE_ADDR"] = "10.9.9.7"
    assert AccountAdapter(request).get_client_ip(request) == "10.9.9.7"
