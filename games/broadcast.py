"""Channel group names, and the notices services send after a commit. Services and consumers both
use this module; services never import the consumers.

Notices carry no game data: a game page hears "version N exists" or "there is new table talk",
a lobby "something changed"; each page then fetches what its own session may see over HTTP.
"""

import asyncio
import logging
from contextlib import contextmanager
from contextvars import ContextVar

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)

# The notices of `held()`: [(group, message)], or None outside of it.
_held = ContextVar("held_notices", default=None)


def game_group(game_id):
    return f"game-{game_id}"


def user_group(user_id):
    """The lobby pages of one player."""
    return f"user-{user_id}"


def send_version(game_id, version):
    _send([(game_group(game_id), {"type": "game.version", "version": version})])


def send_chat(game_id):
    """A game's chat has a new message; the notice carries none of it (nor who wrote it)."""
    _send([(game_group(game_id), {"type": "game.chat"})])


def send_lobby_changed(user_ids):
    _send([(user_group(user_id), {"type": "lobby.changed"}) for user_id in user_ids])


@contextmanager
def held():
    """Hold the notices sent inside, and send them together when it ends (also when it ends in an
    error: they are about commits already made). For the deadline sweep, which commits many games
    in a row: one hop to the event loop for them all instead of two per game, and one "changed"
    per lobby instead of one per game of its player. A notice that cannot be sent is logged."""
    notices = []
    token = _held.set(notices)
    try:
        yield
    finally:
        _held.reset(token)
        if notices:
            try:
                once = {(group, tuple(sorted(message.items()))): (group, message) for group, message in notices}
                async_to_sync(_group_send)(list(once.values()))
            except Exception:
                logger.exception("%d notices could not be sent", len(notices))


def _send(notices):
    held_notices = _held.get()
    if held_notices is None:
        async_to_sync(_group_send)(notices)
    else:
        held_notices.extend(notices)


async def _group_send(notices):
    layer = get_channel_layer()
    if len(notices) > 1 and hasattr(layer, "group_send_many"):
        # The Redis layer (elgrande_site/channel_layers.py): one round trip to find the groups
        # somebody listens to, not two per group.
        await layer.group_send_many(notices)
    else:
        await asyncio.gather(*(layer.group_send(group, message) for group, message in notices))
