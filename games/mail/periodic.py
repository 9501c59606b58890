"""The mail part of the periodic deadline sweep: lost and waiting decisions, reminders, retries and,
embedded, the hourly digests."""

import logging

from django.conf import settings
from django.core.cache import cache

from games.mail import digests, late_decisions, reminders

logger = logging.getLogger(__name__)

def sweep(now):
    """The mail part of the periodic sweep (games.deadlines): the decisions lost on the way
    (`decide_lost`), the reminders due and the retries; embedded, where no Celery beat sends
    `send_daily_digests`, the digests too, once an hour. A failure here is logged and never
    stops the deadlines' sweep."""
    try:
        late_decisions.decide_lost(now)
        late_decisions.decide_waiting(now)
        reminders.send_due_reminders(now)
        # cache.add succeeds once per key: one digest pass per hour (per process, embedded).
        if not settings.REDIS_URL and cache.add(f"digests-{now:%Y-%m-%d-%H}", True, timeout=2 * 60 * 60):
            digests.send_digests(now)
    except Exception:
        logger.exception("the mail part of the sweep failed; the next sweep tries again")
