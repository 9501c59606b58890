"""The finished games' generation: a number in Django's cache, raised once any change to what the
lists of finished games show has committed (a game finished, an account deleted, a finished game
or its results deleted or edited). The archive's page and JSON and the lobby's recently finished
games keep what they rendered under the current number (games/reading/list_cache.py), so a
request reads it from the cache in one look-up, and a change makes every such entry unreachable
at once instead of finding and deleting them.

The number starts at the time in nanoseconds when the cache has none (first use, evicted, or
deleted after Redis could not be reached: elgrande_site/cache.py deletes a key whose write it
dropped), so a new start never meets an entry of an older one. It is raised after the commit,
not only inside the transaction: a request that reads it before the commit and the rows after
keeps the newer rows under the older number, which nobody asks for once it is raised. It is also
raised at once, inside the transaction: so that the transaction's own later reads see the change
(and so does a test, whose transaction never commits); a request between the two raises may have
kept the old rows under the first, which the second retires.
"""

import time

from django.core.cache import cache
from django.db import transaction

KEY = "finished-games-generation"


def current():
    """The current generation, or None when the cache cannot be reached (then nothing is kept)."""
    value = cache.get(KEY)
    if value is None:
        cache.add(KEY, time.time_ns(), timeout=None)
        value = cache.get(KEY)
    return value


def bump():
    """Raise the generation now: every entry kept under the old one is left unread."""
    try:
        cache.incr(KEY)
    except ValueError:
        # None yet (or Redis unreachable: the key is then deleted when it answers again).
        cache.set(KEY, time.time_ns(), timeout=None)


def changed():
    """What the lists of finished games show has changed in the current transaction: raise the
    generation now and again once it commits (only once outside of a transaction)."""
    if transaction.get_connection().in_atomic_block:
        bump()
    transaction.on_commit(bump, robust=True)
