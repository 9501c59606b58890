"""ASGI entry point: plain HTTP goes to Django, WebSockets to the Channels consumers."""

import asyncio
import os
from urllib.parse import urlparse

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "elgrande_site.settings")

# Django must be set up before the consumers (and through them the models) are imported.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import (  # noqa: E402
    AllowedHostsOriginValidator,
    OriginValidator,
    WebsocketDenier,
)
from django.conf import settings  # noqa: E402
from django.urls import re_path  # noqa: E402

from games import broadcast, deadlines  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402


class Refusal(WebsocketDenier):
    """Refuses the socket, without a channel layer: a socket that is refused at once has nothing
    to hear, so it costs no Redis connection and no receive to cancel."""

    channel_layer_alias = None


class OriginRefusal(OriginValidator):
    """channels' check of the Origin header against the allowed hosts, refusing a foreign one with
    a Refusal: channels' own refuses with a consumer that opens a receive on the channel layer,
    which a page of another site could make the site's sockets do at will."""

    async def __call__(self, scope, receive, send):
        origin = None
        for name, value in scope.get("headers", []):
            if name == b"origin":
                origin = urlparse(value.decode("latin1"))
        if not self.valid_origin(origin):
            return await Refusal.as_asgi()(scope, receive, send)
        return await self.application(scope, receive, send)


def allowed_hosts_only(application):
    # The hosts channels' AllowedHostsOriginValidator allows (ALLOWED_HOSTS, or the local ones in
    # DEBUG when there are none).
    return OriginRefusal(application, AllowedHostsOriginValidator(application).allowed_origins)


router = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": allowed_hosts_only(
            # Any other path is refused (403) rather than failing the router with an exception.
            AuthMiddlewareStack(URLRouter([*websocket_urlpatterns, re_path(r"", Refusal.as_asgi())]))
        ),
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
