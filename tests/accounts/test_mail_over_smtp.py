"""End to end over a real SMTP server (aiosmtpd, started by the test): sign up, verify the address by
the mailed link, then forget the password and set a new one by the mailed link."""


import pytest
from django.core import mail
from django.urls import reverse

from accounts.emails import has_verified_email
from accounts.models import User
from games.play import lifecycle
from tests.support.helpers import free_port
from tests.support.mail_links import path_of_link
from tests.support.site_mail import body, html_part, mail_through, serving_mailbox, sign_up
from tests.support.site_mail import smtp_server as smtp_server  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db
NEW_PASSWORD = "a-brand-new-Passw0rd"


@pytest.fixture
def refused_mail(settings, tmp_path):
    """The site's mail goes to a port where nothing listens: every connection is refused."""
    mail_through(settings, tmp_path, free_port())


def test_sign_up_verify_and_reset_the_password_through_real_mail(client, smtp_server, password):
    sign_up(client, password)
    user = User.objects.get(username="isabel")
    assert not has_verified_email(user)

    recipients, message = smtp_server.take()
    assert recipients == ["isabel@example.org"]
    assert message["From"] == "El Grande <games@example.org>"
    assert message["Subject"].startswith("[El Grande] ")
    confirm = path_of_link(body(message), "/accounts/confirm-email/")
    assert client.get(confirm).status_code == 200
    client.post(confirm)
    assert has_verified_email(user)
    # Verified, she may now play rated games.
    lifecycle.create_game(user, num_players=3, rated=True)

    client.post(reverse("account_logout"))
    client.post(reverse("account_reset_password"), {"email": "isabel@example.org"})
    recipients, message = smtp_server.take()
    assert recipients == ["isabel@example.org"]
    reset = path_of_link(body(message), "/accounts/password/reset/key/")
    set_password_url = client.get(reset, follow=True).redirect_chain[-1][0]
    client.post(set_password_url, {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD})

    client.post(reverse("account_login"), {"login": "isabel", "password": NEW_PASSWORD})
    assert client.get(reverse("lobby")).context["user"] == user
    # Nothing went to Django's test outbox: every mail went over SMTP.
    assert mail.outbox == []


def test_account_mails_have_an_html_part_with_their_links(client, smtp_server, password, make_user):
    # A username that looks like a domain stays text: only the site's links are links.
    sign_up(client, password, username="elgrande-login.example")
    _, message = smtp_server.take()
    confirm = path_of_link(body(message), "/accounts/confirm-email/")
    html = html_part(message)
    assert html.startswith("<!DOCTYPE html>") and f'{confirm}">' in html
    assert html.count("<a href=") == 1
    assert "elgrande-login.example" in html
    make_user("felipe")
    client.post(reverse("account_logout"))
    client.post(reverse("account_reset_password"), {"email": "felipe@example.org"})
    _, message = smtp_server.take()
    reset = path_of_link(body(message), "/accounts/password/reset/key/")
    assert f'{reset}"' in html_part(message)


def test_a_mail_server_that_is_down_does_not_fail_the_sign_up(client, refused_mail, password, caplog):
    response = sign_up(client, password, follow=True)
    assert response.status_code == 200
    assert response.redirect_chain == [(reverse("account_email_verification_sent"), 302)]
    assert (
        "We could not send the mail to isabel@example.org just now: the mail server did not take it. "
        "We will try again over the next day" in response.content.decode()
    )
    logged = [record.getMessage() for record in caplog.records]
    assert any("Could not send the account/email/email_confirmation_signup mail" in line for line in logged)


def test_an_account_mail_the_server_refused_is_sent_on_the_back_off_of_every_mail(
    client, refused_mail, settings, tmp_path, password, monkeypatch
):
    from datetime import timedelta

    from django.utils import timezone

    from games.mail import outbox
    from games.models import Notification

    sign_up(client, password)
    kept = Notification.objects.get(kind="account")
    assert (kept.address, kept.status, kept.attempts) == ("isabel@example.org", Notification.Status.FAILED, 1)
    assert "ConnectionRefusedError" in kept.last_error
    assert kept.next_attempt_at - timezone.now() <= timedelta(minutes=1)
    # The server comes back; the sweep's retry sends it a minute later.
    with serving_mailbox(settings, tmp_path) as mailbox:
        monkeypatch.setattr(outbox, "queue_notification", outbox.send_logged)
        assert outbox.retry_due(kept.next_attempt_at - timedelta(seconds=1)) == 0
        assert outbox.retry_due(kept.next_attempt_at) == 1
        recipients, message = mailbox.take()
    assert recipients == ["isabel@example.org"]
    assert message["Subject"].startswith("[El Grande] ") and "List-Unsubscribe" not in message
    confirm = path_of_link(body(message), "/accounts/confirm-email/")
    assert f'{confirm}"' in html_part(message)
    client.post(confirm)
    assert has_verified_email(User.objects.get(username="isabel"))
    kept.refresh_from_db()
    # Sent: its link is not kept.
    assert (kept.status, kept.text, kept.html) == (Notification.Status.SENT, "", "")


def test_a_kept_confirmation_is_replaced_by_a_newer_one_and_not_sent_once_the_address_is_confirmed(
    client, refused_mail, settings, tmp_path, password, monkeypatch
):
    from allauth.account.models import EmailAddress
    from django.core.cache import cache

    from games.mail import outbox
    from games.models import Notification

    sign_up(client, password)
    # Signed up, then logged in with the password (the sign-up itself does not log in).
    client.post(reverse("account_login"), {"login": "isabel", "password": password})
    first = Notification.objects.get(kind="account")
    # The player asks for it again (past allauth's three minutes between two).
    cache.clear()
    client.post(reverse("account_email"), {"action_send": "", "email": "isabel@example.org"})
    second = Notification.objects.exclude(pk=first.pk).get(kind="account")
    first.refresh_from_db()
    assert (first.status, first.text, first.next_attempt_at) == (Notification.Status.DROPPED, "", None)
    assert second.status == Notification.Status.FAILED and "/accounts/confirm-email/" in second.text
    with serving_mailbox(settings, tmp_path) as mailbox:
        monkeypatch.setattr(outbox, "queue_notification", outbox.send_logged)
        assert outbox.retry_due(second.next_attempt_at) == 1
        mailbox.take()
        assert not mailbox.messages
    # The server is down again (nothing listens on its port) when the player asks once more; then
    # the address is confirmed by the link that arrived: the kept one is no longer wanted.
    cache.clear()
    client.post(reverse("account_email"), {"action_send": "", "email": "isabel@example.org"})
    third = Notification.objects.get(kind="account", status=Notification.Status.FAILED)
    EmailAddress.objects.filter(email="isabel@example.org").update(verified=True)
    with serving_mailbox(settings, tmp_path) as mailbox:
        assert outbox.retry_due(third.next_attempt_at) == 1
        assert not mailbox.messages
    third.refresh_from_db()
    assert (third.status, third.text) == (Notification.Status.DROPPED, "")


def test_a_kept_confirmation_of_an_address_its_player_replaced_is_not_sent(
    client, refused_mail, settings, tmp_path, password, monkeypatch
):
    from allauth.account.models import EmailAddress

    from games.mail import outbox
    from games.models import Notification

    sign_up(client, password)
    kept = Notification.objects.get(kind="account")
    EmailAddress.objects.filter(email="isabel@example.org").delete()
    with serving_mailbox(settings, tmp_path) as mailbox:
        monkeypatch.setattr(outbox, "queue_notification", outbox.send_logged)
        assert outbox.retry_due(kept.next_attempt_at) == 1
        assert not mailbox.messages
    kept.refresh_from_db()
    assert (kept.status, kept.text) == (Notification.Status.DROPPED, "")


def test_a_password_reset_the_server_refused_is_not_kept_and_the_player_is_asked_to_ask_again(
    client, refused_mail, make_user
):
    from games.models import Notification

    make_user("felipe")
    response = client.post(reverse("account_reset_password"), {"email": "felipe@example.org"}, follow=True)
    assert response.status_code == 200
    assert (
        "We could not send the mail to felipe@example.org just now: the mail server did not take it. "
        "Please ask for it again in a while." in response.content.decode()
    )
    # Its link opens the account: it is not kept in the database for the retries.
    assert not Notification.objects.exists()


def test_a_kept_confirmation_given_up_keeps_no_link_and_the_admin_never_shows_it(
    client, admin_client, refused_mail, password
):
    from games.mail import outbox
    from games.models import Notification

    sign_up(client, password)
    kept = Notification.objects.get(kind="account")
    assert "/accounts/confirm-email/" in kept.text
    page = admin_client.get(reverse("admin:games_notification_change", args=[kept.pk])).content.decode()
    assert "/accounts/confirm-email/" not in page and "isabel@example.org" in page
    while kept.status != Notification.Status.GAVE_UP:
        with pytest.raises(outbox.SendFailed):
            outbox.deliver(kept.pk, now=kept.next_attempt_at)
        kept.refresh_from_db()
    assert (kept.text, kept.html) == ("", "")
