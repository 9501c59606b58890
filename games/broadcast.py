"""Channel group names, and the notices services send after a commit. Services and consumers both
use this module; services never import the consumers.

Notices carry no game data: a game page hears "version N exists", a lobby "something changed";
each page then fetches what its own session may see over HTTP.
"""

import asyncio

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer


def game_group(game_id):
    return f"game-{game_id}"


def user_group(user_id):
    """The lobby pages of one player."""
    return f"user-{user_id}"


def send_version(game_id, version):
    async_to_sync(get_channel_layer().group_send)(game_group(game_id), {"type": "game.version", "version": version})


def send_lobby_changed(user_ids):
    async_to_sync(_lobby_changed)(user_ids)


async def _lobby_changed(user_ids):
    layer = get_channel_layer()
    await asyncio.gather(*(layer.group_send(user_group(user_id), {"type": "lobby.changed"}) for user_id in user_ids))
