"""Account and game mails name the site by SITE_NAME, not by the host a request came to (a proxy's
127.0.0.1:8811): read from mails received by a real SMTP server."""

import pytest

from tests.support.site_mail import body, sign_up
from tests.support.site_mail import smtp_server as smtp_server  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def test_account_mails_name_the_site_not_the_host_the_request_came_to(client, smtp_server, password, settings):  # noqa: F811
    settings.SITE_NAME = "Los Grandes"
    sign_up(client, password, HTTP_HOST="127.0.0.1:8811")
    _, message = smtp_server.take()
    assert message["Subject"].startswith("[Los Grandes] ")
    text = body(message).replace("\r\n", "\n")
    assert "Hello from Los Grandes!" in text
    assert "Thank you for using Los Grandes!\nelgrande.example.org" in text
    # conftest's SITE_URL is https://elgrande.example.org.
    assert "register an account on elgrande.example.org." in text
    assert "from 127.0.0.1:8811" not in text and "using 127.0.0.1:8811" not in text


def test_game_mails_name_the_site(started, smtp_server, settings):  # noqa: F811
    settings.SITE_NAME = "Los Grandes"
    game, _ = started(2)
    assert [message["Subject"].startswith(f"[Los Grandes] Game {game.pk} has started")
            for _, message in smtp_server.messages] == [True, True]
