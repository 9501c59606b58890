"""The channels-redis layer with a connection pool that makes a burst wait instead of fail, and a
send to many groups at once."""

import asyncio
import time
from collections import defaultdict

from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError


async def _until_it_ends(task):
    """Cancel `task` until it has ended, however often it lets a cancellation go by."""
    while not task.done():
        task.cancel()
        try:
            await asyncio.wait([task], timeout=0.5)
        except asyncio.CancelledError:
            # Cancelled again while waiting: the caller's cancellation is raised once this ends.
            pass
    if not task.cancelled():
        task.exception()  # retrieved, so that asyncio does not report it as forgotten


class WaitingRedisChannelLayer(RedisChannelLayer):
    """channels-redis builds redis-py's default pool, which raises "Too many connections" as soon
    as more commands are in flight than it may open: hundreds of pages connecting or leaving at
    once then fail their handshake or leave dead group members behind. A blocking pool of the
    same size queues those commands for the next free connection instead (each takes a
    millisecond or so). Each entry of `hosts` must be a dict with an `address`; its other keys
    go to the pool (max_connections, timeout: how long a command may wait for a connection)
    and on to each connection (socket_timeout...)."""

    def create_pool(self, index):
        host = dict(self.hosts[index])
        return BlockingConnectionPool.from_url(host.pop("address"), **host)

    # The pauses before the second and third tries of a notice whose connection was lost.
    RETRY_PAUSES = (0.2, 0.4)

    async def _retried(self, command):
        """`await command()`, tried again (after RETRY_PAUSES) when a Redis connection was lost.
        After a Redis blip the pool's idle connections are dead ("Connection closed by server",
        "Connection lost"), and the first notice of a move that took one was lost: its pages
        stayed a version behind until the next move. Before each new try the idle connections
        are dropped, so that it runs on new ones. Never after a timeout: a Redis gone silent has
        already held the command for socket_timeout, and would hold each try as long. (redis-py's
        own Retry, set on the pool, also retries the receives' blocking pops: with it a server's
        spectators' pages stayed deaf after an outage in tests/test_live_updates.py, 2 runs of 3.)"""
        for pause in self.RETRY_PAUSES:
            try:
                return await command()
            except RedisConnectionError:
                for index in range(self.ring_size):
                    await self.connection(index).connection_pool.disconnect(inuse_connections=False)
                await asyncio.sleep(pause)
        return await command()

    async def group_send(self, group, message):
        """channels-redis's group_send, tried again on new connections after a lost one."""
        await self._retried(lambda: super(WaitingRedisChannelLayer, self).group_send(group, message))

    async def receive(self, channel):
        """channels-redis's receive, which always ends when it is cancelled.

        On Python 3.11 a cancellation can be lost inside redis-py: each command is written
        through `asyncio.wait_for(..., socket_timeout)`, which returns the finished write and
        drops a cancellation that comes in the same moment (fixed in Python 3.12). The
        receive then goes on with its next blocking pop, and its loop never ends: a consumer
        whose socket closed (its receive is cancelled and waited for) hung for ever, and so did
        an event loop's shutdown that waits for its cancelled tasks. Here the receive runs as a
        task of its own, which is cancelled again until it has ended. A message it had just
        taken when it was cancelled is dropped, as channels-redis drops it: its reader is
        going away."""
        receiving = asyncio.ensure_future(super().receive(channel))
        try:
            return await asyncio.shield(receiving)
        except asyncio.CancelledError:
            await _until_it_ends(receiving)
            raise

    async def group_send_many(self, notices):
        """`group_send` of each (group, message) of `notices`, for the deadline sweep's batches of a
        hundred notices, most to groups nobody listens to (a game page nobody has open): the
        members of all the groups are asked for in one pipelined round trip per Redis host
        instead of two round trips per group, and only the groups that have members get the
        message, through `group_send` itself."""
        listened = set(await self.groups_with_members({group for group, _ in notices}))
        await asyncio.gather(*(self.group_send(group, message) for group, message in notices if group in listened))

    async def groups_with_members(self, groups):
        """Those of `groups` that somebody listens to (a member whose membership has not expired),
        in one pipelined round trip per Redis host, tried again on new connections after a lost one."""
        return await self._retried(lambda: self._groups_with_members(groups))

    async def _groups_with_members(self, groups):
        by_host = defaultdict(list)
        for group in groups:
            assert self.require_valid_group_name(group), "Group name not valid"
            by_host[self.consistent_hash(group)].append(group)
        expired = int(time.time()) - self.group_expiry
        listened = []
        for index, names in by_host.items():
            # One script per host counts each group's members (as group_send's ZCOUNT, the
            # expired ones left out) and answers with the positions of those that have any: a
            # ZCOUNT each, pipelined, was a command packed and an answer parsed by redis-py per
            # group, 20 ms of CPU for a sweep's batch of 405 (bench/README.md).
            found = await self.connection(index).register_script(_LISTENED)(
                keys=[self._group_key(group) for group in names], args=[f"({expired}"]
            )
            listened += [names[int(position)] for position in found]
        return listened


# The positions (from 0) of the KEYS, sorted sets of a group's members scored by when each joined,
# with a member that joined after ARGV[1] (a ZRANGEBYSCORE bound).
_LISTENED = """
local found = {}
for position, key in ipairs(KEYS) do
    if redis.call('ZCOUNT', key, ARGV[1], '+inf') > 0 then
        found[#found + 1] = position - 1
    end
end
return found
"""
