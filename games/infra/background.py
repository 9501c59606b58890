"""The embedded site's background threads: the counterpart of a Celery worker when there is no
REDIS_URL. Each `EmbeddedWorker` is one daemon thread of the web process doing its queued jobs in
order, each once its pause is over, so that nothing slow (a mail server, a computer player's
search) runs inside a request. A thread that died (of what `_run` does not catch, or left behind
by a fork) is replaced by the next `add`. What a lost job leaves undone, the deadline sweep does:
the jobs are never the only record of what is due."""

import logging
import queue
import threading
import time

from django.db import close_old_connections

from elgrande_site.database import bounded_as_a_request

logger = logging.getLogger(__name__)


class EmbeddedWorker:
    def __init__(self, name, handle):
        self.name = name
        self._handle = handle
        self._queue = queue.SimpleQueue()
        self._thread = None
        self._lock = threading.Lock()
        # Set while nothing is queued or running (tests wait on it).
        self.idle = threading.Event()
        self.idle.set()

    def add(self, *job, delay=0):
        """Do `handle(*job)` in `delay` seconds, after the jobs queued before it."""
        self.idle.clear()
        self._queue.put((time.monotonic() + delay, job))
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()

    def _run(self):
        while True:
            try:
                due, job = self._queue.get(timeout=1)
            except queue.Empty:
                self.idle.set()
                continue
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            try:
                close_old_connections()
                # Each wait on the database bounded as a request's (elgrande_site.database
                # .bounded_calls): a pooled connection gone silent for good would hold the thread,
                # and every job queued behind it, for good.
                with bounded_as_a_request():
                    self._handle(*job)
            except Exception:
                logger.exception("%s: job %r failed", self.name, job)
            finally:
                try:
                    close_old_connections()
                except Exception:
                    # A connection that cannot even be closed must not end the thread.
                    logger.exception("%s: a database connection could not be closed", self.name)
            if self._queue.empty():
                self.idle.set()
