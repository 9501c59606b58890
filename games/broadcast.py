"""Channel group names, and the notices sent after a commit (games/play/after_save.py). The play room
and the consumers both use this module; it imports neither.

Notices carry no private data: a game page hears "version N exists" or "there is new table talk",
a lobby "something changed"; each page then fetches what its own session may see over HTTP. The
one exception is public: the spectators' pages that take it (`spectators_group`) get the
spectators' view of the new version in the notice itself, rendered once for all of them, so that
hundreds of them fetch nothing.
"""

import asyncio
import gzip
import json
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils import translation

from elgrande_site import cache

logger = logging.getLogger(__name__)


def game_group(game_id):
    return f"game-{game_id}"


def user_group(user_id):
    """The lobby pages of one player."""
    return f"user-{user_id}"


def spectators_group(game_id, language):
    """The game's spectators' pages in `language` that take its view in the notice
    (games/live/consumers.py): pages of visitors without a seat, shown the site's time zone, whose
    script can unpack the frame. Only the spectators' view, in that language, is ever sent to it."""
    return f"game-{game_id}-spectators-{language}"


def _is_spectators(group):
    return "-spectators-" in group


def spectators_groups(game_id):
    """The game's spectators' groups, one per language of the site."""
    return [spectators_group(game_id, code) for code, _name in settings.LANGUAGES]


# The largest frame (the spectators' view, compressed) sent in a notice: a bigger one is left to
# the pages' own re-fetch. A long game's view is some 50 kB of HTML, 7 kB compressed.
MAX_FRAME = 64 * 1024


def _version_notices(game_id, version):
    return [
        (group, {"type": "game.version", "version": version})
        for group in (game_group(game_id), *spectators_groups(game_id))
    ]


def send_version(game_id, version):
    """Version `version` of the game exists: its players' pages hear it and fetch their own view;
    the spectators' pages get the spectators' view with it, when somebody is there to see it."""
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
    """Send `notices`. The version notices for spectators' groups are sent last, and only to the
    groups somebody listens to (found in the same trip to the event loop as the other notices are
    sent), each with the spectators' view of its game rendered once (the latest version when one
    game has several notices), or as they came when that view cannot travel (`_frame`)."""
    if settings.REDIS_URL and cache.unreachable():
        # The channel layer's Redis is the cache's, which did not answer a moment ago: each trip
        # would wait for NOTICE_SECONDS. Pages check their version by themselves (static/game.js).
        logger.warning("Redis unreachable: %d notices not sent", len(notices))
        return
    plain, watched = [], {}
    for group, message in notices:
        if message["type"] == "game.version" and _is_spectators(group):
            watched[group] = max(watched.get(group, 0), message["version"])
        else:
            plain.append((group, message))
    listened = _on_the_servers_loop(_send_and_find_listened, plain, list(watched))
    if not listened:
        return
    framed = []
    for group in listened:
        _game, game_id, _spectators, language = group.split("-", 3)
        message = _frame(int(game_id), language) or {"type": "game.version", "version": watched[group]}
        framed.append((group, message))
    _on_the_servers_loop(_group_send, framed)


# The event loop of the server of this process (Daphne, `runserver`), once it has served a request
# or a socket (elgrande_site/asgi.py).
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


def _no_spectators_view(game_id):
    return None


# What renders the spectators' view of a game, (version, body) or None: set by the pages' room when
# the app is ready (games/apps.py), since this module sends notices and renders nothing itself.
_spectators_view = _no_spectators_view


def render_spectators_with(function):
    """Have the spectators' frames rendered by `function(game_id)`."""
    global _spectators_view
    _spectators_view = function


def _frame(game_id, language):
    """The notice that carries the spectators' view of the game as it stands:
    {"type": "game.play", "version", "frame": gzip of {"version", "play": the body}}; None when the
    view is not to be sent (`render_spectators_with`) or is too large. In `language`: the words of
    the spectators of that group."""
    try:
        with translation.override(language):
            found = _spectators_view(game_id)
    except Exception:
        logger.exception("the spectators' view of game %s could not be rendered", game_id)
        return None
    if found is None:
        return None
    version, body = found
    frame = gzip.compress(json.dumps({"version": version, "play": body}).encode(), mtime=0)
    if len(frame) > MAX_FRAME:
        return None
    return {"type": "game.play", "version": version, "frame": frame}


# A trip to the channel layer not done within this many seconds is given up (TimeoutError, which
# the callers log): a Redis gone silent held each of a move's two trips for its connections'
# socket timeout (15 s), and the player who moved waited half a minute for the answer. A page
# that missed the notice checks its version by itself within a minute (static/game.js).
NOTICE_SECONDS = 3


async def _send_and_find_listened(notices, groups):
    """Send `notices`, and return those of `groups` that have members."""
    layer = get_channel_layer()
    async with asyncio.timeout(NOTICE_SECONDS):
        sent = _group_send(notices) if notices else asyncio.sleep(0)
        _, listened = await asyncio.gather(sent, _groups_with_members(layer, groups))
    return listened


async def _groups_with_members(layer, groups):
    if not groups:
        return []
    if hasattr(layer, "groups_with_members"):  # the Redis layer (elgrande_site/channel_layers.py)
        return await layer.groups_with_members(groups)
    members = getattr(layer, "groups", None)  # the in-memory layer: {group: {channel: expiry}}
    if isinstance(members, dict):
        return [group for group in groups if members.get(group)]
    return list(groups)


async def _group_send(notices):
    """Send each (group, message). A message to a spectators' group says its group, which the
    spectators' hub (games/live/spectators.py) reads to find the pages it is for, whoever sent it."""
    notices = [(group, {**message, "group": group} if _is_spectators(group) else message) for group, message in notices]
    layer = get_channel_layer()
    async with asyncio.timeout(NOTICE_SECONDS):
        if len(notices) > 1 and hasattr(layer, "group_send_many"):
            # The Redis layer (elgrande_site/channel_layers.py): one round trip to find the groups
            # somebody listens to, not two per group.
            await layer.group_send_many(notices)
        else:
            await asyncio.gather(*(layer.group_send(group, message) for group, message in notices))
