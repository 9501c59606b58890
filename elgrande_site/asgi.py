"""ASGI entry point: plain HTTP goes to Django, WebSockets to the Channels consumers."""

import asyncio
import atexit
import io
import os
from urllib.parse import urlsplit

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "elgrande_site.settings")

# Django must be set up before the consumers (and through them the models) are imported; as
# django.core.asgi.get_asgi_application does, with the handler of elgrande_site/http_handler.py.
django.setup(set_prefix=False)

from elgrande_site.http_handler import OneHopASGIHandler  # noqa: E402

django_asgi_app = OneHopASGIHandler()

from channels.auth import AuthMiddleware, get_user  # noqa: E402
from channels.db import database_sync_to_async  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import WebsocketDenier  # noqa: E402
from channels.sessions import CookieMiddleware, SessionMiddleware  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.exceptions import DisallowedHost  # noqa: E402
from django.core.handlers.asgi import ASGIRequest  # noqa: E402
from django.urls import re_path  # noqa: E402
from django.utils.http import is_same_domain  # noqa: E402

from elgrande_site import collector, database, metrics, shutdown  # noqa: E402
from games import broadcast, deadlines  # noqa: E402
from games.live.routing import websocket_urlpatterns  # noqa: E402


class Refusal(WebsocketDenier):
    """Refuses the socket, without a channel layer: a socket that is refused at once has nothing
    to hear, so it costs no Redis connection and no receive to cancel."""

    channel_layer_alias = None


class SameOriginOnly:
    """Refuses (with a Refusal) a socket whose Origin is not the site itself as Django's CSRF check
    sees it: the scheme, host and port of the request, its host one of ALLOWED_HOSTS, or one of
    CSRF_TRUSTED_ORIGINS. channels' own check compared host names only, so a page served from
    another port or scheme of the same host (http://127.0.0.1:9999) could open the site's sockets."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if not same_origin(scope):
            return await Refusal.as_asgi()(scope, receive, send)
        return await self.application(scope, receive, send)


def same_origin(scope):
    origin = next((value.decode("latin1") for name, value in scope.get("headers", []) if name == b"origin"), None)
    if not origin:
        return False
    # The handshake as Django would read it: its Host header, and X-Forwarded-Proto where trusted.
    scheme = "https" if scope.get("scheme") in ("wss", "https") else "http"
    request = ASGIRequest({**scope, "type": "http", "method": "GET", "scheme": scheme}, io.BytesIO())
    try:
        if origin == f"{request.scheme}://{request.get_host()}":
            return True
    except DisallowedHost:
        pass
    if origin in settings.CSRF_TRUSTED_ORIGINS:
        return True
    try:
        parsed = urlsplit(origin)
    except ValueError:
        return False
    return any(
        "*" in trusted and urlsplit(trusted).scheme == parsed.scheme
        and is_same_domain(parsed.netloc, urlsplit(trusted).netloc.replace("*", ""))
        for trusted in settings.CSRF_TRUSTED_ORIGINS
    )


# channels' look-up of a socket's session and user, its waits on the database bounded as a request's
# (elgrande_site.database.bounded_calls): channels runs it in the one thread every socket's look-ups
# share, which a pooled connection gone silent held for good.
bounded_get_user = database_sync_to_async(database.bounded_calls(get_user.func))


class BoundedAuthMiddleware(AuthMiddleware):
    async def resolve_scope(self, scope):
        scope["user"]._wrapped = await bounded_get_user(scope)


def AuthMiddlewareStack(inner):  # noqa: N802 - as channels names its own
    return CookieMiddleware(SessionMiddleware(BoundedAuthMiddleware(inner)))


class CountSockets:
    """Keeps the open WebSockets' gauge (elgrande_site/metrics.py): one more from the accepted
    handshake until the socket's application ends."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        accepted = False

        async def counting_send(message):
            nonlocal accepted
            if message["type"] == "websocket.accept" and not accepted:
                accepted = True
                metrics.SOCKETS.inc()
            await send(message)

        try:
            return await self.application(scope, receive, counting_send)
        finally:
            if accepted:
                metrics.SOCKETS.dec()


router = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": CountSockets(SameOriginOnly(
            # Any other path is refused (403) rather than failing the router with an exception.
            AuthMiddlewareStack(URLRouter([*websocket_urlpatterns, re_path(r"", Refusal.as_asgi())]))
        )),
        # Uvicorn's start and end of the process (elgrande_site/shutdown.py).
        "lifespan": shutdown.lifespan,
    }
)


async def application(scope, receive, send):
    # The notices that the embedded site's background threads send go through this loop
    # (games/broadcast.py).
    broadcast.serving_on(asyncio.get_running_loop())
    return await router(scope, receive, send)


# Servers (Daphne, `manage.py runserver`) import this module once per process as they start, so
# the embedded site sweeps its deadlines from then on, whether or not any request ever comes.
if settings.DEADLINE_TICKER:
    deadlines.start_ticker()

# And as the process ends under a server that has no ASGI lifespan (Daphne), the database
# connections its threads keep are given back and its pool closed (elgrande_site/shutdown.py).
atexit.register(shutdown.at_exit)

# Everything loaded by now lives as long as the process: out of the cycle collector's way.
collector.tune()
