"""A web process's end: the database connections that its threads keep are given back, and its pool
closed, so that each connection ends as PostgreSQL expects (the client says goodbye: libpq's
Terminate) rather than cut with the process, which the server logs as an unexpected EOF. The
threads are those that render the readers' own views and write their seen marks, each keeping its
connection from one call to the next (games/live/own_views.py), and the spectators' hub's, whose
renders under way are waited for (games/live/spectators.py).

The servers say that the process ends in two ways, and elgrande_site/asgi.py listens to both:
- Uvicorn (the production command, deploy/gunicorn.conf.py) speaks the ASGI lifespan: once its
  sockets are closed and the requests in flight answered, it sends `lifespan.shutdown`, answered
  by `lifespan` once the connections are given back. It then ends the process by raising again
  the signal that stopped it, its default action restored: no atexit function runs.
- Daphne (`make run`, the tests' and the benchmarks' servers) has no lifespan: on SIGTERM or
  SIGINT the interpreter ends, running `at_exit`, whether Daphne's loop has stopped by then or
  (under `make run`'s autoreloader, which runs it in a thread of its own) is still turning: the
  threads here take no more work once the interpreter is exiting.
"""

import asyncio
import logging

from django.db import connections

from games.live import own_views, spectators

logger = logging.getLogger(__name__)


def give_back_connections():
    """The live threads' connections given back, then the pool closed, which closes every
    connection in it: closed even when a thread did not answer (a render held up by a database
    gone silent fails its pool's call after the barrier's 10 s)."""
    try:
        own_views.give_back_connections()
        spectators.give_back_connections()
    finally:
        for alias in connections:
            database = connections[alias]
            database.close()  # this thread's own, if it has one
            # PostgreSQL's (with DATABASE_POOL, settings.py): Django keeps one per process.
            close_pool = getattr(database, "close_pool", None)
            if close_pool is not None:
                close_pool()


async def lifespan(scope, receive, send):
    """The ASGI lifespan: nothing to do at the start; at the end, `give_back_connections`, in a
    thread (it waits for the live threads, and Django's connections are not for the event loop)."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            try:
                await asyncio.to_thread(give_back_connections)
            except Exception as error:
                logger.exception("the database connections could not all be given back")
                await send({"type": "lifespan.shutdown.failed", "message": repr(error)})
            else:
                await send({"type": "lifespan.shutdown.complete"})
            return


def at_exit():
    """`give_back_connections`, as an atexit function: the live threads are gone by then, and what
    they left held is closed on the connections themselves (own_views.give_back_connections)."""
    try:
        give_back_connections()
    except Exception:
        logger.exception("the database connections could not all be given back")
