import logging
import re
import smtplib
from urllib.parse import urlencode

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.internal.userkit import filter_users_by_email, get_user_by_username
from allauth.account.utils import get_next_redirect_url
from allauth.core import context, ratelimit
from django import forms
from django.contrib import messages
from django.core.exceptions import ImproperlyConfigured, PermissionDenied
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.encoding import force_str
from django.utils.html import escape, linebreaks
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.mail import account_mail, links

from . import usernames

logger = logging.getLogger(__name__)

DELETED_PREFIX = "deleted-"
# The links of an account mail: the site's own, which allauth writes in full. Only these are made
# links in its HTML part, not a username that looks like a domain.
LINK = re.compile(r"https?://[^\s<>\"']+")
# The account mails tried again when the mail server refused them: the address confirmations. A
# confirmation link only confirms the address it was sent to, where a reset link opens the account.
KEPT_WHEN_REFUSED = ("account/email/email_confirmation_signup", "account/email/email_confirmation")
# The rate limit (settings.ACCOUNT_RATE_LIMITS) of wrong passwords per account, whichever of its
# logins was typed; allauth's own "login_failed" counts per login as typed.
ACCOUNT_FAILED = "login_failed_account"
# The one answer to a log-in that does not log in, whatever was typed: allauth says "username" or
# "email address" after what was typed, and a locked account must answer as a wrong password does.
WRONG_LOGIN = gettext_lazy("Wrong username, email address or password.")


class AccountAdapter(DefaultAccountAdapter):
    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "username_password_mismatch": WRONG_LOGIN,
        "email_password_mismatch": WRONG_LOGIN,
    }

    def clean_username(self, username, shallow=False):
        """A new username: in NFKC form, neither an address, nor invisible in part, nor like another
        player's (accounts/usernames.py), nor a deleted account's."""
        username = usernames.normalize(username)
        # Deleted accounts are renamed deleted-<id>; nobody may take such a name before them.
        if username.lower().startswith(DELETED_PREFIX):
            raise forms.ValidationError(
                _("A username may not start with “%(prefix)s”.") % {"prefix": DELETED_PREFIX}
            )
        # Before allauth's checks: a username that is another's address is refused as an address.
        usernames.refuse_address(username)
        usernames.refuse_invisible(username)
        username = super().clean_username(username, shallow=shallow)
        if not shallow:
            usernames.refuse_lookalike(username)
        return username

    def get_client_ip(self, request):
        """The client's address, which the rate limits count by: behind TRUSTED_PROXY_COUNT proxies
        of the site's own, the one the first of them saw (allauth reads X-Forwarded-For). A
        request that names fewer hops than that did not come through them all (allauth calls
        that a misconfiguration, a 500): the address it came from (REMOTE_ADDR, which may be
        one of those proxies, shared by all such requests) counts instead; without one (a server
        on a Unix socket that names no client), the request is refused as allauth refuses it."""
        try:
            return super().get_client_ip(request)
        except ImproperlyConfigured:
            address = request.META.get("REMOTE_ADDR")
            if not address:
                raise PermissionDenied("Unable to determine client IP address") from None
            return address

    def format_email_subject(self, subject):
        """The site's name (SITE_NAME) before the subject, as in every game mail: allauth's default
        names the host the request came to."""
        return links.subject_prefix() + force_str(subject)

    def authenticate(self, request, **credentials):
        """allauth's log-in, and a lock per account: five wrong passwords within five minutes by
        any of its logins (username or address) and even the right one no longer logs in, until
        they are older or the password is reset. Nothing tells the visitor so: the answer is the
        one to a wrong password, which it is also counted as by the login typed (allauth's own
        lock, which says "too many attempts" for that login whoever's it is). Told, a locked
        username would say which address is its account's; and a right password not counted
        as wrong would show itself when the lock of the login typed came later."""
        user = super().authenticate(request, **credentials)
        if user is not None and not ratelimit.consume(
            request, action=ACCOUNT_FAILED, key=self._account_key(user), dry_run=True
        ):
            typed = self._get_login_attempts_cache_key(request, **credentials)
            ratelimit.consume(request, action="login_failed", key=typed)
            return None
        return user

    def authentication_failed(self, request, **credentials):
        """A wrong password counts against the account the login names, read the way allauth
        reads it (an address, or a username, never both)."""
        super().authentication_failed(request, **credentials)
        for user in self._accounts_named(credentials):
            ratelimit.consume(request, action=ACCOUNT_FAILED, key=self._account_key(user))

    def _delete_login_attempts_cached_email(self, request, **credentials):
        """A password reset (through the link mailed to the address) lifts the account's lock too:
        the way back in for its owner."""
        super()._delete_login_attempts_cached_email(request, **credentials)
        for user in self._accounts_named(credentials):
            ratelimit.clear(request, action=ACCOUNT_FAILED, key=self._account_key(user))

    @staticmethod
    def _accounts_named(credentials):
        if "email" in credentials:
            return filter_users_by_email(credentials["email"], prefer_verified=True, for_login=True)
        user = get_user_by_username(credentials.get("username") or "")
        return [user] if user is not None else []

    @staticmethod
    def _account_key(user):
        return f"account:{user.pk}"

    def get_email_confirmation_url(self, request, emailconfirmation):
        """allauth's confirmation link, carrying the sign-up's `next` (a game the new player was
        invited to): allauth's confirmation page posts it on and goes there once the address is
        confirmed, also in a browser other than the sign-up's, where the link does not log in."""
        url = super().get_email_confirmation_url(request, emailconfirmation)
        following = get_next_redirect_url(request) if request is not None else None
        return f"{url}?{urlencode({'next': following})}" if following else url

    def render_mail(self, template_prefix, email, context, headers=None):
        """allauth's account mails (confirmation, password reset...) have a text part only: each
        gets an HTML part too, the same words (escaped) with its links made links. Its Message-ID
        names the site's domain, as every other mail's does."""
        headers = {"Message-ID": links.message_id(), **(headers or {})}
        message = super().render_mail(template_prefix, email, context, headers=headers)
        if isinstance(message, EmailMultiAlternatives) and not message.alternatives:
            linked = LINK.sub(lambda found: f'<a href="{found[0]}">{found[0]}</a>', escape(message.body))
            html = render_to_string(
                "email/account.html", {"subject": message.subject, "body": mark_safe(linebreaks(linked))}
            )
            message.attach_alternative(html, "text/html")
        return message

    @staticmethod
    def _recipient_language(email, context_data):
        """The language setting of the account `email` belongs to (the mail's `user` when it names
        one), or None (the active language) when it has none."""
        user = context_data.get("user")
        if getattr(user, "language", None) is None:
            users = filter_users_by_email(email, prefer_verified=True)
            user = users[0] if len(users) == 1 else None
        return getattr(user, "language", "") or None

    def send_mail(self, template_prefix, email, context_data):
        """Account mails are sent while the player waits, as allauth sends them. A mail server
        that does not take one must not turn the page into an error: the failure is logged and
        the player is told. An address confirmation is kept and tried again on the back-off of
        every other mail (over a day, by the deadline sweep: account_mail.keep_account_mail);
        a password reset is not (its link would open the account to whoever reads it in the
        database meanwhile): the player asks for it again."""
        request = context.request
        if request is not None:
            # allauth builds its links from the host the request came to (a proxy's
            # 127.0.0.1:8811): on SITE_URL, as every game mail's.
            origin = request.build_absolute_uri("/")
            context_data = {
                name: links.absolute("/" + value[len(origin):])
                if isinstance(value, str) and value.startswith(origin) else value
                for name, value in context_data.items()
            }
        # In the language of the account the address is its, as every other mail: a password reset
        # asked from a browser in French comes to an Italian player in Italian. An address of no
        # account (a new one's confirmation) is written in the page's language.
        with translation.override(self._recipient_language(email, context_data)):
            message = self.render_mail(
                template_prefix, email,
                {"request": request, "email": email, "current_site": account_mail.mail_site(), **context_data},
            )
        try:
            message.send()
        except (OSError, smtplib.SMTPException) as error:
            logger.exception("Could not send the %s mail to %s", template_prefix, email)
            kept = template_prefix in KEPT_WHEN_REFUSED
            if kept:
                try:
                    account_mail.keep_account_mail(message, error)
                except Exception:
                    logger.exception("Could not keep the %s mail to %s to try again", template_prefix, email)
                    kept = False
            if request is not None:
                if kept:
                    text = _(
                        "We could not send the mail to %(email)s just now: the mail server did not "
                        "take it. We will try again over the next day; you may also ask for it again."
                    )
                else:
                    text = _(
                        "We could not send the mail to %(email)s just now: the mail server did not "
                        "take it. Please ask for it again in a while."
                    )
                messages.error(request, text % {"email": email})
