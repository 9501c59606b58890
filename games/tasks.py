"""Celery tasks. Each is idempotent: running one twice, late, or not at all until the next
occasion leaves the games as they should be.

Each has an explicit name, the one it had when this was the only module of tasks: the beat
schedule (settings.CELERY_BEAT_SCHEDULE) and messages already queued name them so, and the rooms
queue them by name through games.infra.work.enqueue."""

import logging

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from games import deadlines
from games.mail import digests, outbox
from games.play import computer_moves, moving
from games.reading import statistics

logger = logging.getLogger(__name__)


# Acknowledged on receipt and dropped when not started within its interval: a sweep that is lost
# or killed costs nothing, beat sends the next one, and a backlog left by a stopped worker is not
# run hundreds of times over when it comes back. One still running after DEADLINE_SWEEP_TIME_LIMIT
# (a database that stopped answering without closing the connection) has its worker process
# killed and replaced, so that the next sweeps find a process free.
@shared_task(
    name="games.tasks.sweep_deadlines",
    bind=True,
    ignore_result=True,
    acks_late=False,
    time_limit=settings.DEADLINE_SWEEP_TIME_LIMIT,
)
def sweep_deadlines(self):
    """One sweep; its batches of overdue games, when there are several, go in lanes
    (DEADLINE_SWEEP_LANES, `deadlines.lanes`) to the queue the sweep came from: one
    `expire_deadlines` task per lane at a time, for all the worker's processes to share."""

    queue = (self.request.delivery_info or {}).get("routing_key")

    def spread(batches):
        for number, lane in enumerate(deadlines.lanes(batches)):
            _send_lane(number, lane, queue)

    return deadlines.sweep(spread=spread)


def _send_lane(number, batches, queue):
    # Dropped if not started within the lane's hold: the lane's mark then lapses too, and the
    # next sweep sends its games again.
    expire_deadlines.apply_async(
        (batches[0],), {"lane": number, "rest": batches[1:]}, queue=queue, expires=deadlines.LANE_HOLD
    )


# Like the sweep: a batch lost with its worker, or not started in time, is left to a later sweep,
# which finds its games still overdue.
@shared_task(
    name="games.tasks.expire_deadlines",
    ignore_result=True,
    acks_late=False,
    time_limit=settings.DEADLINE_SWEEP_TIME_LIMIT,
)
def expire_deadlines(batch, lane=None, rest=()):
    """Expire one batch of a sweep: [(game id, version)] as the sweep listed them. In lane `lane`
    (`deadlines.play_lane`), first send the lane's next batch, of `rest`, to the same queue; a
    batch of no lane (sent before the lanes) is only expired."""
    batches = [[tuple(pair) for pair in each] for each in (batch, *rest)]
    if lane is None:
        return deadlines.play_overdue_batches(batches[:1])
    queue = (expire_deadlines.request.delivery_info or {}).get("routing_key")
    return deadlines.play_lane(lane, batches, lambda left: _send_lane(lane, left, queue))


# ---- computer players -------------------------------------------------------------------------
#
# Queued with a countdown (BOT_MOVE_DELAY) by games.computer.players.queue_move after each commit
# that leaves a computer seat to act. Keyed by the game's version: a duplicate, or a task redelivered after its
# worker died, finds the game moved on and does nothing; retries and fallbacks happen inside.


@shared_task(name="games.tasks.play_computer_move", ignore_result=True)
def play_computer_move(game_id, version):
    return computer_moves.play(game_id, version)


# ---- answers given ahead ------------------------------------------------------------------------
#
# Queued with a countdown (the pause drawn for it, settings.ANSWERS_AHEAD_DELAY) after each commit
# that leaves a veto question to a seat that answers it ahead, keyed by the due time stored in the
# game's row: a duplicate finds it gone, a task of a due time the game no longer has does nothing,
# a task run early queues itself again, and one that is lost is done by the deadline sweep.


@shared_task(name="games.tasks.answer_ahead", ignore_result=True)
def answer_ahead(game_id, due):
    return moving.answer_ahead(game_id, due)


# ---- mail ---------------------------------------------------------------------------------------
#
# Notifications are recorded first (games.mail.outbox), then sent here after the commit.
# With Redis a worker sends them; embedded there is no worker, so one thread in the web process sends
# them, never the request that made the move. Either way a failed send is logged and left `failed`
# in its row with the time of its next attempt (doubling, over a day), which the periodic sweep
# (outbox.retry_due) keeps: Celery does not retry it on its own schedule.


@shared_task(name="games.tasks.send_notification", ignore_result=True)
def send_notification(notification_id):
    try:
        return outbox.deliver(notification_id)
    except outbox.SendFailed:
        return False  # logged, and its retry recorded for the sweep


@shared_task(name="games.tasks.send_daily_digests", ignore_result=True)
def send_daily_digests():
    """Run hourly by Celery beat (CELERY_BEAT_SCHEDULE); each player gets one digest a day."""
    return digests.send_digests(timezone.now())


@shared_task(name="games.tasks.refresh_statistics", ignore_result=True, acks_late=False)
def refresh_statistics():
    """Run by Celery beat every STATISTICS_SECONDS: the statistics page's figures, off the requests."""
    statistics.refresh()
