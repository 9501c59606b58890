"""Deadlines: when a pending decision's time runs out, the site moves for the late seats.

With Redis configured, a Celery task is queued with a countdown on the broker, at most
MAX_COUNTDOWN ahead: Redis hands an unacknowledged message out again after the broker's
visibility timeout, so days-long countdowns would be delivered over and over. A task that wakes
before its deadline finds the game unchanged and queues itself again. Without Redis (the
embedded mode) one scheduler thread in the web process plays the same part; it keeps its queue
in memory, so the served site (elgrande_site/asgi.py) queues every running game's deadline again
on its first request after a start, and `manage.py expire_deadlines` catches up on demand.
"""

import heapq
import logging
import queue
import threading
import time

from celery import shared_task
from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

logger = logging.getLogger(__name__)

MAX_COUNTDOWN = 30 * 60


@shared_task(ignore_result=True)
def expire_deadline(game_id, version):
    from . import services

    return services.apply_default_moves(game_id, version)


def schedule_deadline(game_id, version, deadline):
    """Arrange for `expire_deadline(game_id, version)` to run at `deadline`."""
    delay = max(0.0, (deadline - timezone.now()).total_seconds())
    if settings.REDIS_URL:
        expire_deadline.apply_async((game_id, version), countdown=min(delay, MAX_COUNTDOWN))
    else:
        embedded_scheduler.add(delay, game_id, version)


def resume_deadlines():
    """Queue the deadline of every running game again: the embedded scheduler forgets its queue
    when the process stops. Overdue ones run at once; a stale one finds the game moved on."""
    from .models import Game

    running = Game.objects.filter(status=Game.Status.ACTIVE, deadline__isnull=False)
    for game_id, version, deadline in running.values_list("pk", "version", "deadline"):
        schedule_deadline(game_id, version, deadline)


class EmbeddedScheduler:
    """One daemon thread running due expiries in deadline order.

    Every accepted move schedules the next deadline, so a thread per deadline would leave
    thousands asleep for days in a slow game; one queue keeps it to a single thread.
    """

    def __init__(self):
        self._queue = []
        self._wake = threading.Condition()
        self._thread = None

    def add(self, delay, game_id, version):
        with self._wake:
            heapq.heappush(self._queue, (time.monotonic() + delay, game_id, version))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="deadlines", daemon=True)
                self._thread.start()
            self._wake.notify()

    def _run(self):
        while True:
            with self._wake:
                while not self._queue or self._queue[0][0] > time.monotonic():
                    self._wake.wait(self._queue[0][0] - time.monotonic() if self._queue else None)
                _, game_id, version = heapq.heappop(self._queue)
            close_old_connections()
            try:
                expire_deadline(game_id, version)
            except Exception:
                # A failed expiry must not stop the others; the catch-up command can retry it.
                logger.exception("deadline of game %s version %s failed", game_id, version)
            finally:
                close_old_connections()


embedded_scheduler = EmbeddedScheduler()


# ---- mail ---------------------------------------------------------------------------------------
#
# Notifications are recorded first (games.notifications), then sent here after the commit. With
# Redis a worker sends them and Celery retries a failed send with back-off; embedded there is no
# worker, so one thread in the web process sends them, never the request that made the move.
# Either way a failed send is logged and left `failed` in its row, which the periodic sweep
# (notifications.retry_due) sends again when its time comes.


@shared_task(
    ignore_result=True,
    autoretry_for=(Exception,),
    retry_backoff=60,
    retry_backoff_max=60 * 60,
    max_retries=7,
)
def send_notification(notification_id):
    from . import notifications

    return notifications.deliver(notification_id)


@shared_task(ignore_result=True)
def send_daily_digests():
    """Run hourly by Celery beat (CELERY_BEAT_SCHEDULE); each player gets one digest a day."""
    from . import notifications

    return notifications.send_digests(timezone.now())


def queue_notification(notification_id):
    """Have the notification sent soon, off the caller's path; a failure to queue is logged and
    left to the sweep, never raised into a move."""
    if settings.REDIS_URL:
        try:
            send_notification.delay(notification_id)
        except Exception:
            logger.exception("could not queue mail %s; the sweep will send it", notification_id)
    else:
        embedded_mailer.add(notification_id)


class EmbeddedMailer:
    """One daemon thread sending queued mails in order, so a slow or absent mail server delays
    no request."""

    def __init__(self):
        self._queue = queue.SimpleQueue()
        self._thread = None
        self._lock = threading.Lock()

    def add(self, notification_id):
        self._queue.put(notification_id)
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="mailer", daemon=True)
                self._thread.start()

    def _run(self):
        while True:
            notification_id = self._queue.get()
            try:
                close_old_connections()
                send_logged(notification_id)
                close_old_connections()
            except Exception:
                logger.exception("the mailer's database connection failed")


def send_logged(notification_id):
    """Send one mail where nothing may be raised (the mailer thread): a failure is logged, and the
    row says when to try again."""
    from . import notifications

    try:
        notifications.deliver(notification_id)
    except notifications.SendFailed:
        pass  # recorded and logged by deliver(); the sweep sends it again when its time comes
    except Exception:
        # Anything else (the database away) leaves the row for the sweep too.
        logger.exception("mail %s was not sent", notification_id)


embedded_mailer = EmbeddedMailer()
