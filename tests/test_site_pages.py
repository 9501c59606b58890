"""The site's own pages around the game: who to write to, and its own error pages even where
DEBUG is on (`make run`), never Django's technical ones."""

from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from accounts.deletion import delete_account
from tests.support.settings_process import python

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
TECHNICAL = (b"Django tried these URL patterns", b"Traceback", b"technical_404", b"DEBUG = True", b"Request Method")


def contact_email_with(**variables):
    names = ("CONTACT_EMAIL", "DEFAULT_FROM_EMAIL")
    env = {key: value for key, value in __import__("os").environ.items() if key not in names}
    result = python("from elgrande_site import settings; print(settings.CONTACT_EMAIL)",
                    {**env, "PYTHONPATH": str(ROOT), **variables})
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_contact_address_is_set_or_else_the_sender_s():
    assert contact_email_with(CONTACT_EMAIL="help@elgrande.example") == "help@elgrande.example"
    assert contact_email_with(DEFAULT_FROM_EMAIL="El Grande <games@elgrande.example>") == "games@elgrande.example"


def test_every_page_names_the_contact_address(client, settings):
    settings.CONTACT_EMAIL = "help@elgrande.example"
    for name in ("lobby", "archive", "rules", "account_login", "account_signup"):
        html = client.get(reverse(name)).content.decode()
        assert 'href="mailto:help@elgrande.example"' in html, name


@pytest.mark.parametrize(
    "name", ["account_reset_password", "account_reset_password_done", "account_email_verification_sent"]
)
def test_the_account_pages_that_say_contact_us_say_how(client, settings, name):
    settings.CONTACT_EMAIL = "help@elgrande.example"
    html = client.get(reverse(name)).content.decode()
    assert "contact us" in html.lower()
    assert "To contact us (a mail that does not come, an account you cannot open), write to" in html
    assert 'href="mailto:help@elgrande.example"' in html


@pytest.mark.parametrize("debug", [True, False])
def test_a_deleted_player_s_profile_is_the_site_s_own_404(make_user, settings, debug):
    settings.DEBUG = debug
    user = make_user("felipe")
    name = user.username
    delete_account(user)
    response = Client().get(reverse("profile", args=[name]))
    assert response.status_code == 404
    assert b"There is no player of that name." in response.content and b"Back to the lobby" in response.content
    nobody = Client().get(reverse("profile", args=["nobody"]))
    assert nobody.status_code == 404 and b"There is no player of that name." in nobody.content
    assert not any(marker in response.content for marker in TECHNICAL)


@pytest.mark.parametrize("debug", [True, False])
def test_an_address_of_no_page_is_the_site_s_own_404(settings, debug):
    settings.DEBUG = debug
    response = Client().get("/no/such/page/")
    assert response.status_code == 404
    assert b"There is nothing at this address." in response.content
    assert not any(marker in response.content for marker in TECHNICAL)


@pytest.mark.parametrize("request_", [{"path": "/", "HTTP_HOST": "evil.example"}, {"path": "/players/a%00b/"}], ids=str)
def test_a_bad_request_with_debug_on_is_the_site_s_own_400(settings, request_):
    settings.DEBUG = True
    response = Client().get(**request_)
    assert response.status_code == 400
    assert b"could not read this request" in response.content
    assert not any(marker in response.content for marker in TECHNICAL)


def test_a_server_error_with_debug_on_is_the_site_s_own_500_and_its_traceback_is_logged(settings, monkeypatch, caplog):
    from games.web import views

    settings.DEBUG = True

    def broken(*args, **kwargs):
        raise RuntimeError("a fault of the site's own")

    monkeypatch.setattr(views, "render", broken)
    response = Client(raise_request_exception=False).get(reverse("lobby"))
    assert response.status_code == 500
    assert b"Something went wrong on the site's side" in response.content
    assert not any(marker in response.content for marker in TECHNICAL)
    assert any("a fault of the site's own" in str(record.exc_info) for record in caplog.records)
