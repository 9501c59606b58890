import logging
import smtplib

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core import context
from django import forms
from django.contrib import messages
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
