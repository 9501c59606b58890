import logging
import smtplib

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core import context
from django import forms
from django.contrib import messages
from django.core.exceptions import ImproperlyConfigured
from django.db.models import Q
from django.utils.translation import gettext as _

logger = logging.getLogger(__name__)

DELETED_PREFIX = "deleted-"


class AccountAdapter(DefaultAccountAdapter):
    def clean_username(self, username, shallow=False):
        # Deleted accounts are renamed deleted-<id>; nobody may take such a name before them.
        if username.lower().startswith(DELETED_PREFIX):
            raise forms.ValidationError(
                _("A username may not start with “%(prefix)s”.") % {"prefix": DELETED_PREFIX}
            )
        return super().clean_username(username, shallow=shallow)

    def get_client_ip(self, request):
        """The client's address, which the rate limits count by: behind TRUSTED_PROXY_COUNT proxies
        of the site's own, the one the first of them saw (allauth reads X-Forwarded-For). A
        request that names fewer hops than that did not come through them all (allauth calls
        that a misconfiguration, a 500): its own connection's address counts."""
        try:
            return super().get_client_ip(request)
        except ImproperlyConfigured:
            return request.META["REMOTE_ADDR"]

    def _get_login_attempts_cache_key(self, request, **credentials):
        """The wrong passwords are counted per account, whichever of its logins (the username, an
        address) was typed: otherwise each login had its five tries. An unknown login is counted
        as typed."""
        from .models import User

        login = credentials.get("email", credentials.get("username", ""))
        named = Q(username__iexact=login) | Q(email__iexact=login) | Q(emailaddress__email__iexact=login)
        user_id = User.objects.filter(named).values_list("pk", flat=True).first()
        if user_id is None:
            return super()._get_login_attempts_cache_key(request, **credentials)
        return f"account:{user_id}"

    def send_mail(self, template_prefix, email, context_data):
        """Account mails (confirmation, reset) are sent while the player waits. A mail server that
        is down must not turn the sign-up into an error page: the account is made, the failure
        is logged, and the player is told to ask for the mail again later."""
        try:
            super().send_mail(template_prefix, email, context_data)
        except (OSError, smtplib.SMTPException):
            logger.exception("Could not send the %s mail to %s", template_prefix, email)
            if context.request is not None:
                messages.error(
                    context.request,
                    _(
                        "We could not send the mail to %(email)s just now: the mail server did not "
                        "take it. Please ask for it again in a while."
                    )
                    % {"email": email},
                )
