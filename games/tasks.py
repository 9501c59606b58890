"""Celery tasks. Each is idempotent: running one twice, late, or not at all until the next
occasion leaves the games as they should be."""

import logging

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from elgrande_site import cache
from games.infra.background import EmbeddedWorker

logger = logging.getLogger(__name__)


# Acknowledged on receipt and dropped when not started within its interval: a sweep that is lost
# or killed costs nothing, beat sends the next one, and a backlog left by a stopped worker is not
# run hundreds of times over when it comes back. One still running after DEADLINE_SWEEP_TIME_LIMIT
# (a database that stopped answering without closing the connection) has its worker process
# killed and replaced, so that the next sweeps find a process free.
@shared_task(bind=True, ignore_result=True, acks_late=False, time_limit=settings.DEADLINE_SWEEP_TIME_LIMIT)
def sweep_deadlines(self):
    """One sweep; its batches of overdue games, when there are several, go as `expire_deadlines`
    tasks to the queue the sweep came from, for all the worker's processes to share."""
    from games import deadlines

    queue = (self.request.delivery_info or {}).get("routing_key")

    def spread(batches):
        for batch in batches:
            expire_deadlines.apply_async((batch,), queue=queue, expires=settings.DEADLINE_SWEEP_SECONDS)

    return deadlines.sweep(spread=spread)


# Like the sweep: a batch lost with its worker, or not started within one interval, is left to the
# next sweep, which finds its games still overdue.
@shared_task(ignore_result=True, acks_late=False, time_limit=settings.DEADLINE_SWEEP_TIME_LIMIT)
def expire_deadlines(batch):
    """Expire one batch of a sweep: [(game id, version)] as the sweep listed them."""
    from games import deadlines

    return deadlines.expire([[tuple(pair) for pair in batch]])


# ---- computer players -------------------------------------------------------------------------
#
# Queued with a countdown (BOT_MOVE_DELAY) by games.computer.players.queue_move after each commit that leaves
# a computer seat to act. Keyed by the game's version: a duplicate, or a task redelivered after its
# worker died, finds the game moved on and does nothing; retries and fallbacks happen inside.


@shared_task(ignore_result=True)
def play_computer_move(game_id, version):
    from games.computer import players as computer

    return computer.play(game_id, version)


# ---- mail ---------------------------------------------------------------------------------------
#
# Notifications are recorded first (games.mail.notifications), then sent here after the commit. With
# Redis a worker sends them; embedded there is no worker, so one thread in the web process sends
# them, never the request that made the move. Either way a failed send is logged and left `failed`
# in its row with the time of its next attempt (doubling, over a day), which the periodic sweep
# (notifications.retry_due) keeps: Celery does not retry it on its own schedule.


@shared_task(ignore_result=True)
def send_notification(notification_id):
    from games.mail import notifications

    try:
        return notifications.deliver(notification_id)
    except notifications.SendFailed:
        return False  # logged, and its retry recorded for the sweep


@shared_task(ignore_result=True)
def send_daily_digests():
    """Run hourly by Celery beat (CELERY_BEAT_SCHEDULE); each player gets one digest a day."""
    from games.mail import notifications

    return notifications.send_digests(timezone.now())


@shared_task(ignore_result=True, acks_late=False)
def refresh_statistics():
    """Run by Celery beat every STATISTICS_SECONDS: the statistics page's figures, off the requests."""
    from games.reading import statistics

    statistics.refresh()


def queue_notification(notification_id):
    """Have the notification sent soon, off the caller's path; a failure to queue is logged and
    left to the sweep, never raised into a move."""
    if settings.REDIS_URL:
        if cache.unreachable():
            # Redis did not answer a moment ago: queueing would hold the move for the broker's
            # timeouts (4.5 s when silent). The row waits; the sweep's retries send it.
            logger.warning("Redis unreachable: mail %s is left to the sweep", notification_id)
            return
        try:
            send_notification.delay(notification_id)
        except Exception:
            logger.exception("could not queue mail %s; the sweep will send it", notification_id)
    else:
        embedded_mailer.add(notification_id)


def send_logged(notification_id):
    """Send one mail where nothing may be raised (the mailer thread): a failure is logged, and the
    row says when to try again."""
    from games.mail import notifications

    try:
        notifications.deliver(notification_id)
    except notifications.SendFailed:
        pass  # recorded and logged by deliver(); the sweep sends it again when its time comes
    except Exception:
        # Anything else (the database away) leaves the row for the sweep too.
        logger.exception("mail %s was not sent", notification_id)


def EmbeddedMailer():
    """One thread sending queued mails in order, so a slow or absent mail server delays no
    request (`send_logged` looked up at each mail)."""
    return EmbeddedWorker("mailer", lambda notification_id: send_logged(notification_id))


embedded_mailer = EmbeddedMailer()
