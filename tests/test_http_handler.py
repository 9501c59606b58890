"""The site's ASGI handler (elgrande_site/http_handler.py) runs a request's middleware and view in
one hop to the request's thread: none of them on the event loop, all in the same thread; with them
the receivers of `request_started`, the log line of an error and the close of a response that is
not streamed (the receivers of `request_finished`). Django's own handler, with a synchronous
middleware above asynchronous ones (as the site's are), went to the thread, back to the loop and
to the thread again, and on its own for each of those."""

import asyncio
import logging
import threading

import pytest
import sentry_sdk
from asgiref import sync
from asgiref.testing import ApplicationCommunicator
from django.core import signals
from django.core.handlers.asgi import ASGIHandler
from django.http import HttpResponse, StreamingHttpResponse
from django.urls import path

from elgrande_site.http_handler import OneHopASGIHandler, RequestThreads
from tests.support.sentry import sentry_capturing

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


def refused(request):
    ran.append(("view", threading.get_ident()))
    return HttpResponse(b"no", status=409)


def streamed(request):
    ran.append(("view", threading.get_ident()))

    async def parts():
        ran.append(("streamed", threading.get_ident()))
        yield b"stre"
        yield b"amed"

    return StreamingHttpResponse(parts())


slow_view_may_end = threading.Event()


def slow(request):
    ran.append(("view", threading.get_ident()))
    slow_view_may_end.wait(10)
    return HttpResponse(b"late")


def failing(request, pk):
    raise RuntimeError("a fault of the view's")


failing_late_may_end = threading.Event()


def failing_late(request, pk):
    ran.append(("view", threading.get_ident()))
    failing_late_may_end.wait(10)
    raise RuntimeError("a fault of the view's, after another request came in")


def leaves_a_transaction_open(request):
    """A view's bug: an atomic block entered and never left."""
    from django.db import connection, transaction

    ran.append(("view", threading.get_ident()))
    transaction.atomic().__enter__()
    connection.cursor().execute("SELECT 1")
    return HttpResponse(b"left open")


def queries(request):
    from django.db import connection

    ran.append(("view", threading.get_ident()))
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse(b"queried")


# The asyncio.Event a streamed response waits on, made in the test's own loop.
stream_may_end = {}


def streamed_after_a_query(request):
    from django.db import connection

    ran.append(("view", threading.get_ident()))
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")

    async def parts():
        yield b"first"
        await stream_may_end["event"].wait()
        yield b"last"

    return StreamingHttpResponse(parts())


urlpatterns = [
    path("here/", view), path("refused/", refused), path("streamed/", streamed), path("slow/", slow),
    path("games/<int:pk>/failing/", failing),
    path("games/<int:pk>/failing-late/", failing_late), path("leaves-open/", leaves_a_transaction_open),
    path("queries/", queries), path("streamed-after-a-query/", streamed_after_a_query),
]


def request(where):
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": where, "raw_path": where.encode(), "query_string": b"", "root_path": "",
        "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 5000), "server": ("testserver", 80),
    }


async def served(handler, where="/here/"):
    communicator = ApplicationCommunicator(handler, request(where))
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await communicator.receive_output(timeout=10)
    body = b""
    while True:
        message = await communicator.receive_output(timeout=10)
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    await communicator.wait(timeout=10)
    return start["status"], body


@pytest.fixture
def chain(settings):
    settings.ROOT_URLCONF = __name__
    settings.MIDDLEWARE = [f"{__name__}.SyncOnly", f"{__name__}.EitherWay"]
    ran.clear()


@pytest.fixture
def signalled():
    """The receivers of `request_started` and `request_finished`, and Django's log line of an
    error response, recorded in `ran` with their thread."""

    def started(**kwargs):
        ran.append(("request_started", threading.get_ident()))

    def finished(**kwargs):
        ran.append(("request_finished", threading.get_ident()))

    class Logged(logging.Handler):
        def emit(self, record):
            ran.append(("logged", threading.get_ident()))

    handler = Logged()
    logging.getLogger("django.request").addHandler(handler)
    signals.request_started.connect(started)
    signals.request_finished.connect(finished)
    yield
    signals.request_started.disconnect(started)
    signals.request_finished.disconnect(finished)
    logging.getLogger("django.request").removeHandler(handler)


@pytest.fixture
def hops(monkeypatch):
    """How many times a request went from the event loop to a thread (asgiref's sync_to_async)."""
    counted = []
    real = sync.SyncToAsync.thread_handler

    def thread_handler(self, *args, **kwargs):
        counted.append(getattr(self.func, "__name__", repr(self.func)))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(sync.SyncToAsync, "thread_handler", thread_handler)
    return counted


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


async def test_the_signals_the_view_and_the_close_are_one_hop_in_one_thread(chain, signalled, hops):
    loop_thread = threading.get_ident()
    assert await served(OneHopASGIHandler()) == (200, b"served")
    assert [part for part, _ in ran] == [
        "request_started", "sync middleware", "either-way middleware", "view", "request_finished"
    ]
    threads = {thread for _, thread in ran}
    assert len(threads) == 1 and loop_thread not in threads
    assert len(hops) == 1


async def test_an_error_response_is_logged_in_the_same_hop(chain, signalled, hops):
    assert await served(OneHopASGIHandler(), "/refused/") == (409, b"no")
    assert [part for part, _ in ran][-2:] == ["logged", "request_finished"]
    assert len({thread for _, thread in ran}) == 1
    assert len(hops) == 1


async def test_a_streamed_response_is_closed_once_it_is_sent(chain, signalled):
    assert await served(OneHopASGIHandler(), "/streamed/") == (200, b"streamed")
    parts = [part for part, _ in ran]
    assert parts.count("request_finished") == 1
    assert parts.index("streamed") < parts.index("request_finished")


async def test_django_s_own_handler_went_to_a_thread_for_each_of_them(chain, signalled, hops):
    # What the one hop saves: request_started, the view and the close each went on their own.
    assert await served(ASGIHandler(), "/refused/") == (409, b"no")
    assert [part for part, _ in ran].count("request_finished") == 1
    assert len(hops) >= 4


async def test_a_client_gone_during_the_view_ends_the_request_once(chain, signalled):
    slow_view_may_end.clear()
    communicator = ApplicationCommunicator(OneHopASGIHandler(), request("/slow/"))
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    while ("view" not in [part for part, _ in ran]):
        await asyncio.sleep(0.01)
    await communicator.send_input({"type": "http.disconnect"})
    await asyncio.sleep(0.1)
    slow_view_may_end.set()
    await communicator.wait(timeout=10)
    assert [part for part, _ in ran].count("request_finished") == 1


async def test_a_failing_request_finished_receiver_still_lets_the_response_out(chain):
    def failing_receiver(**kwargs):
        raise RuntimeError("a receiver's fault")

    signals.request_finished.connect(failing_receiver)
    try:
        communicator = ApplicationCommunicator(OneHopASGIHandler(), request("/here/"))
        await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
        assert (await communicator.receive_output(timeout=10))["status"] == 200
        assert (await communicator.receive_output(timeout=10))["body"] == b"served"
        with pytest.raises(RuntimeError, match="a receiver's fault"):
            await communicator.wait(timeout=10)
    finally:
        signals.request_finished.disconnect(failing_receiver)


async def test_sentry_names_an_error_by_its_route(chain):
    with sentry_capturing() as transport:
        assert (await served(OneHopASGIHandler(), "/games/123/failing/"))[0] == 500
        sentry_sdk.flush()
        assert transport.events and transport.events[-1]["transaction"] == "/games/{pk}/failing/"


def kept_threads_handler(keep=32):
    handler = OneHopASGIHandler()
    handler.threads = RequestThreads(keep=keep)
    return handler


async def idle_threads(handler, count):
    """Until `count` of the handler's threads are idle again (each is put back from its own thread,
    once its request's last call there is over)."""
    for _ in range(500):
        if handler.threads.idle() == count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{handler.threads.idle()} idle threads, not {count}")


async def test_one_request_after_another_runs_in_the_same_kept_thread(chain):
    # Django's handler started a thread for each request (and another to join it): each start held
    # the event loop until the new thread ran.
    handler = kept_threads_handler()
    assert await served(handler) == (200, b"served")
    await idle_threads(handler, 1)
    assert await served(handler) == (200, b"served")
    views = [thread for part, thread in ran if part == "view"]
    assert len(views) == 2 and views[0] == views[1] != threading.get_ident()
    await idle_threads(handler, 1)


async def test_django_s_own_handler_started_a_thread_for_each_request(chain):
    started = []
    real_start = threading.Thread.start

    def start(thread):
        started.append(thread.name)
        return real_start(thread)

    threading.Thread.start = start
    try:
        assert await served(ASGIHandler()) == (200, b"served")
        assert len(started) >= 2
        started.clear()
        handler = kept_threads_handler()
        assert await served(handler) == (200, b"served")
        await idle_threads(handler, 1)
        assert await served(handler) == (200, b"served")
        assert started == ["request_0"]  # the kept thread's one start, for the first request
    finally:
        threading.Thread.start = real_start


async def test_no_more_threads_are_kept_idle_than_asked(chain):
    handler = kept_threads_handler(keep=1)
    slow_view_may_end.clear()
    communicator = ApplicationCommunicator(handler, request("/slow/"))
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    while "view" not in [part for part, _ in ran]:
        await asyncio.sleep(0.01)
    assert await served(handler) == (200, b"served")  # a second thread, the first being busy
    await idle_threads(handler, 1)
    slow_view_may_end.set()
    await communicator.receive_output(timeout=10)
    await communicator.wait(timeout=10)
    views = {thread for part, thread in ran if part == "view"}
    for _ in range(500):
        alive = {thread.ident for thread in threading.enumerate()}
        if len(views & alive) == 1:
            break
        await asyncio.sleep(0.01)
    # The thread given back beyond `keep` ended; the other is kept.
    assert len(views & {thread.ident for thread in threading.enumerate()}) == 1
    assert handler.threads.idle() == 1


async def served_as_a_server_does(handler, where="/here/"):
    """As `served`, but the application's task made in this context, as a server makes it in its own
    (ApplicationCommunicator runs it in an empty one, which no server does)."""
    received = asyncio.Queue()
    await received.put({"type": "http.request", "body": b"", "more_body": False})
    sent = []

    async def send(message):
        sent.append(message)

    await asyncio.create_task(handler(request(where), received.get, send))
    return sent[0]["status"], b"".join(message.get("body", b"") for message in sent[1:])


async def test_sentry_names_an_error_by_its_own_request_while_another_is_served(chain):
    # Sentry's Django integration wraps ASGIHandler.__call__ with its ASGI middleware, which gives
    # each request a scope of its own. Without it (a __call__ of the subclass's own) every request of
    # the server shared the scope the server's context held (made there by any log line at start-up),
    # and an error was sent with the route of whichever request came in last.
    with sentry_capturing() as transport:
        sentry_sdk.get_isolation_scope()  # as a server's start-up leaves one in its requests' context
        failing_late_may_end.clear()
        failing = asyncio.create_task(served_as_a_server_does(OneHopASGIHandler(), "/games/7/failing-late/"))
        try:
            while "view" not in [part for part, _ in ran]:
                await asyncio.sleep(0.01)
            assert await served_as_a_server_does(OneHopASGIHandler()) == (200, b"served")
        finally:
            failing_late_may_end.set()
        assert (await failing)[0] == 500
        sentry_sdk.flush()
        assert [event["transaction"] for event in transport.events] == ["/games/{pk}/failing-late/"]
        assert transport.events[0]["request"]["url"].endswith("/games/7/failing-late/")


async def test_a_thread_still_in_the_view_of_a_request_the_server_gave_up_on_is_not_handed_out(chain):
    # Daphne cancels an application still running application_close_timeout (10 s) after its client
    # went away, Uvicorn at shutdown: handle ends at once, its thread still in the view. (With a mere
    # disconnect handle waits for the view itself, and gives the thread back only after it.)
    slow_view_may_end.clear()
    handler = kept_threads_handler()
    communicator = ApplicationCommunicator(handler, request("/slow/"))
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    while "view" not in [part for part, _ in ran]:
        await asyncio.sleep(0.01)
    communicator.future.cancel()
    with pytest.raises(asyncio.CancelledError):
        await communicator.future
    try:
        # Not queued behind the slow view: a thread of its own, at once.
        assert await asyncio.wait_for(served(handler), 5) == (200, b"served")
        views = [thread for part, thread in ran if part == "view"]
        assert views[0] != views[1]
    finally:
        slow_view_may_end.set()
    await idle_threads(handler, 2)


@pytest.mark.django_db(transaction=True)
async def test_a_transaction_a_view_left_open_does_not_break_the_next_requests_of_its_thread(chain):
    handler = kept_threads_handler()
    assert await served(handler, "/leaves-open/") == (200, b"left open")
    await asyncio.sleep(0.2)  # the thread kept or dropped
    for _ in range(3):
        assert await served(handler, "/queries/") == (200, b"queried")


@pytest.mark.django_db(transaction=True)
async def test_a_connection_a_request_the_server_gave_up_on_left_is_given_back_before_its_thread_is_idle(chain):
    # A server gives up on a request mid-stream (Daphne application_close_timeout after its client
    # went away, Uvicorn at shutdown): its response is never closed, so request_finished, which gives
    # the request's connection back, never runs in its thread.
    stream_may_end["event"] = asyncio.Event()
    handler = kept_threads_handler()
    communicator = ApplicationCommunicator(handler, request("/streamed-after-a-query/"))
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    assert (await communicator.receive_output(timeout=10))["status"] == 200
    assert (await communicator.receive_output(timeout=10))["body"] == b"first"
    communicator.future.cancel()
    with pytest.raises(asyncio.CancelledError):
        await communicator.future
    stream_may_end["event"].set()
    await idle_threads(handler, 1)

    def holds_a_connection():
        from django.db import connection

        return connection.connection is not None

    # Held, the PostgreSQL session stayed open in the idle thread (and the test database could not
    # be dropped at the end of the run).
    assert handler.threads._idle[0].submit(holds_a_connection).result(timeout=10) is False
