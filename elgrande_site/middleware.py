"""Requests refused before any view sees them, and requests the database could not serve."""

import logging
import sys

from django.conf import settings
from django.core.exceptions import BadRequest
from django.core.signals import got_request_exception
from django.db import OperationalError
from django.http import HttpResponse
from django.template.loader import render_to_string

from elgrande_site import database

logger = logging.getLogger(__name__)

# Seconds after which a browser (or a proxy) may try a page the database could not serve again.
RETRY_AFTER = 10


class DatabaseUnavailable:
    """A request whose database did not answer (refused, out of connections, silent past
    DATABASE_WAIT_LIMIT: elgrande_site.database) gets the 503 page, not a server error: nothing is
    wrong with the request nor the site's code, and the same page works again in a moment.

    The failure may come from a view or from another middleware (the session, the signed-in user),
    whose exceptions Django turns into a 500 response before they reach this one: the exception is
    noted on the request when Django handles it (got_request_exception), and the response replaced
    here. Django still logs it as an error."""

    def __init__(self, get_response):
        self.get_response = get_response
        got_request_exception.connect(_note_database_error, dispatch_uid="elgrande_site.DatabaseUnavailable")

    def __call__(self, request):
        with database.bounded(settings.DATABASE_WAIT_LIMIT, settings.DATABASE_CHECK_LIMIT):
            response = self.get_response(request)
        if response.status_code == 500 and getattr(request, "database_unavailable", False):
            page = unavailable()
            # The headers the other middleware gave the error (security, caching) stay.
            for name, value in response.items():
                if name.lower() not in {"content-type", "content-length"}:
                    page.headers.setdefault(name, value)
            return page
        return response

    def process_exception(self, request, exception):
        # A view's failure is answered here, before Django's handling: with DEBUG its error page
        # shows the views' querysets, and would wait on the database again for each.
        if isinstance(exception, OperationalError):
            logger.error("%s: the database did not serve the request: %s", request.path, exception)
            return unavailable()
        return None


def unavailable():
    response = HttpResponse(render_to_string("503.html"), status=503)
    response["Retry-After"] = str(RETRY_AFTER)
    return response


def _note_database_error(sender, request=None, **kwargs):
    # Sent while Django handles the exception: it is the one being handled.
    if request is not None and isinstance(sys.exc_info()[1], OperationalError):
        request.database_unavailable = True


class RefuseNulInPath:
    """An address with %00 in it hands a NUL to whichever view its <str:...> part reaches (a
    player's name, an invitation token, allauth's keys), and PostgreSQL refuses to compare text
    holding one: the lookup failed with a server error. No address of the site has one, so the
    request is refused with 400 at once."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path:
            raise BadRequest("A NUL character in the address.")
        return self.get_response(request)
