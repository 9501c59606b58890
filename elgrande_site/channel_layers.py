"""The channels-redis layer with a connection pool that makes a burst wait instead of fail, and a
send to many groups at once."""

import asyncio
import time
from collections import defaultdict

from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
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
    and on to each connection (socket_timeout, retry: `retry()` unless given...)."""

    def create_pool(self, index):
        host = dict(self.hosts[index])
        host.setdefault("retry", self.retry())
        return BlockingConnectionPool.from_url(host.pop("address"), **host)

    @staticmethod
    def retry():
        """redis-py's retry of a command whose connection was lost, on a new connection: twice,
        0.2 then 0.4 s apart. After a Redis blip the pool's connections are dead ("Connection
        closed by server", "Connection lost"), and the first notice of a move that used one was
        lost: its pages stayed a version behind until the next move. Never on a timeout: a Redis
        gone silent has already held the command for socket_timeout, and would hold each retry
        as long."""
        return Retry(ExponentialBackoff(cap=0.4, base=0.1), 2, supported_errors=(RedisConnectionError,))

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
        in one pipelined round trip per Redis host."""
        by_host = defaultdict(list)
        for group in groups:
            assert self.require_valid_group_name(group), "Group name not valid"
            by_host[self.consistent_hash(group)].append(group)
        expired = int(time.time()) - self.group_expiry
        listened = []
        for index, names in by_host.items():
            pipe = self.connection(index).pipeline(transaction=False)
            for group in names:
                # What group_send asks first: its members, the expired ones left out.
                pipe.zcount(self._group_key(group), f"({expired}", "+inf")
            counts = await pipe.execute()
            listened += [group for group, count in zip(names, counts) if count]
        return listened
