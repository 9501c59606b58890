"""Signals other apps listen to (the tournaments app): sent after the commit, never inside a game's
transaction, and robustly: a receiver that fails is logged and changes nothing here."""

import logging

from django.db import transaction
from django.dispatch import Signal

logger = logging.getLogger(__name__)

# A game finished: sent with `game_id` once the transaction that finished it has committed.
game_finished = Signal()
# The deadline sweep ran (games/deadlines.py): sent with `now` after each sweep, so that work
# missed by a lost notice is picked up within one interval.
swept = Signal()
# Asked with `now` just before each sweep: a receiver answers {name: a query whose rows say it has
# work}, which the sweep asks together with its own checks in one statement; `swept` then brings
# `due`, {name: whether its query had a row}, so that a receiver with nothing due asks nothing.
sweep_checks = Signal()


def send_robustly(signal, **kwargs):
    for receiver, outcome in signal.send_robust(sender=None, **kwargs):
        if isinstance(outcome, Exception):
            logger.error("receiver %r of a games signal failed", receiver, exc_info=outcome)


def checks_of_receivers(now):
    """{name: query} of every `sweep_checks` receiver's answer; one that fails is logged and left
    out (its `swept` receiver then runs as if it had work: `due` has no word of it)."""
    checks = {}
    for receiver, outcome in sweep_checks.send_robust(sender=None, now=now):
        if isinstance(outcome, Exception):
            logger.error("receiver %r of a games signal failed", receiver, exc_info=outcome)
        elif outcome:
            checks.update(outcome)
    return checks


def finished_on_commit(game_id):
    """Have `game_finished` sent once the current transaction commits."""
    transaction.on_commit(lambda: send_robustly(game_finished, game_id=game_id), robust=True)
