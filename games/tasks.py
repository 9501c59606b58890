"""Deadlines: when a pending decision's time runs out, the site moves for the late seats.

With Redis configured, a Celery task is queued with a countdown on the broker. Without it (the
embedded mode) a timer thread in the web process plays the same part; timers do not survive a
restart, so `manage.py expire_deadlines` catches up on anything overdue.
"""

import threading

from celery import shared_task
from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone


@shared_task(ignore_result=True)
def expire_deadline(game_id, version):
    from . import services

    return services.apply_default_moves(game_id, version)


def schedule_deadline(game_id, version, deadline):
    """Arrange for `expire_deadline(game_id, version)` to run at `deadline`."""
    delay = max(0.0, (deadline - timezone.now()).total_seconds())
    if settings.REDIS_URL:
        expire_deadline.apply_async((game_id, version), countdown=delay)
    else:
        timer = threading.Timer(delay, _expire_in_thread, args=(game_id, version))
        timer.daemon = True
        timer.start()


def _expire_in_thread(game_id, version):
    close_old_connections()
    try:
        expire_deadline(game_id, version)
    finally:
        close_old_connections()
