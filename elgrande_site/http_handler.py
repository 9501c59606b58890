"""Django's ASGI handler with everything of a request that runs synchronously done in one hop to the
request's thread.

Django builds its middleware chain for ASGI from the bottom up: the view's end is asynchronous,
so the middleware that can run either way run on the event loop, and each change of mode is a
hop between the loop and the request's thread. With this site's middleware (some synchronous
only: elgrande_site/middleware.py, accounts/middleware.py) a request went to its thread for the
upper middleware, back to the loop for the lower ones, to the thread again for the view, and the
same way back: four hops more than needed, each waiting for the loop's turn, which under the
moves' load of bench/web.py is the longest wait a move has (bench/README.md).

Here the chain is built as for WSGI, synchronous from top to bottom, view included, and the
whole of it runs in one call in the request's thread (thread-sensitive, as Django runs a
synchronous view under ASGI: the same thread, and database connection, as the request's signals).

Django's `handle` also went to that thread on its own for the receivers of `request_started`
before the chain (the database's `close_old_connections`, `reset_queries`), for the log line of
an error response (4xx and 5xx) after it, and for `response.close()` (the receivers of
`request_finished`: the connection given back to the pool, the caches closed) once the response
was sent: three hops more per request, each a wait for the loop and then for the thread under
load (bench/README.md, the twelfth pass). `handle` below is Django 5.2's with all of these in the
chain's one call. A response whose body is all in hand (not streamed) is closed there too, before
it is sent: its content stays readable, and the database connection goes back to the pool while
the bytes go out rather than after. A streamed one (a game's record, a file) is closed after it
is sent, as Django does.

Django's `__call__` gave each request a thread of its own, started for it (a new single-thread
executor in a new `ThreadSensitiveContext`), and a second thread at its end to join the first:
two `Thread.start()` per request on the event loop, each of which holds the loop until the new
thread runs, which under load means until it gets the GIL from the threads rendering views. Under
the moves' load of bench/web.py, py-spy found the loop held there 15% of its time (bench/README.md,
the thirteenth pass). Here a request runs in a thread kept from one request to the next
(`RequestThreads`): still one request at a time per thread, and one thread for the whole of a
request, as Django's thread-sensitive code wants.
"""

import asyncio
import collections
import threading
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse
from django.urls import set_script_prefix


class RequestThreads:
    """Single-thread executors kept for the requests: `take` one for a request, `give_back` it
    after. One is taken again only once it has nothing left to run (a request cancelled while its
    thread was in the view leaves that thread busy a while: it waits behind a last call, whose end
    puts it back), and only if the request left its database connections out of any transaction
    (`_settled`). At most `keep` are kept idle; one more is shut down (its thread ends)."""

    def __init__(self, keep=32):
        self.keep = keep
        self._idle = collections.deque()
        self._lock = threading.Lock()

    def take(self):
        try:
            return self._idle.pop()
        except IndexError:
            return ThreadPoolExecutor(max_workers=1, thread_name_prefix="request")

    def give_back(self, executor):
        executor.submit(_settled).add_done_callback(lambda settled: self._idle_again(executor, settled))

    def _idle_again(self, executor, settled):
        # Once all the executor was given is done: in its own thread, or in the caller's (the event
        # loop's) when `_settled` was over before the callback was added.
        if not settled.cancelled() and settled.exception() is None and settled.result():
            with self._lock:  # the length and the append together: threads give back at once
                if len(self._idle) < self.keep:
                    self._idle.append(executor)
                    return
        executor.shutdown(wait=False)

    def idle(self):
        return len(self._idle)


def _settled():
    """In a request's thread after all of the request there: whether the thread can serve another.
    Django keeps a thread's database connections in the thread (thread-critical), and a request that
    left one inside an atomic block (entered, never left) leaves it, once Django's close at the
    request's end, closed and still marked in the block: every later query of the thread would fail
    on it ("Cannot operate on a closed database", "connection already closed"). Such a thread is
    dropped, with its connections, as Django's own handler dropped every request's thread.

    A connection the request's end did not give back is given back here, as `request_finished`
    would have: a request the server gave up on (its task cancelled) before its response was closed
    (a streamed one, or `_finish_cancelled` cancelled while still queued) never sends it, and the
    thread, kept idle, would hold the connection out of the pool, its PostgreSQL session open, until
    a later request happened to take that thread. Within the request's bounds (elgrande_site.database):
    giving back a connection left in a transaction is a ROLLBACK, which a connection gone silent
    would otherwise wait on for good."""
    from django.db import connections

    from elgrande_site import database

    settled = True
    with database.bounded_as_a_request():
        for connection in connections.all(initialized_only=True):
            left_open = connection.in_atomic_block
            try:
                if left_open:
                    connection.close()
                else:
                    connection.close_if_unusable_or_obsolete()
            except Exception:
                left_open = True
            settled = settled and not left_open
    return settled


class OneHopASGIHandler(ASGIHandler):
    threads = RequestThreads()

    def load_middleware(self, is_async=False):
        super().load_middleware(is_async=False)
        self._served = sync_to_async(self._serve, thread_sensitive=True)
        self._finished_cancelled = sync_to_async(self._finish_cancelled, thread_sensitive=True)

    def _serve(self, scope, request, served):
        """In the request's thread, in one call: `request_started`, the middleware and the view (through
        BaseHandler.get_response, which sets the urlconf, adds the request's close and logs an error
        response, and which Sentry's Django integration wraps to name the event's route), and the
        close of a response that is not streamed. Returns (response, whether it is closed, the error
        its close raised, to be raised once the response is sent, as Django would). `served` holds
        the response, and whether it was closed, for `handle` should the request be cancelled
        meanwhile."""
        signals.request_started.send(sender=self.__class__, scope=scope)
        response = served["response"] = self.get_response(request)
        response._handler_class = self.__class__
        if isinstance(response, FileResponse):
            response.block_size = self.chunk_size
        if response.streaming:
            return response, False, None
        served["closed"] = True
        try:
            response.close()
        except Exception as error:
            return response, True, error
        return response, True, None

    def _finish_cancelled(self, served):
        """A request cancelled (the client went away) while its thread ran `_serve`: run in that
        thread after it, so that `request_finished` is sent once: by the response's close if `_serve`
        did not close it, or on its own if it made no response."""
        response = served.get("response")
        if response is None:
            signals.request_finished.send(sender=self.__class__)
        elif not served.get("closed"):
            response.close()

    async def handle(self, scope, receive, send):
        """The request in a kept thread (`RequestThreads`): a context of its own inside Django's
        `__call__`'s (which Sentry's Django integration wraps), whose own executor, and thread, is
        then never made."""
        executor = self.threads.take()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self._handle(scope, receive, send)
        finally:
            self.threads.give_back(executor)

    async def _handle(self, scope, receive, send):
        """Django 5.2's `ASGIHandler.handle`, with `_serve` in one hop where it had four."""
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        set_script_prefix(get_script_prefix(scope))
        request, error_response = self.create_request(scope, body_file)
        if request is None:
            # A request Django could not make (a path that is not UTF-8): as Django answers it.
            await signals.request_started.asend(sender=self.__class__, scope=scope)
            body_file.close()
            await self.send_response(error_response, send)
            await sync_to_async(error_response.close)()
            return

        served = {}

        async def process_request(request, send):
            response, closed, close_error = await self._served(scope, request, served)
            try:
                await self.send_response(response, send)
            except asyncio.CancelledError:
                # Client disconnected during send_response (ignore exception).
                pass
            if close_error is not None:
                # A receiver of request_finished failed: raised once the response is out, as Django.
                raise close_error
            return response, closed

        # Try to catch a disconnect while getting response.
        tasks = [
            asyncio.create_task(self.listen_for_disconnect(receive)),
            asyncio.create_task(process_request(request, send)),
        ]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            if task.done():
                try:
                    task.result()
                except RequestAborted:
                    pass
                except AssertionError:
                    body_file.close()
                    raise
            else:
                # Allow views to handle cancellation.
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    pass
        try:
            response, closed = tasks[1].result()
        except asyncio.CancelledError:
            # The thread may still be in the view: this waits for it there (the same thread), and
            # closes its response if it did not, or sends request_finished if it made none.
            await self._finished_cancelled(served)
        else:
            if not closed:
                await sync_to_async(response.close)()
        body_file.close()
