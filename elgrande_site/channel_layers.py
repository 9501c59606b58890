"""The channels-redis layer with a connection pool that makes a burst wait instead of fail, and its
group sends, to one group or many at once, in two round trips; from a thread without an event
loop (a request's, a Celery task's), on blocking connections of the process's own. A process's
sockets are fed by one pump per event loop, which takes all the messages waiting for them in one
round trip."""

import asyncio
import itertools
import logging
import threading
import time
from collections import defaultdict

import redis
from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError

logger = logging.getLogger(__name__)


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
        """channels-redis's group_send in two round trips (`_send_to_groups`), tried again on new
        connections after a lost one."""
        await self._retried(lambda: self._send_to_groups([(group, message)]))

    # The pause before the process's pop is tried again after Redis failed it.
    PUMP_PAUSE = 0.5

    async def receive(self, channel):
        """The next message of `channel`. A socket's channel (process-specific: "specific.<the
        process>!<its own>") takes it from its queue in this process, which one pump per event loop
        fills from the process's one queue in Redis (`_pumping`); no socket's receive pops from
        Redis itself, so a closing socket (its receive cancelled) takes nobody else's message with
        it. In channels-redis the receive of whichever socket held the process's lock popped the
        next message for any socket of the process: cancelled after Redis popped a message and
        before its reply was read, it lost it, and another page never heard of a move (channels
        issue 1683; seen once in bench/web.py right after 500 pages left at once;
        tests/test_channel_layer.py). The queue of a socket whose receive was cancelled goes
        with it. Other channels: channels-redis's receive (`_receive_ending`)."""
        if "!" not in channel:
            return await self._receive_ending(channel)
        assert self.require_valid_channel_name(channel), "Channel name not valid"
        queue = self.receive_buffer[channel]
        self._start_pump(self.non_local_name(channel))
        try:
            return await queue.get()
        except asyncio.CancelledError:
            self.receive_buffer.pop(channel, None)
            raise

    def _start_pump(self, real_channel):
        """The pump of this event loop (one per loop: pools and queues belong to a loop), started
        if it is not running."""
        loop = asyncio.get_running_loop()
        pumps = self.__dict__.setdefault("_pumps", {})
        pump = pumps.get(loop)
        if pump is None or pump.done():
            for other in [other for other, task in pumps.items() if other.is_closed() or task.done()]:
                del pumps[other]
            pumps[loop] = asyncio.ensure_future(self._pumping(real_channel))

    async def _pumping(self, real_channel):
        """Pop the process's messages from Redis and put each in the queue of its socket(s), until
        the loop ends: all that wait, up to PUMP_BATCH, in one round trip (`_pop_many`); when none
        waits, a blocking pop for the next one. channels-redis's receive took four round trips per
        message, one after the other (a script restoring its backup, the blocking pop, the backup
        of what it popped, and that backup's removal once handed over), so that under the moves'
        load of bench/web.py the process's messages queued in Redis behind each other: a notice
        took 80-140 ms at the median from Redis to its socket, 25 ms with this pump (bench/README.md,
        the ninth pass). Each batch is kept in a backup in Redis, under a number of its own, until
        the next pop, which drops it when it is the batch last handed over, and else puts it back
        in the queue (that pop's answer was lost with its connection, after Redis popped): no batch
        is lost with a connection, nor handed over twice after a pop that never reached Redis.
        A failure of Redis is logged once, and the pop tried again every PUMP_PAUSE on new connections.
        Ends when cancelled, even when redis-py lets the cancellation go by (Python 3.11: see
        `_receive_ending`): the task's `cancelling()` is checked before each pop."""
        index = self.consistent_hash(real_channel)
        channel_key = self.prefix + real_channel
        this = asyncio.current_task()
        failing = False
        # Whether the queue was found empty: then the next pop waits for a message.
        empty = False
        # The numbers of the batches popped, and of the last one handed over ("": none yet).
        batches = itertools.count(1)
        handed = ""
        while not this.cancelling():
            batch, waiting = str(next(batches)), empty
            try:
                contents = await self._pop_many(index, channel_key, wait=waiting, batch=batch, handed=handed)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if not failing:
                    logger.warning("the process's messages cannot be taken from Redis (%s): trying again", error)
                failing = True
                await self.connection(index).connection_pool.disconnect(inuse_connections=False)
                await asyncio.sleep(self.PUMP_PAUSE)
                continue
            failing = False
            empty = not contents
            if contents and not waiting:  # a blocking pop keeps no backup
                handed = batch
            for content in contents:
                self._hand_over(content, real_channel)

    # The most messages the pump takes from Redis in one round trip.
    PUMP_BATCH = 100

    async def _pop_many(self, index, channel_key, wait, batch="", handed=""):
        """The oldest messages of the process's queue in Redis, up to PUMP_BATCH, taken from it and
        kept in its backup as batch number `batch` until the next such pop (`_POP`: the backup is
        dropped if it is batch `handed`, the last handed over, else put back in the queue first);
        with `wait`, the next one, waiting for it up to brpop_timeout ([] if none came)."""
        connection = self.connection(index)
        if wait:
            found = await connection.bzpopmin(channel_key, timeout=self.brpop_timeout)
            return [] if found is None else [found[1]]
        backup = self._backup_channel_name(channel_key)
        popped = await connection.register_script(_POP)(
            keys=[channel_key, backup, backup + "$batch"],
            args=[self.PUMP_BATCH, handed, int(self.expiry), batch],
        )
        return popped[::2]

    def _hand_over(self, content, real_channel):
        """Put the message `content` in the queue of each of its sockets."""
        try:
            message = self.deserialize(content)
            channels = message.pop("__asgi_channel__", real_channel)
        except Exception:
            # One message that cannot be read (written by another version of the site, or
            # damaged) is dropped: raised here it ended the pump, and every socket of the
            # process waited on its queue for ever.
            logger.exception("a message of the process's queue in Redis could not be read: dropped")
            return
        for channel in channels if isinstance(channels, list) else [channels]:
            self.receive_buffer[channel].put_nowait(message)

    async def _receive_ending(self, channel):
        """channels-redis's receive, which always ends when it is cancelled.

        On Python 3.11 a cancellation can be lost inside redis-py: each command is written
        through `asyncio.wait_for(..., socket_timeout)`, which returns the finished write and
        drops a cancellation that comes in the same moment (fixed in Python 3.12). The
        receive then goes on with its next blocking pop, and its loop never ends: a consumer
        whose socket closed (its receive is cancelled and waited for) hung for ever, and so did
        an event loop's shutdown that waits for its cancelled tasks. Here the receive runs as a
        task of its own, which is cancelled again until it has ended."""
        receiving = asyncio.ensure_future(super().receive(channel))
        try:
            return await asyncio.shield(receiving)
        except asyncio.CancelledError:
            await _until_it_ends(receiving)
            raise

    async def group_send_many(self, notices):
        """`group_send` of each (group, message) of `notices`: a move's eight (its game's page
        group, the spectators' groups, the players' lobbies), the deadline sweep's batches of a
        hundred, most to groups nobody listens to (a game page nobody has open). All of them in
        two round trips per Redis host (`_send_to_groups`), tried again on new connections after
        a lost one."""
        await self._retried(lambda: self._send_to_groups(notices))

    async def _send_to_groups(self, notices):
        """What channels-redis's group_send does for each (group, message) of `notices`, in two
        round trips per Redis host instead of four per group (and a fifth for the groups
        listened to): one script drops each group's expired members and answers with the
        others; a second, per host of the members' channels, drops each channel's expired
        messages and adds the new ones, short of the channel's capacity. Only the groups that
        have members get anything (`_pushes`)."""
        members = {}
        for index, names in self._by_host(notices).items():
            members.update(self._named(names, await self.connection(index).register_script(_MEMBERS)(
                keys=[self._group_key(group) for group in names], args=[self._expired_before()]
            )))
        await asyncio.gather(*(
            self._push(index, *push) for index, push in self._pushes(notices, members).items()
        ))

    def group_send_many_now(self, notices, seconds):
        """`group_send_many` from a thread without an event loop (a request's, a Celery task's), in
        that thread: the same two scripts on blocking connections of the process's own, each
        round trip given at most `seconds` / 2 (TimeoutError, as the async sends'
        asyncio.timeout), tried again after a lost connection (RETRY_PAUSES) while a round trip's
        time is left before `seconds` have passed; at once TimeoutError when no connection of the
        process's pool came free within `seconds` / 2 (waiting longer would hold the request). A
        dead idle connection is replaced by the pool itself as it hands it out. The async layer's
        connections belong to an event loop: a request's notices were handed to the server's loop
        (asgiref's async_to_sync), which under the moves' load of bench/web.py they waited for as
        long as for the two round trips (bench/README.md, the ninth pass); a Celery task's made a
        loop, and new connections, for each batch of notices."""
        deadline = time.monotonic() + seconds
        for pause in (*self.RETRY_PAUSES, None):
            try:
                return self._send_now(notices, seconds)
            except redis.exceptions.ConnectionError as error:
                if str(error) == _NO_FREE_CONNECTION:
                    raise TimeoutError(f"no Redis connection came free within {seconds / 2} s") from error
                if pause is None or time.monotonic() + pause + seconds / 2 > deadline:
                    raise
                time.sleep(pause)

    def _send_now(self, notices, seconds):
        clients = self._blocking_clients(seconds)
        try:
            members = {}
            for index, names in self._by_host(notices).items():
                members.update(self._named(names, clients[index].register_script(_MEMBERS)(
                    keys=[self._group_key(group) for group in names], args=[self._expired_before()]
                )))
            for index, (keys, messages, capacities) in self._pushes(notices, members).items():
                over = clients[index].register_script(_PUSH)(keys=keys, args=self._push_args(messages, capacities))
                if over:
                    logger.info("%s of %s channels over capacity", over, len(keys))
        except redis.exceptions.TimeoutError as error:
            # As the async layer's sends, whose asyncio.timeout the callers know.
            raise TimeoutError(f"Redis did not answer within {seconds / 2} s") from error

    _clients_lock = threading.Lock()

    def _blocking_clients(self, seconds):
        """{host index: redis.Redis} on blocking connections shared by the process's threads, made
        once per layer and `seconds` (redis-py's pools start afresh in a forked process): the
        hosts' options, with `seconds` / 2 to connect, to wait for a free connection and to read
        an answer."""
        kept = self.__dict__.setdefault("_clients", {})
        clients = kept.get(seconds)
        if clients is None:
            with self._clients_lock:
                clients = kept.get(seconds)
                if clients is None:
                    clients = {}
                    limit = seconds / 2
                    for index, host in enumerate(self.hosts):
                        options = dict(host)
                        address = options.pop("address")
                        options.update(
                            timeout=limit,
                            socket_timeout=limit,
                            socket_connect_timeout=min(options.get("socket_connect_timeout") or limit, limit),
                        )
                        pool = redis.BlockingConnectionPool.from_url(address, **options)
                        clients[index] = redis.Redis(connection_pool=pool)
                    kept[seconds] = clients
        return clients

    def _by_host(self, notices):
        """{host index: the names of the groups of `notices` kept there}."""
        by_host = defaultdict(list)
        for group in dict.fromkeys(group for group, _ in notices):
            assert self.require_valid_group_name(group), "Group name not valid"
            by_host[self.consistent_hash(group)].append(group)
        return by_host

    def _expired_before(self):
        return int(time.time()) - self.group_expiry

    @staticmethod
    def _named(names, found):
        """{group: its members' channel names}, from `_MEMBERS`'s answer for the groups `names`."""
        return {group: [channel.decode("utf8") for channel in channels] for group, channels in zip(names, found)}

    def _pushes(self, notices, members):
        """{host index: (channel keys, the messages for them, their capacities)} of `notices`, to the
        groups' `members` (`_to_push`)."""
        pushes = defaultdict(lambda: ([], [], []))
        for group, message in notices:
            if members.get(group):
                for index, keys, messages, capacities in self._to_push(group, members[group], message):
                    pushes[index][0].extend(keys)
                    pushes[index][1].extend(messages)
                    pushes[index][2].extend(capacities)
        return pushes

    def _to_push(self, group, channels, message):
        """[(host, channel keys, the message serialized for each, their capacities)] of a message to
        `group`, whose members are `channels`: as channels-redis maps them (one key, and one
        message naming its channels, per process)."""
        to_keys, messages, capacities = self._map_channel_keys_to_connection(channels, message)
        return [
            (index, keys, [messages[key] for key in keys], [capacities[key] for key in keys])
            for index, keys in to_keys.items()
        ]

    async def _push(self, index, keys, messages, capacities):
        script = self.connection(index).register_script(_PUSH)
        over = await script(keys=keys, args=self._push_args(messages, capacities))
        if over:
            logger.info("%s of %s channels over capacity", over, len(keys))

    def _push_args(self, messages, capacities):
        now = time.time()
        return [*messages, *capacities, now, int(self.expiry), int(now) - int(self.expiry)]


# The oldest ARGV[1] messages of a process's queue (KEYS[1]) taken from it, and kept in its backup
# (KEYS[2]) as batch ARGV[4] (its number in KEYS[3]), both for ARGV[3] seconds, until the next
# call, which first drops the backup if it is batch ARGV[2] (the last handed over) and else puts
# it back in the queue (the answer of the call that popped it was lost). Answers [message, score,
# message, score...], the oldest first.
_POP = """
local kept_batch = redis.call('GET', KEYS[3])
if kept_batch and kept_batch ~= ARGV[2] then
    local kept = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
    for i = 1, #kept, 2 do
        redis.call('ZADD', KEYS[1], kept[i + 1], kept[i])
    end
end
redis.call('DEL', KEYS[2], KEYS[3])
local popped = redis.call('ZPOPMIN', KEYS[1], ARGV[1])
for i = 1, #popped, 2 do
    redis.call('ZADD', KEYS[2], popped[i + 1], popped[i])
end
if #popped > 0 then
    redis.call('EXPIRE', KEYS[2], ARGV[3])
    redis.call('SET', KEYS[3], ARGV[4], 'EX', ARGV[3])
end
return popped
"""

# What redis-py's BlockingConnectionPool raises when no connection came free within its timeout.
_NO_FREE_CONNECTION = "No connection available."

# Each group of KEYS (a sorted set of its members scored by when each joined) without the members
# that joined at ARGV[1] or before (expired, as channels-redis's group_send drops them), and the
# names of those left, in the order of KEYS.
_MEMBERS = """
local found = {}
for position, key in ipairs(KEYS) do
    redis.call('ZREMRANGEBYSCORE', key, 0, ARGV[1])
    found[position] = redis.call('ZRANGE', key, 0, -1)
end
return found
"""

# channels-redis's group_send's two last steps in one: for each channel key of KEYS, its messages
# older than the expiry dropped (its pipeline's ZREMRANGEBYSCORE, ARGV[#ARGV]), then ARGV[i] added
# at the time ARGV[#ARGV - 2] unless it holds its capacity (ARGV[i + #KEYS]) already, and the
# key's expiry (ARGV[#ARGV - 1]) set anew (its script). Answers how many were over capacity.
_PUSH = """
local over_capacity = 0
local current_time = ARGV[#ARGV - 2]
local expiry = ARGV[#ARGV - 1]
local expired = ARGV[#ARGV]
for i = 1, #KEYS do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, expired)
    if redis.call('ZCOUNT', KEYS[i], '-inf', '+inf') < tonumber(ARGV[i + #KEYS]) then
        redis.call('ZADD', KEYS[i], current_time, ARGV[i])
        redis.call('EXPIRE', KEYS[i], expiry)
    else
        over_capacity = over_capacity + 1
    end
end
return over_capacity
"""
