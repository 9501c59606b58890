"""One-click unsubscribe: the signed token in each mail's link and the action that switches off the
setting it names. Links in mail already sent were signed with UNSUBSCRIBE_SALT: it never changes."""

from django.core import signing
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.models import User
from games.mail import kinds, links
from games.models import MailOptOut

UNSUBSCRIBE_SALT = "games.notifications.unsubscribe"


def unsubscribe_token(kind, user=None, address=""):
    """A signed token naming the recipient and the setting the link switches off."""
    setting = kinds.SETTING_OF_KIND[kind]
    payload = {"u": user.pk, "k": setting} if user is not None else {"a": address.lower(), "k": setting}
    # No time stamp: the link in an old mail keeps working, and one user's link for a kind is stable.
    return signing.Signer(salt=UNSUBSCRIBE_SALT).sign_object(payload, compress=True)


def unsubscribe_url(kind, user=None, address=""):
    return links.absolute(reverse("unsubscribe", args=[unsubscribe_token(kind, user, address)]))


def unsubscribe(token):
    """Switch off what the token names. Returns a sentence for the page; raises ValueError for a
    token we did not sign."""
    try:
        payload = signing.Signer(salt=UNSUBSCRIBE_SALT).unsign_object(token)
        setting = payload["k"]
        label = kinds.SETTING_LABELS[setting]
    except (signing.BadSignature, KeyError, TypeError):
        raise ValueError(_("This unsubscribe link is not valid (it may have been cut short).")) from None
    if "u" in payload:
        field = f"notify_{setting}"
        User.objects.filter(pk=payload["u"]).update(**{field: False})
    else:
        MailOptOut.objects.get_or_create(address=payload["a"])
    return _("You will get no more %(what)s. You can switch them on again in your settings.") % {"what": label}


def describe_unsubscribe(token):
    try:
        return kinds.SETTING_LABELS[signing.Signer(salt=UNSUBSCRIBE_SALT).unsign_object(token)["k"]]
    except (signing.BadSignature, KeyError, TypeError):
        raise ValueError(_("This unsubscribe link is not valid (it may have been cut short).")) from None
