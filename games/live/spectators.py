"""The spectators' pages of one server process, served together, and their view rendered once.

A popular game has hundreds of spectators' sockets. Were each of them a member of its spectators'
group (games/broadcast.py), every notice to the group would reach every socket through the
channel layer on its own: one copy per socket sent to Redis, and in each process one delivery,
one task woken and one dispatch per socket, several hundred microseconds apiece, so that the
last page of 500 saw the move a few hundred milliseconds after the first.

Instead, the process's spectators' consumers join its `Hub`, and the hub alone is a member of
their groups in the channel layer: one channel per process and event loop, added to a group when
its first local spectator joins it and discarded when its last leaves. A notice to the group
(which carries the group's name, as broadcast sends it) then reaches each process once.

Notices carry versions only (docs/architecture.md, live updates). On a version notice the hub renders the
spectators' view of the game in the group's language (games/reading/play_view.py, in a worker
thread, never on the event loop), once however many pages it has, and hands each of them the
frame (`game_play`: gzip of {"version", "play"}, as static/game.js unpacks it), or the bare
version (`game_version`: the page fetches) when the view cannot travel. While one render of a
group runs, later notices wait, and only the newest of them is rendered next; a notice no newer
than what the group was handed is dropped. Other notices (`game.chat`) are handed on at once.
Each hand-out is a plain call of the consumer's handler, as channels' dispatch would have made:
each consumer still drops what is not newer than what its page was told.
"""

import asyncio
import gzip
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from weakref import WeakKeyDictionary

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.utils import translation

from elgrande_site.database import bounded_as_a_request
from games.infra.threads import in_each_thread
from games.reading import play_view

logger = logging.getLogger(__name__)

# The close code of the pages of a hub that lost its channel layer: they reconnect (static/game.js
# reconnects whatever the code). Not 1011, which a consumer's own failure closes with: Daphne
# refuses that code from an application ("must be 1000 or from [3000, 4999]"), and the page
# stayed open, fed by nobody. 4503 as HTTP's "service unavailable", beside the consumers' 4403 and 4404.
RECONNECT = 4503

# The largest frame (the spectators' view, compressed) handed to the pages: with a bigger one they are
# told the version and fetch the view themselves. A long game's view is some 50 kB of HTML, 7 kB
# compressed.
MAX_FRAME = 64 * 1024

# One hub per event loop: a server has one; each test's loop gets its own.
_hubs = WeakKeyDictionary()


def hub():
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = _hubs[loop] = Hub()
    return found


class Hub:
    def __init__(self):
        self.layer = get_channel_layer()
        self.channel = None
        # {group: {consumer: None}}: the local consumers of each group, in the order they joined.
        self.members = {}
        self._lock = asyncio.Lock()
        self._task = None
        # {group: _Renders}: what each group's renders stand at.
        self.renders = {}
        # The hand-outs of other notices under way (`take`), kept until done.
        self.handing = set()

    async def join(self, group, consumer):
        """`consumer` hears the notices to `group` from now on."""
        async with self._lock:
            # A channel like every consumer's (the Redis layer receives all of a process's
            # channels of one prefix through one key; another prefix would wait its turn).
            channel = self.channel or await self.layer.new_channel()
            # Every time, not only the first: it renews the membership, which the Redis layer lets
            # expire after its group_expiry. Before the hub listens and the consumer is counted
            # in: a join that fails (Redis away) leaves no member behind (its socket is never
            # accepted nor left), nor a receive on a channel of no group, whose later failure
            # would close the pages of the joins that succeeded after it.
            await self.layer.group_add(group, channel)
            if self.channel is None:
                self.channel = channel
                self._task = asyncio.create_task(self._receive())
            self.members.setdefault(group, {})[consumer] = None

    async def leave(self, group, consumer):
        members = self.members.get(group)
        if members is None or consumer not in members:
            return
        # At once, before waiting for the lock: even if the leave is cancelled (a server closing
        # the socket in a hurry), nothing is handed to the consumer any more.
        del members[consumer]
        async with self._lock:
            if self.members.get(group) is not members:
                return  # the hub was reset meanwhile (close_all)
            if not members:
                del self.members[group]
                # A render under way ends handing its frame to nobody.
                self.renders.pop(group, None)
                try:
                    await self.layer.group_discard(group, self.channel)
                except Exception:
                    # Redis away: the group keeps the hub's channel until its membership
                    # expires. The hub still stops below when nobody is left, so that the next
                    # page to join starts afresh rather than on a receive that may be dead.
                    logger.warning("the spectators' hub could not leave %s", group, exc_info=True)
            if not self.members and self._task is not None:
                # Nobody left to serve: the hub stops listening until somebody joins again. The
                # cancelled receive is not waited for: a page leaving, and the pages joining after
                # it (this holds the lock), must not hang on the Redis layer's clean-up.
                self._task.cancel()
                self._task = self.channel = None

    async def _receive(self):
        while True:
            try:
                message = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                # What was sent meanwhile is lost, and the layer may have lost the hub's groups
                # (Redis restarted): the pages are closed, as a consumer's own socket would be,
                # so that each reconnects, is told the version it missed and joins again.
                logger.exception("the spectators' hub could not receive: its pages are closed")
                await self.close_all()
                return
            await self.take(message)

    async def close_all(self):
        """Close every page of the hub (RECONNECT: they reconnect) and start afresh on a new channel.
        The old channel then leaves its groups where the layer still can, so that they do not
        count as watched, nor fill the layer's buffer for it, until their membership expires."""
        async with self._lock:
            members, channel = self.members, self.channel
            self.members, self.renders = {}, {}
            self._task = self.channel = None
        for consumer in [consumer for each in members.values() for consumer in each]:
            try:
                await consumer.close(code=RECONNECT)
            except Exception:
                logger.exception("a spectator's page could not be closed")
        if channel is not None and members:
            # After the pages are closed: with the layer away, this may take its timeouts.
            await asyncio.gather(
                *(self.layer.group_discard(group, channel) for group in members), return_exceptions=True
            )

    async def take(self, message):
        """A notice from the channel layer: a version notice starts (or waits for) the rendering of
        its group's frame; any other is handed on as it came."""
        group = message.get("group")
        if message.get("type") == "game.version" and group in self.members:
            self.render(group, message["version"])
        else:
            # Off the receive loop: a private game's page asks the database whether it may still
            # hear (games/live/consumers.py `still_allowed`), and every other group's notices
            # would wait behind those look-ups.
            task = asyncio.create_task(self.hand_out(message))
            self.handing.add(task)
            task.add_done_callback(self.handing.discard)

    def render(self, group, version):
        """Have the pages of `group` handed the spectators' view of `version` or newer, unless they
        were handed one already; without waiting for it."""
        renders = self.renders.get(group)
        if renders is None:
            renders = self.renders[group] = _Renders()
        if version <= max(renders.handed, renders.wanted):
            return
        renders.wanted = version
        if renders.task is None:
            renders.task = asyncio.create_task(self._render(group, renders))

    async def _render(self, group, renders):
        """Render and hand out the newest version wanted, until no newer one waits."""
        _game, game_id, _spectators, language = group.split("-", 3)
        try:
            while renders.wanted > renders.handed:
                wanted = renders.wanted
                try:
                    message = await _frame(int(game_id), language, wanted)
                except Exception:  # the worker thread's database connection, say: the pages fetch
                    logger.exception("the spectators' frame of %s could not be made", group)
                    message = {"type": "game.version", "version": wanted}
                renders.handed = max(renders.handed, message["version"])
                await self.hand_out({**message, "group": group})
        finally:
            renders.task = None

    async def hand_out(self, message):
        """Give `message` to every local consumer of its group."""
        handler = message.get("type", "").replace(".", "_")
        for consumer in list(self.members.get(message.get("group"), ())):
            try:
                await getattr(consumer, handler)(message)
            except Exception:
                logger.exception("a spectator's page could not be given %s", message.get("type"))


class _Renders:
    """One group's renders: the newest version handed to its pages, the newest one wanted (by a
    notice), and the task rendering, if one is under way."""

    def __init__(self):
        self.handed = self.wanted = 0
        self.task = None


# The threads the spectators' views are rendered in, the process's hubs' own: neither a consumer's
# database look-up nor a request waits behind a render in a thread they share, and a render held up
# (its database gone silent) holds up no other group's. Each group has one render at a time.
RENDERING_THREADS = 4
_RENDERING = ThreadPoolExecutor(max_workers=RENDERING_THREADS, thread_name_prefix="spectators-hub")


def _render_on_a_connection_of_its_own(game_id, language, version):
    """`_make_frame`, its database connection given back (to the pool) by the rendering thread as
    the render ends: the thread keeps none between renders.

    Not channels' database_sync_to_async, which closed it after the call: that close is looked up
    as channels.db.close_old_connections, which channels' test communicator replaces by a no-op, in
    every thread, while a test waits on a page, as a test does while a render ends. The connection
    then stayed with the thread, and kept the test database from being dropped at the end of the
    run (tests/test_spectators_socket.py)."""
    try:
        # Each wait on the database bounded as a request's (elgrande_site.database.bounded_calls).
        with bounded_as_a_request():
            return _make_frame(game_id, language, version)
    finally:
        connection.close()


_framing = sync_to_async(_render_on_a_connection_of_its_own, thread_sensitive=False, executor=_RENDERING)


def give_back_connections():
    """The renders under way ended, and with them their connections given back: for the web
    process's end (elgrande_site/shutdown.py), before its pool is closed. The threads keep none
    between renders; nothing waits at the interpreter's exit, whose threads are gone by then."""
    in_each_thread(_RENDERING, RENDERING_THREADS, lambda: connection.close())


async def _frame(game_id, language, version):
    """`_make_frame` in a rendering thread, on a connection of its own for that render."""
    return await _framing(game_id, language, version)


def _make_frame(game_id, language, version):
    """What the spectators' pages in `language` are handed for `version` of the game: the frame of
    its spectators' view as it stands (that version or newer), {"type": "game.play", "version",
    "frame": gzip of {"version", "play": the body}}; or, when the view is not to be sent (an open
    or cancelled game: play_view.spectators_play), too large, or failed to render,
    {"type": "game.version", "version": version}, and the pages fetch it."""
    try:
        with translation.override(language):
            found = play_view.spectators_play(game_id)
    except Exception:
        logger.exception("the spectators' view of game %s could not be rendered", game_id)
        found = None
    if found is not None and found[0] >= version:
        rendered, body = found
        frame = gzip.compress(json.dumps({"version": rendered, "play": body}).encode(), mtime=0)
        if len(frame) <= MAX_FRAME:
            return {"type": "game.play", "version": rendered, "frame": frame}
    return {"type": "game.version", "version": version}
