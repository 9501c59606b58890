"""Celery tasks. Each is idempotent: running one twice, late, or not at all until the next
occasion leaves the games as they should be."""

from celery import shared_task


# Acknowledged on receipt and dropped when not started within its interval: a sweep that is lost
# or killed costs nothing, beat sends the next one, and a backlog left by a stopped worker is not
# run hundreds of times over when it comes back.
@shared_task(ignore_result=True, acks_late=False)
def sweep_deadlines():
    from . import deadlines

    return deadlines.sweep()
