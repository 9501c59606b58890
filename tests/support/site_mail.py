"""A real SMTP server (aiosmtpd) for the site's mail, as the `smtp_server` fixture, and the helpers that
sign up and read the mails it received."""

import email
from contextlib import contextmanager
from email import policy

import pytest
from aiosmtpd.controller import Controller
from django.urls import reverse

from elgrande_site.email_url import email_settings
from tests.support.helpers import free_port


class Mailbox:
    """aiosmtpd handler that keeps every message it receives."""

    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.original_content, policy=policy.default)
        self.messages.append((envelope.rcpt_tos, message))
        return "250 Message accepted for delivery"

    def take(self):
        """The one message received since the last take, as (recipients, message)."""
        assert len(self.messages) == 1, [m["Subject"] for _, m in self.messages]
        return self.messages.pop()


def mail_through(settings, tmp_path, port):
    """The site as EMAIL_URL would configure it for a local relay without TLS on `port`."""
    for name, value in email_settings(f"smtp://127.0.0.1:{port}?starttls=off", file_path=tmp_path).items():
        setattr(settings, name, value)


@contextmanager
def serving_mailbox(settings, tmp_path):
    """A real SMTP server (aiosmtpd) on a free port, the site's mail going to it: its Mailbox."""
    port = free_port()
    mailbox = Mailbox()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    mail_through(settings, tmp_path, port)
    try:
        yield mailbox
    finally:
        controller.stop()


@pytest.fixture
def smtp_server(settings, tmp_path):
    with serving_mailbox(settings, tmp_path) as mailbox:
        settings.DEFAULT_FROM_EMAIL = "El Grande <games@example.org>"
        yield mailbox


def sign_up(client, password, username="isabel", **extra):
    return client.post(
        reverse("account_signup"),
        {"username": username, "email": "isabel@example.org", "password1": password, "password2": password},
        **extra,
    )


def body(message):
    return message.get_body(preferencelist=("plain",)).get_content()


def html_part(message):
    return message.get_body(preferencelist=("html",)).get_content()
