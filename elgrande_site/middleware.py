"""Requests refused before any view sees them, and the site's own error pages."""

import logging
import time

from django.conf import settings
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.http import Http404
from django.urls import Resolver404
from django.views import defaults

from . import metrics

request_log = logging.getLogger("elgrande.requests")
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


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


class RefuseUndecodableForm:
    """A form posted in another charset than UTF-8 (`charset=utf-16`) makes Django's request.POST
    raise BadRequest each time it is read; the CSRF check of the 400 page read it again, and the
    request ended in a server error. Read once here: a body that cannot be read is refused with
    400, and the request is left with an empty POST for the error page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method == "POST":
            try:
                request.POST  # noqa: B018 -- reading it is the check
            except BadRequest:
                request._mark_post_parse_error()
                raise
        return self.get_response(request)


# Every technical page of Django's (django/views/templates/technical_*.html) carries this line.
TECHNICAL_PAGE = b'<meta name="robots" content="NONE,NOARCHIVE">'
OWN_PAGES = {
    400: lambda request: defaults.bad_request(request, BadRequest()),
    404: lambda request: defaults.page_not_found(request, Resolver404()),
    500: defaults.server_error,
}


class OwnErrorPagesInDebug:
    """With DEBUG on (`make run`), Django answers a missing page, a bad request or a server error
    with its technical pages, which list the site's addresses and settings: players trying the
    embedded site met one on a deleted player's profile. The site's own pages are shown instead,
    as with DEBUG off; a server error's traceback still goes to the console log."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            settings.DEBUG
            and response.status_code in OWN_PAGES
            and not response.streaming
            and TECHNICAL_PAGE in response.content
        ):
            # Raised outside a view (no address matched, a middleware refused the request): Django
            # made its technical page already, and logged a server error's traceback.
            return OWN_PAGES[response.status_code](request)
        return response

    def process_exception(self, request, exception):
        if not settings.DEBUG or isinstance(exception, PermissionDenied):
            return None  # DEBUG off: Django's own handlers show these pages; 403 shows them in DEBUG too
        if isinstance(exception, Http404):
            return defaults.page_not_found(request, exception)
        if isinstance(exception, (BadRequest, SuspiciousOperation)):
            return defaults.bad_request(request, exception)
        logging.getLogger("django.request").error(
            "Internal Server Error: %s", request.path, exc_info=exception, extra={"request": request}
        )
        return defaults.server_error(request)


class LogRequests:
    """One line per request at INFO (method, path, status, milliseconds, view), and the request
    and move metrics (elgrande_site/metrics.py)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        seconds = time.perf_counter() - started
        match = getattr(request, "resolver_match", None)
        view = match.view_name if match else "unrouted"
        metrics.REQUEST_SECONDS.labels(view, request.method if request.method in METHODS else "other").observe(seconds)
        if view == "move" and request.method == "POST":
            metrics.MOVES.labels("accepted" if response.status_code < 300 else "refused").inc()
        request_log.info(
            "%s %s %s %.1fms %s", request.method, request.path, response.status_code, seconds * 1000, view,
            extra={"method": request.method, "path": request.path, "status": response.status_code,
                   "ms": round(seconds * 1000, 1), "view": view},
        )
        return response
