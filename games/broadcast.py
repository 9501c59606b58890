"""Channel group names, and the notices sent after a commit (games/play/after_save.py). The play room
and the consumers both use this module; it imports neither, and renders nothing.

Notices carry no private data and no page: a game page hears "version N exists" or "there is new
table talk", a lobby "something changed"; each page then fetches what its own session may see
over HTTP. The spectators' groups (`spectators_group`) hear the same version notices: the
spectators' hub of each server process that has spectators there (games/live/spectators.py)
renders their view once and hands it to its pages, so that hundreds of them fetch nothing.
"""

import asyncio
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings

from elgrande_site import cache

logger = logging.getLogger(__name__)


def game_group(game_id):
    return f"game-{game_id}"


def user_group(user_id):
    """The lobby pages of one player."""
    return f"user-{user_id}"


def spectators_group(game_id, language):
    """The game's spectators' pages in `language` that take its view in a frame
    (games/live/consumers.py): pages of visitors without a seat, shown the site's time zone, whose
    script can unpack the frame. Only the spectators' view, in that language, is ever handed to
    them (by the spectators' hub, games/live/spectators.py); the notices sent to it carry versions."""
    return f"game-{game_id}-spectators-{language}"


def _is_spectators(group):
    return "-spectators-" in group


def spectators_groups(game_id):
    """The game's spectators' groups, one per language of the site."""
    return [spectators_group(game_id, code) for code, _name in settings.LANGUAGES]


def _version_notices(game_id, version):
    return [
        (group, {"type": "game.version", "version": version})
        for group in (game_group(game_id), *spectators_groups(game_id))
    ]


def send_version(game_id, version):
    """Version `version` of the game exists: its players' pages hear it and fetch their own view;
    the spectators' hubs hear it too, and render the spectators' view for their pages."""
    _deliver(_version_notices(game_id, version))


def send_chat(game_id):
    """A game's chat has a new message; the notice carries none of it (nor who wrote it)."""
    _deliver([
        (game_group(game_id), {"type": "game.chat"}),
        *((group, {"type": "game.chat"}) for group in spectators_groups(game_id)),
    ])


def send_lobby_changed(user_ids):
    _deliver([(user_group(user_id), {"type": "lobby.changed"}) for user_id in user_ids])


def send_versions_and_lobbies(versions, user_ids):
    """`send_version` for each {game id: version} of `versions` and `send_lobby_changed(user_ids)`,
    in one trip to the server's event loop (games/play/after_save.py announces a commit, or a
    sweep's batch of them, so)."""
    _deliver([
        *(notice for game_id, version in versions.items() for notice in _version_notices(game_id, version)),
        *((user_group(user_id), {"type": "lobby.changed"}) for user_id in user_ids),
    ])


def _deliver(notices):
    """Send `notices` in one trip to the channel layer (which the Redis layer makes two round trips
    to Redis: one for the groups' members, one to hand them the messages)."""
    if settings.REDIS_URL and cache.unreachable():
        # The channel layer's Redis is the cache's, which did not answer a moment ago: each trip
        # would wait for NOTICE_SECONDS. Pages check their version by themselves (static/game.js).
        logger.warning("Redis unreachable: %d notices not sent", len(notices))
        return
    _send(notices)


def _send(notices):
    """Give `notices` to the channel layer. From a thread without an event loop (a request's, a
    Celery task's), the Redis layer sends them in that thread, on its blocking connections
    (elgrande_site/channel_layers.py `group_send_many_now`): handed to the server's event loop,
    a move's notices waited for its turn, which under load is the longest wait on a move's way to
    the other screens (bench/README.md, the ninth pass). Else on an event loop, as below."""
    layer = get_channel_layer()
    if hasattr(layer, "group_send_many_now") and _running_loop() is None:
        layer.group_send_many_now(_marked(notices), NOTICE_SECONDS)
    else:
        _on_the_servers_loop(_group_send, notices)


def _marked(notices):
    """A message to a spectators' group says its group, which the spectators' hub
    (games/live/spectators.py) reads to find the pages it is for, whoever sent it."""
    return [(group, {**message, "group": group} if _is_spectators(group) else message) for group, message in notices]


# The event loop of the server of this process (Daphne, `runserver`, Uvicorn), once it has served a
# request or a socket, or started the ASGI lifespan (Uvicorn; elgrande_site/asgi.py).
_servers_loop = None


def serving_on(loop):
    global _servers_loop
    _servers_loop = loop


# How long a background thread waits for the server's loop to take its notices.
HAND_OVER_SECONDS = 30


def _on_the_servers_loop(function, *args):
    """`async_to_sync(function)(*args)`, except in a thread of the embedded site's own (the deadline
    ticker, the computer players' runner): there the coroutine runs on the server's event loop.
    The in-memory channel layer keeps each socket's queue on that loop and is not safe to use
    from another: a notice put in it from a loop of the thread's own does not wake the server,
    which took it late (at its next timer or request) or, racing with the socket, lost it. With
    Redis each loop has its own connections, and async_to_sync is right everywhere."""
    loop = _servers_loop
    if (
        loop is not None
        and loop.is_running()
        and loop is not _running_loop()
        and _in_memory_layer()
    ):
        return asyncio.run_coroutine_threadsafe(function(*args), loop).result(HAND_OVER_SECONDS)
    return async_to_sync(function)(*args)


def _running_loop():
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _in_memory_layer():
    from channels.layers import InMemoryChannelLayer

    return isinstance(get_channel_layer(), InMemoryChannelLayer)


# A trip to the channel layer not done within this many seconds is given up (TimeoutError, which
# the callers log): a Redis gone silent held each of a move's two trips for its connections'
# socket timeout (15 s), and the player who moved waited half a minute for the answer. A page
# that missed the notice checks its version by itself within a minute (static/game.js).
NOTICE_SECONDS = 3


async def _group_send(notices):
    """Send each (group, message) (`_marked`) from an event loop."""
    notices = _marked(notices)
    layer = get_channel_layer()
    async with asyncio.timeout(NOTICE_SECONDS):
        if len(notices) > 1 and hasattr(layer, "group_send_many"):
            # The Redis layer (elgrande_site/channel_layers.py): two round trips for them all, not
            # four per group.
            await layer.group_send_many(notices)
        else:
            await asyncio.gather(*(layer.group_send(group, message) for group, message in notices))
