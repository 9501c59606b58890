"""EMAIL_URL: one variable for the SMTP server, as DATABASE_URL is for the database."""

import os
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from elgrande_site.email_url import email_settings
from tests.support.settings_process import python

ROOT = Path(__file__).resolve().parents[2]


def test_without_a_url_mail_is_written_to_files():
    assert email_settings("", file_path="/srv/site/sent_mail") == {
        "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
        "EMAIL_FILE_PATH": "/srv/site/sent_mail",
    }


def test_smtp_uses_starttls_with_the_decoded_user_and_password():
    assert email_settings("smtp://mailer%40example.org:p%40ss%3Aword@mail.example.org:587", file_path="x") == {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "mail.example.org",
        "EMAIL_PORT": 587,
        "EMAIL_HOST_USER": "mailer@example.org",
        "EMAIL_HOST_PASSWORD": "p@ss:word",
        "EMAIL_USE_SSL": False,
        "EMAIL_USE_TLS": True,
    }


def test_smtps_uses_tls_from_the_start_on_port_465_by_default():
    settings = email_settings("smtps://user:secret@mail.example.org", file_path="x")
    assert (settings["EMAIL_PORT"], settings["EMAIL_USE_SSL"], settings["EMAIL_USE_TLS"]) == (465, True, False)


def test_a_local_relay_without_tls_is_asked_for_explicitly():
    settings = email_settings("smtp://localhost:25?starttls=off", file_path="x")
    assert (settings["EMAIL_HOST"], settings["EMAIL_PORT"], settings["EMAIL_USE_TLS"]) == ("localhost", 25, False)
    assert (settings["EMAIL_HOST_USER"], settings["EMAIL_HOST_PASSWORD"]) == ("", "")


@pytest.mark.parametrize(
    "url, message",
    [
        ("http://mail.example.org", "must start with smtp:// or smtps://"),
        ("smtp://", "names no host"),
        ("smtp://mail.example.org:99999", "bad port"),
        ("smtp://mail.example.org?tls=on", "unknown options: tls"),
    ],
)
def test_a_bad_url_stops_the_site_with_a_reason(url, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        email_settings(url, file_path="x")


def site_mail_settings(**env):
    """The mail settings the site starts with under `env` (and no EMAIL_URL of the caller's)."""
    code = (
        "from django.conf import settings as s; "
        "print(s.EMAIL_BACKEND, getattr(s, 'EMAIL_FILE_PATH', None), "
        "getattr(s, 'EMAIL_HOST', None), s.DEFAULT_FROM_EMAIL)"
    )
    environment = {key: value for key, value in os.environ.items() if key not in ("EMAIL_URL", "DEFAULT_FROM_EMAIL")}
    environment.update(DJANGO_SETTINGS_MODULE="elgrande_site.settings", PYTHONPATH=str(ROOT), **env)
    result = python(f"import django; django.setup(); {code}", environment, check=True)
    return result.stdout.split(" ", 3)


def test_the_embedded_site_writes_mail_under_sent_mail():
    backend, path, _, sender = site_mail_settings()
    assert backend == "django.core.mail.backends.filebased.EmailBackend"
    assert path == str(ROOT / "sent_mail")
    assert sender.strip() == "El Grande <elgrande@localhost>"


def test_the_site_sends_through_the_server_email_url_names():
    backend, _, host, sender = site_mail_settings(
        EMAIL_URL="smtp://mail.example.org:587", DEFAULT_FROM_EMAIL="games@example.org"
    )
    assert backend == "django.core.mail.backends.smtp.EmailBackend"
    assert (host, sender.strip()) == ("mail.example.org", "games@example.org")
