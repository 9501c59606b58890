"""Account mail (allauth's): the site named as in every other mail, and an address confirmation
the mail server did not take, kept in the outbox to be sent again."""

from types import SimpleNamespace
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone

from games.mail import kinds, outbox
from games.models import Notification


def mail_site():
    """The site as account mails name it (allauth's `current_site`): SITE_NAME at SITE_URL's host,
    not the host the request came to (an address such as 127.0.0.1:8811 behind a proxy)."""
    return SimpleNamespace(name=settings.SITE_NAME, domain=urlsplit(settings.SITE_URL).netloc)


def keep_account_mail(message, error, now=None):
    """Keep an account mail (an EmailMultiAlternatives that allauth rendered) whose sending just
    failed, for the sweep to try again on the back-off of every other mail. It goes to its
    address, whoever's it is (an address being confirmed is not yet the account's), without an
    unsubscribe link: the player asked for it."""
    now = now or timezone.now()
    html = next((content for content, kind in message.alternatives if kind == "text/html"), "")
    # A newer confirmation of the same address replaces one still waiting: one mail, not two.
    Notification.objects.filter(
        kind=kinds.ACCOUNT_MAIL, address__iexact=message.to[0],
        status__in=[Notification.Status.PENDING, Notification.Status.FAILED],
    ).update(status=Notification.Status.DROPPED, next_attempt_at=None, **outbox.FORGOTTEN_BODY)
    return Notification.objects.create(
        user=None, address=message.to[0], game=None, version=0, kind=kinds.ACCOUNT_MAIL,
        subject=message.subject[:200], text=message.body, html=html,
        status=Notification.Status.FAILED, attempts=1, last_error=f"{type(error).__name__}: {error}"[:2000],
        next_attempt_at=now + outbox.FIRST_RETRY_AFTER,
    )
