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


def send_robustly(signal, **kwargs):
    for receiver, outcome in signal.send_robust(sender=None, **kwargs):
        if isinstance(outcome, Exception):
            logger.error("receiver %r of a games signal failed", receiver, exc_info=outcome)


def finished_on_commit(game_id):
    """Have `game_finished` sent once the current transaction commits."""
    transaction.on_commit(lambda: send_robustly(game_finished, game_id=game_id), robust=True)
