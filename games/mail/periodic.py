"""The mail part of the periodic deadline sweep: lost and waiting decisions, reminders, retries and,
embedded, the hourly digests."""

import logging

from django.conf import settings
from django.core.cache import cache

from games.mail import digests, late_decisions, outbox, reminders

logger = logging.getLogger(__name__)

def due_checks(now):
    """{step: a query whose rows say that step of `sweep` has something to do at `now`}, for the
    deadline sweep to ask them all at once (games/deadlines.py): the decisions lost or waiting,
    the reminders, the retries."""
    return {
        "mail decisions": late_decisions.rows_due(now),
        "reminders": reminders.due_games(now),
        "retries": outbox.retries_due(now),
    }


def sweep(now, due=None):
    """The mail part of the periodic sweep (games.deadlines): the decisions lost on the way
    (`decide_lost`), the reminders due and the retries; embedded, where no Celery beat sends
    `send_daily_digests`, the digests too, once an hour. `due`, when given, is {step of
    `due_checks`: whether it has anything to do}, and the steps with nothing are left out. A
    failure here is logged and never stops the deadlines' sweep."""

    def wanted(step):
        return due is None or due.get(step, True)

    try:
        if wanted("mail decisions"):
            late_decisions.decide_lost(now)
            late_decisions.decide_waiting(now)
        if wanted("reminders"):
            reminders.send_reminders(now)
        if wanted("retries"):
            outbox.retry_due(now)
        # cache.add succeeds once per key: one digest pass per hour (per process, embedded).
        if not settings.REDIS_URL and cache.add(f"digests-{now:%Y-%m-%d-%H}", True, timeout=2 * 60 * 60):
            digests.send_digests(now)
    except Exception:
        logger.exception("the mail part of the sweep failed; the next sweep tries again")
