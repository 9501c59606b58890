"""Django's ASGI handler with the middleware and the view run in one hop to the request's thread.

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
"""

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler


class OneHopASGIHandler(ASGIHandler):
    def load_middleware(self, is_async=False):
        super().load_middleware(is_async=False)
        self._middleware_chain = sync_to_async(self._middleware_chain, thread_sensitive=True)
