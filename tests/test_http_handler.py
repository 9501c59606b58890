"""The site's ASGI handler (elgrande_site/http_handler.py) runs a request's middleware and view in
one hop to the request's thread: none of them on the event loop, all in the same thread. Django's
own handler, with a synchronous middleware above asynchronous ones (as the site's are), went to
the thread, back to the loop and to the thread again."""

import threading

import pytest
from asgiref.testing import ApplicationCommunicator
from django.core.handlers.asgi import ASGIHandler
from django.http import HttpResponse
from django.urls import path

from elgrande_site.http_handler import OneHopASGIHandler

# Where each part of the request ran: (part, thread id).
ran = []


class SyncOnly:
    """A middleware that can only run synchronously (as elgrande_site/middleware.py's)."""

    sync_capable, async_capable = True, False

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        ran.append(("sync middleware", threading.get_ident()))
        return self.get_response(request)


class EitherWay:
    """A middleware that can run either way (as Django's own and django-htmx's): on the loop, it
    hands on the coroutine of the handler below."""

    sync_capable = async_capable = True

    def __init__(self, get_response):
        from asgiref.sync import iscoroutinefunction, markcoroutinefunction

        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request):
        ran.append(("either-way middleware", threading.get_ident()))
        return self.get_response(request)


def view(request):
    ran.append(("view", threading.get_ident()))
    return HttpResponse(b"served")


urlpatterns = [path("here/", view)]


async def served(handler):
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": "/here/", "raw_path": b"/here/", "query_string": b"", "root_path": "",
        "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 5000), "server": ("testserver", 80),
    }
    communicator = ApplicationCommunicator(handler, scope)
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await communicator.receive_output(timeout=10)
    body = await communicator.receive_output(timeout=10)
    return start["status"], body["body"]


@pytest.fixture
def chain(settings):
    settings.ROOT_URLCONF = __name__
    settings.MIDDLEWARE = [f"{__name__}.SyncOnly", f"{__name__}.EitherWay"]
    ran.clear()


async def test_the_middleware_and_the_view_run_in_one_thread_off_the_event_loop(chain):
    loop_thread = threading.get_ident()
    assert await served(OneHopASGIHandler()) == (200, b"served")
    assert [part for part, _ in ran] == ["sync middleware", "either-way middleware", "view"]
    threads = {thread for _, thread in ran}
    assert len(threads) == 1 and loop_thread not in threads


async def test_django_s_own_handler_ran_the_either_way_middleware_on_the_loop(chain):
    # What the one hop saves: the middleware below the synchronous one ran on the event loop.
    loop_thread = threading.get_ident()
    assert await served(ASGIHandler()) == (200, b"served")
    assert dict(ran)["either-way middleware"] == loop_thread != dict(ran)["view"]


async def test_the_site_serves_its_pages_through_the_one_hop_handler():
    from elgrande_site import asgi

    assert isinstance(asgi.django_asgi_app, OneHopASGIHandler)
