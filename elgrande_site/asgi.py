"""ASGI entry point: plain HTTP goes to Django, WebSockets to the Channels consumers."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "elgrande_site.settings")

# Django must be set up before the consumers (and through them the models) are imported.
django_asgi_app = get_asgi_application()

from asgiref.sync import sync_to_async  # noqa: E402
from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator, WebsocketDenier  # noqa: E402
from django.conf import settings  # noqa: E402
from django.urls import re_path  # noqa: E402

from games.routing import websocket_urlpatterns  # noqa: E402
from games.tasks import resume_deadlines  # noqa: E402


class ResumeDeadlinesOnFirstRequest:
    """In the embedded mode deadlines wait in this process's memory: after a (re)start, the first
    HTTP request queues every running game's deadline again, so no game is left stalled."""

    def __init__(self, app):
        self.app = app
        self.resumed = False

    async def __call__(self, scope, receive, send):
        if not self.resumed and scope["type"] == "http":
            self.resumed = True
            await sync_to_async(resume_deadlines)()
        return await self.app(scope, receive, send)


application = ProtocolTypeRouter(
    {
        "http": django_asgi_app if settings.REDIS_URL else ResumeDeadlinesOnFirstRequest(django_asgi_app),
        "websocket": AllowedHostsOriginValidator(
            # Any other path is refused (403) rather than failing the router with an exception.
            AuthMiddlewareStack(URLRouter([*websocket_urlpatterns, re_path(r"", WebsocketDenier.as_asgi())]))
        ),
    }
)
