"""Requests refused before any view sees them, requests the database could not serve, the site's
own error pages, and the log line of each request."""

import logging
import sys
import time

from django.conf import settings
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.core.signals import got_request_exception
from django.db import OperationalError
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import Resolver404, reverse
from django.utils.translation import gettext as _
from django.views import defaults

from elgrande_site import database

from . import metrics

logger = logging.getLogger(__name__)
request_log = logging.getLogger("elgrande.requests")
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

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
        with database.bounded_as_a_request():
            response = self.get_response(request)
        if response.status_code == 500 and getattr(request, "database_unavailable", False):
            return instead_of(response, unavailable())
        return response

    def process_exception(self, request, exception):
        # A view's failure is answered here, before Django's handling: with DEBUG its error page
        # shows the views' querysets, and would wait on the database again for each.
        if isinstance(exception, OperationalError):
            logger.error("%s: the database did not serve the request: %s", request.path, exception)
            return unavailable()
        return None


def instead_of(response, page):
    """`page` in place of `response`, keeping the headers the other middleware gave it (security,
    caching)."""
    for name, value in response.items():
        if name.lower() not in {"content-type", "content-length"}:
            page.headers.setdefault(name, value)
    # Django logs a 4xx or 5xx answer once (django.utils.log.log_response): the refusal it stands
    # for was logged already, and the page is not logged again.
    if getattr(response, "_has_been_logged", False):
        page._has_been_logged = True
    return page


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
            return instead_of(response, OWN_PAGES[response.status_code](request))
        return response

    def process_exception(self, request, exception):
        if not settings.DEBUG or isinstance(exception, (PermissionDenied, OperationalError)):
            # DEBUG off: Django's own handlers show these pages; 403 shows them in DEBUG too; a
            # database that did not answer is DatabaseUnavailable's 503.
            return None
        if isinstance(exception, Http404):
            return defaults.page_not_found(request, exception)
        if isinstance(exception, (BadRequest, SuspiciousOperation)):
            return defaults.bad_request(request, exception)
        logging.getLogger("django.request").error(
            "Internal Server Error: %s", request.path, exc_info=exception, extra={"request": request}
        )
        return defaults.server_error(request)


class ExplainMethodNotAllowed:
    """Django's answer to a GET of an address that takes only a form's POST (require_POST) is a
    405 with an empty body: a blank page. A player meets it by reloading or restoring a page that a
    refused post rendered at the form's address (a move without JavaScript, a withdrawal without
    its tick, a CSRF refusal), or by opening such an address copied from the bar. The 405 keeps its
    status and Allow header, with a page saying that nothing was changed and a link back to the
    game or tournament the address names. Last of the middleware: the player and language are known."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # A GET only: that is what reloading, restoring or opening an address does. Another method
        # refused (a POST to a page's address) is no page a player opens; it keeps Django's answer.
        if response.status_code != 405 or response.streaming or response.content or request.method != "GET":
            return response
        return instead_of(response, render(request, "405.html", _back(request), status=405))


def _back(request):
    """Where the 405 page links: the game or the tournament its address names, else the lobby."""
    match = request.resolver_match
    kwargs = match.kwargs if match is not None else {}
    if "pk" in kwargs and match.url_name in GAME_ADDRESSES:
        return {"back_url": reverse("game", args=[kwargs["pk"]]), "back_label": _("Back to the game")}
    if "tournament_id" in kwargs:
        return {"back_url": reverse("tournament", args=[kwargs["tournament_id"]]),
                "back_label": _("Back to the tournament")}
    return {"back_url": reverse("lobby"), "back_label": _("Back to the lobby")}


# The addresses (games/urls.py) whose <pk> is a game's.
GAME_ADDRESSES = frozenset({
    "game", "game_partial", "invitation", "join", "leave", "cancel", "hand_seat_to_computer", "take_back_seat",
    "answers_ahead", "move", "chat", "chat_mute", "play_link", "invite", "game_record",
})


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
