"""The Message-ID of every mail names the site's domain (SITE_URL's host), not the machine's name
(Django's default, often `localhost`): read from mails received by a real SMTP server."""

import re

import pytest

from tests.support.site_mail import sign_up
from tests.support.site_mail import smtp_server as smtp_server  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

# conftest's SITE_URL is https://elgrande.example.org.
IN_THE_SITES_DOMAIN = re.compile(r"<[^@<>]+@elgrande\.example\.org>")


def test_game_mails_have_message_ids_in_the_sites_domain(started, smtp_server):  # noqa: F811
    started(3)
    assert len(smtp_server.messages) == 3
    ids = [message["Message-ID"] for _, message in smtp_server.messages]
    assert all(IN_THE_SITES_DOMAIN.fullmatch(id_) for id_ in ids), ids
    assert len(set(ids)) == 3


def test_account_mails_have_message_ids_in_the_sites_domain(client, smtp_server, password):  # noqa: F811
    sign_up(client, password)
    _, message = smtp_server.take()
    assert message["Subject"].startswith("[El Grande] ")
    assert IN_THE_SITES_DOMAIN.fullmatch(message["Message-ID"]), message["Message-ID"]
