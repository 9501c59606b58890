"""The spectators' pages of one server process, served together.

A popular game has hundreds of spectators' sockets. Were each of them a member of its spectators'
group (games/broadcast.py), every notice to the group would reach every socket through the
channel layer on its own: one copy per socket sent to Redis, and in each process one delivery,
one task woken and one dispatch per socket, several hundred microseconds apiece, so that the
last page of 500 saw the move a few hundred milliseconds after the first.

Instead, the process's spectators' consumers join its `Hub`, and the hub alone is a member of
their groups in the channel layer: one channel per process and event loop, added to a group when
its first local spectator joins it and discarded when its last leaves. A notice to the group
(which carries the group's name, as broadcast sends it) then reaches each process once, and
the hub hands it to each of the group's local consumers in turn, by a plain call of the
consumer's handler for it (`game_play`, `game_version`, `game_chat`), as channels' dispatch would
have done: each consumer still drops what is not newer than what its page was told.

Which groups somebody listens to is still the channel layer's answer (a group with a hub in it),
so a game nobody watches has no spectators' view rendered.
"""

import asyncio
import logging
from weakref import WeakKeyDictionary

from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)

# The close code of the pages of a hub that lost its channel layer: they reconnect (static/game.js
# reconnects whatever the code). Not 1011, which a consumer's own failure closes with: Daphne
# refuses that code from an application ("must be 1000 or from [3000, 4999]"), and the page
# stayed open, fed by nobody. 4503 as HTTP's "service unavailable", beside the consumers' 4403 and 4404.
RECONNECT = 4503

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
            await self.hand_out(message)

    async def close_all(self):
        """Close every page of the hub (RECONNECT: they reconnect) and start afresh on a new channel.
        The old channel then leaves its groups where the layer still can, so that they do not
        count as watched, nor fill the layer's buffer for it, until their membership expires."""
        async with self._lock:
            members, channel = self.members, self.channel
            self.members = {}
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

    async def hand_out(self, message):
        """Give `message` to every local consumer of its group."""
        handler = message.get("type", "").replace(".", "_")
        for consumer in list(self.members.get(message.get("group"), ())):
            try:
                await getattr(consumer, handler)(message)
            except Exception:
                logger.exception("a spectator's page could not be given %s", message.get("type"))
