"""The site as every mail names it, whatever host a request came to: links on SITE_URL, the
subject's prefix, Message-IDs in SITE_URL's domain."""

from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import make_msgid
from django.urls import reverse


def absolute(path):
    return settings.SITE_URL.rstrip("/") + path


def subject_prefix():
    """What every mail's subject starts with: the site's name, "[El Grande] "."""
    return f"[{settings.SITE_NAME}] "


def message_id():
    """A Message-ID in the site's own domain (SITE_URL's host) rather than the machine's name,
    Django's default (often `localhost`), which receiving servers hold against a mail."""
    return make_msgid(domain=urlsplit(settings.SITE_URL).hostname)


def play_url(game):
    """The link that opens the game at the decision, through the log-in page if need be."""
    return absolute(reverse("play_link", args=[game.pk]))
