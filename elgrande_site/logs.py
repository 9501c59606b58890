"""Logging's filters (settings.LOGGING)."""

import logging

# What Celery says of every deadline sweep: beat sending one every DEADLINE_SWEEP_SECONDS, the worker
# receiving and finishing it; 35,000 lines a day that say nothing. The sweep logs itself when it
# found something overdue, and once a minute (games/deadlines.py).
ROUTINE = ("games.tasks.sweep_deadlines", "sweep-deadlines")
CELERY_LOGGERS = ("celery.app.trace", "celery.worker.strategy", "celery.beat")


class WithoutRoutineSweeps(logging.Filter):
    def filter(self, record):
        if record.name not in CELERY_LOGGERS or record.levelno > logging.INFO:
            return True
        message = record.getMessage()
        return not any(routine in message for routine in ROUTINE)
