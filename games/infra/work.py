"""Work done off the caller's path, through one seam: `enqueue(task, *args, delay=…)` hands the
Celery task named `task` (games/tasks.py names them all) to a Celery worker when there is a
REDIS_URL, else to this process's embedded worker for that task (games/infra/background.py). The
rooms name the task and never import games.tasks, which sits above them; the tests patch this one
function (tests/conftest.py)."""

import logging
import threading

from celery import current_app as app
from django.conf import settings

from elgrande_site import cache
from games.infra.background import EmbeddedWorker

logger = logging.getLogger(__name__)

_embedded = {}
_lock = threading.Lock()


def enqueue(task, *args, delay=0, label=None):
    """Have the task named `task` run with `args` in `delay` seconds. Raises nothing: a job that
    could not be queued is logged (as `label`, e.g. "mail 7") and left to the sweep, which finds
    what it would have done still undone."""
    label = label or f"{task}{args}"
    if not settings.REDIS_URL:
        embedded_worker(task).add(*args, delay=delay)
        return
    if cache.unreachable():
        # Redis did not answer a moment ago: queueing would hold the caller for the broker's
        # timeouts (4.5 s when silent).
        logger.warning("Redis unreachable: %s is left to the sweep", label)
        return
    try:
        app.tasks[task].apply_async(args, countdown=delay)
    except Exception:
        logger.exception("could not queue %s; the sweep will see to it", label)


def embedded_worker(task):
    """The embedded worker (one thread, its jobs in order) that runs the task named `task`."""
    with _lock:
        worker = _embedded.get(task)
        if worker is None:
            worker = _embedded[task] = EmbeddedWorker(task, lambda *args: app.tasks[task](*args))
        return worker
