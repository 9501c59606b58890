"""Which players have a game open, for the "your move" mails (games/mail/decisions.py): none goes to
a player while their page on the game is open, nor within settings.YOUR_MOVE_GRACE_SECONDS after
they last had it open.

A player's presence on a game is one cache entry (Redis when configured, so every web process and
worker sees the same): the time their socket on it was last seen, and whether it was still open
then. An open socket refreshes it every `refresh_seconds()` (games/live/consumers.py); one whose process
died without closing it counts as closed at its last refresh, two refreshes later. Whatever cannot
be read counts as absent: the mail goes as it did before.
"""

import logging
import time
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.cache import cache

logger = logging.getLogger(__name__)


def key(game_id, user_id):
    return f"presence:{game_id}:{user_id}"


def refresh_seconds():
    """How often an open socket says it is still there: a third of the grace period, between half a
    second and a minute, so an open page never looks closed for longer than the grace."""
    return min(60.0, max(0.5, settings.YOUR_MOVE_GRACE_SECONDS / 3))


def _timeout():
    # Kept a little longer than the longest it can matter for.
    return int(settings.YOUR_MOVE_GRACE_SECONDS + 2 * refresh_seconds()) + 60


def seen(game_id, user_id, *, open=True, now=None):
    """Record that the player's page on the game is open (or, `open=False`, just closed) at `now`
    (a Unix time). A cache that fails is logged: the player then simply gets their mails."""
    try:
        cache.set(key(game_id, user_id), (now or time.time(), open), timeout=_timeout())
    except Exception:
        logger.warning("the presence of player %s on game %s was not recorded", user_id, game_id, exc_info=True)


async def aseen(game_id, user_id, *, open=True):
    """`seen` for a socket's event loop."""
    try:
        await cache.aset(key(game_id, user_id), (time.time(), open), timeout=_timeout())
    except Exception:
        logger.warning("the presence of player %s on game %s was not recorded", user_id, game_id, exc_info=True)


def at_the_table(pairs, now):
    """Which of the (game id, user id) `pairs` have the game's page open at `now` (a refresh seen
    within two refreshes), in one read of the cache for all: a reminder of a deadline is not
    mailed to a player who sits at the table (games/mail/reminders.py). An empty set when
    presence cannot be read: the reminders go as before."""
    pairs = list(pairs)
    if not pairs:
        return set()
    try:
        found = cache.get_many([key(*pair) for pair in pairs])
    except Exception:
        logger.warning("the presence of %s players could not be read: reminding", len(pairs), exc_info=True)
        return set()
    present = set()
    for pair in pairs:
        entry = found.get(key(*pair))
        if entry is None:
            continue
        last, is_open = entry
        if is_open and now < datetime.fromtimestamp(float(last), UTC) + timedelta(seconds=2 * refresh_seconds()):
            present.add(pair)
    return present


def quiet_until(game_id, user_id, now):
    """The time (aware datetime) until which no "your move" mail about the game goes to the player,
    or None when it may go at `now`. While their page is open that is two refreshes after its last
    one (then it is looked at again); after it closed, or stopped refreshing (its process died),
    the grace after it was last seen. None also when presence cannot be read."""
    try:
        found = cache.get(key(game_id, user_id))
        if found is None:
            return None
        last, is_open = found
        last = datetime.fromtimestamp(float(last), UTC)
    except Exception:
        logger.warning("the presence of player %s on game %s could not be read: mailing", user_id, game_id,
                       exc_info=True)
        return None
    next_refresh = last + timedelta(seconds=2 * refresh_seconds())
    if is_open and now < next_refresh:
        return next_refresh
    until = last + timedelta(seconds=settings.YOUR_MOVE_GRACE_SECONDS)
    return until if until > now else None


# "Online now" in a friends list (accounts/friends.py): a socket of the player's, on the lobby or
# a game, seen within ONLINE_SECONDS. One cache entry per player, refreshed with the sockets.
ONLINE_SECONDS = 180


def online_key(user_id):
    return f"online:{user_id}"


async def aonline(user_id):
    """Record that a socket of the player's is open now."""
    try:
        await cache.aset(online_key(user_id), time.time(), timeout=ONLINE_SECONDS)
    except Exception:
        logger.warning("the presence of player %s was not recorded", user_id, exc_info=True)


def online(user_ids, now=None):
    """The ids among `user_ids` with a socket seen within ONLINE_SECONDS of `now`. Whatever cannot
    be read counts as away."""
    now = now or time.time()
    try:
        found = cache.get_many([online_key(user_id) for user_id in user_ids])
    except Exception:
        logger.warning("who is online could not be read", exc_info=True)
        return set()
    return {user_id for user_id in user_ids if now - float(found.get(online_key(user_id), 0)) <= ONLINE_SECONDS}
