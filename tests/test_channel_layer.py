"""The Redis channel layer of elgrande_site/channel_layers.py: its send to many groups at once, as
the deadline sweep sends a batch's notices, and its receive, which ends when it is cancelled."""

import asyncio
import random
import time
from uuid import uuid4

import pytest
import redis
from channels.layers import get_channel_layer
from django.conf import settings

from elgrande_site.channel_layers import _until_it_ends
from tests.support.redis_relay import layer_through, relayed_redis, through

pytestmark = pytest.mark.skipif(
    not settings.REDIS_URL, reason="needs REDIS_URL: this is about the channels-redis layer (CI sets it)"
)


async def receive(layer, channel):
    try:
        return await asyncio.wait_for(layer.receive(channel), 0.5)
    except TimeoutError:
        return None


@pytest.mark.parametrize("way", ["on the loop", "from a thread"])
async def test_only_the_groups_somebody_listens_to_are_sent_to_and_every_listener_hears(
    channel_prefix_of_this_process, monkeypatch, way
):
    layer = get_channel_layer()
    # Names of this test's own: other tests of this process leave pages in their games' groups.
    one, two, three, lobby = (f"{name}-{uuid4().hex}" for name in ("game", "game", "game", "user"))
    first, second, stale = [await layer.new_channel() for _ in range(3)]
    await layer.group_add(one, first)
    await layer.group_add(one, second)
    await layer.group_add(lobby, second)
    # A member whose group membership expired (a page gone without leaving) is no listener.
    await layer.group_add(three, stale)
    redis.Redis.from_url(settings.REDIS_URL).zadd(
        f"{channel_prefix_of_this_process}:group:{three}", {stale: time.time() - layer.group_expiry - 10}
    )
    sent = []
    real = layer._to_push

    def to_push(group, channels, message):
        sent.append(group)
        return real(group, channels, message)

    monkeypatch.setattr(layer, "_to_push", to_push)
    notices = [
        (one, {"type": "game.version", "version": 4}),
        (two, {"type": "game.version", "version": 9}),
        (three, {"type": "game.version", "version": 2}),
        (lobby, {"type": "lobby.changed"}),
    ]
    if way == "on the loop":
        await layer.group_send_many(notices)
    else:  # a request's thread, a Celery task's: no event loop there (games/broadcast.py)
        await asyncio.to_thread(layer.group_send_many_now, notices, 3)
    assert sorted(sent) == sorted([one, lobby])
    assert await receive(layer, first) == {"type": "game.version", "version": 4}
    heard = [await receive(layer, second), await receive(layer, second)]
    assert sorted(heard, key=str) == [{"type": "game.version", "version": 4}, {"type": "lobby.changed"}]
    assert await receive(layer, stale) is None
    for group, channel in ((one, first), (one, second), (lobby, second), (three, stale)):
        await layer.group_discard(group, channel)


async def ended(task, seconds):
    """Whether `task` ended within `seconds`; a task still running is then cancelled until it
    ends (each cancellation reaches it at its next await), so that a failing test fails, not hangs."""
    await asyncio.wait([task], timeout=seconds)
    if task.done():
        return True
    await _until_it_ends(task)
    return False


async def test_the_process_pump_ends_when_cancelled_even_if_redis_py_lets_the_cancellation_go_by(monkeypatch):
    # What asyncio.wait_for does on Python 3.11 when redis-py writes a command the moment the
    # task is cancelled: the command's result comes back and the cancellation is lost. The pump
    # that pops the process's messages is cancelled when its event loop ends (Daphne stopping,
    # a test's loop), and must end then, not pop again for ever.
    layer = get_channel_layer()
    real = layer._pop_many
    lost = []

    async def pop_that_loses_a_cancellation(index, channel, wait, **options):
        try:
            return await real(index, channel, wait, **options)
        except asyncio.CancelledError:
            if lost:
                raise
            lost.append(channel)
            return []  # as if the blocking pop had timed out

    monkeypatch.setattr(layer, "_pop_many", pop_that_loses_a_cancellation)
    channel = await layer.new_channel()
    receiving = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(0.2)  # the pump is in its blocking pop
    pump = layer._pumps[asyncio.get_running_loop()]
    pump.cancel()
    assert await ended(pump, 3)
    assert lost, "the cancellation reached the blocking pop"
    # A receive starts the pump again, and the layer still receives.
    receiving.cancel()
    await layer.send(channel, {"type": "game.version", "version": 1})
    assert await receive(layer, channel) == {"type": "game.version", "version": 1}


async def test_receives_cancelled_at_any_moment_all_end():
    # A consumer's receive is cancelled when its socket closes, at whatever point it is: before
    # its pop was sent, while it is written, while Redis holds it. On Python 3.11 about one in
    # thirty went on popping for ever through redis-py, and the consumer with it.
    chance = random.Random(7)
    layer = get_channel_layer()
    for _ in range(100):
        channel = await layer.new_channel()
        receiving = asyncio.ensure_future(layer.receive(channel))
        await asyncio.sleep(chance.random() * 0.03)
        receiving.cancel()
        assert await ended(receiving, 2)
        assert receiving.cancelled()


async def test_a_message_popped_for_another_socket_as_a_receive_is_cancelled_is_not_lost(monkeypatch):
    # The sockets of one process share its queue in Redis: whichever consumer's receive holds the
    # process's lock pops the next message, for whichever socket it is. A socket that closes has
    # its receive cancelled; if that came after Redis popped a message and before the reply was
    # read (a moment stretched here to 0.3 s, a busy event loop's), the message was lost: another
    # page never heard of a move (seen once in bench/web.py, right after 500 pages left at once).
    layer = get_channel_layer()
    pop = redis.asyncio.Redis.bzpopmin
    popped = asyncio.Event()

    async def slow_to_read_the_reply(self, *args, **kwargs):
        result = await pop(self, *args, **kwargs)
        if result is not None:
            popped.set()
            await asyncio.sleep(0.3)
        return result

    monkeypatch.setattr(redis.asyncio.Redis, "bzpopmin", slow_to_read_the_reply)
    leaving, staying = await layer.new_channel(), await layer.new_channel()
    holder = asyncio.ensure_future(layer.receive(leaving))
    await asyncio.sleep(0.2)  # it holds the process's lock, in its blocking pop
    waiting = asyncio.ensure_future(layer.receive(staying))
    await asyncio.sleep(0.1)
    await layer.send(staying, {"type": "game.version", "version": 7})
    await asyncio.wait_for(popped.wait(), 3)
    holder.cancel()  # the leaving page's socket closes
    assert await ended(holder, 3)
    assert await asyncio.wait_for(waiting, 3) == {"type": "game.version", "version": 7}
    # And only once.
    assert await receive(layer, staying) is None


async def test_the_messages_waiting_for_a_process_are_taken_in_one_round_trip_and_in_order(monkeypatch):
    # channels-redis took four round trips per message, one after the other: under the moves'
    # load of bench/web.py a process's messages queued in Redis behind each other.
    layer = get_channel_layer()
    first, second = await layer.new_channel(), await layer.new_channel()
    for version in range(1, 51):
        await layer.send(first if version % 2 else second, {"type": "game.version", "version": version})
    pops = []
    real = layer._pop_many

    async def counted(index, channel, wait, **options):
        found = await real(index, channel, wait, **options)
        pops.append(len(found))
        return found

    monkeypatch.setattr(layer, "_pop_many", counted)
    heard = {first: [], second: []}
    for channel in (first, second):
        while (message := await receive(layer, channel)) is not None:
            heard[channel].append(message["version"])
    assert heard == {first: list(range(1, 51, 2)), second: list(range(2, 51, 2))}
    assert pops[0] == 50 and sum(pops) == 50


async def heard_through(monkeypatch, versions, pop, batch=None):
    """The versions a channel hears of `versions` sent to it, its pump's pops going through
    `pop(real, calls, index, key, wait, **options)` (`calls`: each pop's options, in order)."""
    layer = get_channel_layer()
    monkeypatch.setattr(layer, "PUMP_PAUSE", 0.05)
    if batch is not None:
        monkeypatch.setattr(layer, "PUMP_BATCH", batch)
    channel = await layer.new_channel()
    for version in versions:
        await layer.send(channel, {"type": "game.version", "version": version})
    real, calls = layer._pop_many, []

    async def popping(index, key, wait, **options):
        calls.append(options)
        return await pop(real, calls, index, key, wait, **options)

    monkeypatch.setattr(layer, "_pop_many", popping)
    heard = []
    while (message := await receive(layer, channel)) is not None:
        heard.append(message["version"])
    return heard, calls


async def test_a_batch_whose_answer_was_lost_with_its_connection_comes_once_on_the_next_pop(monkeypatch):
    # Redis popped the batch, and the connection was cut before its answer was read: the batch
    # kept in the backup goes back in the queue, in its order, and is handed over once.
    async def answer_lost_once(real, calls, index, key, wait, **options):
        found = await real(index, key, wait, **options)
        if found and len(calls) == 1:
            raise redis.exceptions.ConnectionError("Connection closed by server.")
        return found

    heard, calls = await heard_through(monkeypatch, range(1, 6), answer_lost_once)
    assert heard == [1, 2, 3, 4, 5]
    assert len(calls) >= 2


async def test_a_batch_handed_over_is_not_handed_again_after_a_pop_that_never_reached_redis(monkeypatch):
    # The pop after a batch was handed over fails before Redis ran it (the connection refused):
    # the backup still holds that batch, which the next pop drops rather than puts back.
    async def refused_once(real, calls, index, key, wait, **options):
        if len(calls) == 2:
            raise redis.exceptions.ConnectionError("Connection refused.")
        return await real(index, key, wait, **options)

    heard, _calls = await heard_through(monkeypatch, range(1, 4), refused_once, batch=2)
    assert heard == [1, 2, 3]


async def test_a_message_that_cannot_be_read_is_dropped_and_the_next_ones_still_come():
    # A member of the process's queue in Redis that is no message of this site (written by another
    # version of it, or damaged): the pump that takes the process's messages drops it and goes on.
    layer = get_channel_layer()
    channel = await layer.new_channel()
    receiving = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(0.2)  # the pump is in its blocking pop
    queue = layer.prefix + layer.non_local_name(channel)
    async with redis.asyncio.Redis.from_url(settings.REDIS_URL) as direct:
        await direct.zadd(queue, {b"\xc1 not a message": time.time()})
    await layer.send(channel, {"type": "game.version", "version": 3})
    assert await asyncio.wait_for(receiving, 3) == {"type": "game.version", "version": 3}


@pytest.fixture
def redis_relay():
    with relayed_redis() as relay:
        yield relay


async def test_the_first_notice_after_a_redis_blip_is_sent_on_a_fresh_connection(redis_relay):
    sender, listener = layer_through(redis_relay), get_channel_layer()
    group = f"game-{uuid4().hex}"
    channel = await listener.new_channel()
    await listener.group_add(group, channel)
    await sender.group_send(group, {"type": "game.version", "version": 1})
    assert await receive(listener, channel) == {"type": "game.version", "version": 1}

    async def blip():
        """Redis away for a moment: the connections the sender keeps in its pool are cut."""
        redis_relay.down()
        await asyncio.sleep(1)
        redis_relay.up()

    # The sender's next notice was lost ("Connection closed by server"): now it is sent again on
    # new connections, and heard; and so are a move's notices to several groups, which ask who
    # listens first (games/broadcast.py).
    await blip()
    await sender.group_send(group, {"type": "game.version", "version": 2})
    assert await receive(listener, channel) == {"type": "game.version", "version": 2}
    await blip()
    await sender.group_send_many([
        (group, {"type": "game.version", "version": 3}), (f"game-{uuid4().hex}", {"type": "game.version", "version": 3})
    ])
    assert await receive(listener, channel) == {"type": "game.version", "version": 3}

    # With Redis still away, the retries end, in an error the caller logs, rather than for ever.
    redis_relay.down()
    with pytest.raises(redis.exceptions.ConnectionError):
        await sender.group_send(group, {"type": "game.version", "version": 4})
    await listener.group_discard(group, channel)
    await sender.close_pools()


def test_the_first_notice_from_a_thread_after_a_redis_blip_is_sent_on_a_fresh_connection(redis_relay):
    """As above, for the notices of a request's thread or a Celery task's, sent there on blocking
    connections (games/broadcast.py)."""
    sender, listener = layer_through(redis_relay), get_channel_layer()
    group = f"game-{uuid4().hex}"

    async def listening():
        channel = await listener.new_channel()
        await listener.group_add(group, channel)
        return channel

    async def heard(channel):
        return await receive(listener, channel)

    # One loop for the listener throughout: its connections belong to it.
    with asyncio.Runner() as runner:
        channel = runner.run(listening())
        sender.group_send_many_now([(group, {"type": "game.version", "version": 1})], 3)
        assert runner.run(heard(channel)) == {"type": "game.version", "version": 1}
        for version in (2, 3):
            redis_relay.down()
            time.sleep(1)
            redis_relay.up()
            notices = [(group, {"type": "game.version", "version": version}), (f"user-{uuid4().hex}", {"type": "x"})]
            sender.group_send_many_now(notices, 3)
            assert runner.run(heard(channel)) == {"type": "game.version", "version": version}
        # With Redis still away, the retries end, in an error the caller logs, rather than for ever.
        redis_relay.down()
        started = time.monotonic()
        with pytest.raises(redis.exceptions.ConnectionError):
            sender.group_send_many_now([(group, {"type": "game.version", "version": 4})], 3)
        assert time.monotonic() - started < 3
        runner.run(listener.group_discard(group, channel))


def test_a_notice_from_a_thread_finding_every_connection_busy_gives_up_in_seconds():
    """More threads sending at once than the process may open connections (REDIS_MAX_CONNECTIONS):
    the one left waits for a free one for half of its time, then gives up, not tried again."""
    import threading

    from elgrande_site.channel_layers import WaitingRedisChannelLayer

    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    [host] = config["hosts"]
    layer = WaitingRedisChannelLayer(**{**config, "hosts": [{**host, "max_connections": 1}]})
    pool = layer._blocking_clients(2)[0].connection_pool
    held = pool.get_connection()  # another thread's send, under way
    outcome = []

    def send():
        started = time.monotonic()
        try:
            layer.group_send_many_now([(f"game-{uuid4().hex}", {"type": "game.version", "version": 1})], 2)
        except Exception as error:  # noqa: BLE001 -- the outcome is what the test reads
            outcome.append((type(error), time.monotonic() - started))

    sending = threading.Thread(target=send, daemon=True)
    sending.start()
    sending.join(5)
    pool.release(held)
    assert not sending.is_alive()
    [(kind, seconds)] = outcome
    assert kind is TimeoutError and 0.9 < seconds < 1.8
    # With its connection back, the next notice goes.
    layer.group_send_many_now([(f"game-{uuid4().hex}", {"type": "game.version", "version": 2})], 2)


def test_a_move_s_notices_from_a_thread_go_to_redis_without_an_event_loop(monkeypatch):
    """A request's thread sends its move's notices itself: never handed to the server's event loop
    (asgiref's async_to_sync), whose turn under load they waited for."""
    from games import broadcast

    monkeypatch.setattr(broadcast, "_on_the_servers_loop", lambda *args: pytest.fail("handed to an event loop"))
    listener = get_channel_layer()
    game_id = random.randrange(10**9, 2 * 10**9)

    async def listening():
        channel = await listener.new_channel()
        await listener.group_add(broadcast.game_group(game_id), channel)
        return channel

    with asyncio.Runner() as runner:
        channel = runner.run(listening())
        broadcast.send_version(game_id, 7)
        assert runner.run(receive(listener, channel)) == {"type": "game.version", "version": 7}
        runner.run(listener.group_discard(broadcast.game_group(game_id), channel))


def test_a_notice_to_a_silent_redis_is_given_up_in_seconds_not_held_for_the_socket_timeout(
    redis_relay, settings, caplog
):
    """A move's notices go out before its answer: with Redis silent, each trip waited for the
    connections' socket timeout (15 s), and the player who moved waited half a minute."""
    import threading

    from channels.layers import channel_layers

    from games import broadcast

    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    [host] = config["hosts"]
    settings.CHANNEL_LAYERS = {"default": {**settings.CHANNEL_LAYERS["default"], "CONFIG": {
        **config, "hosts": [{**host, "address": through(redis_relay, host["address"])}]}}}
    channel_layers.backends = {}
    broadcast.send_version(10**9, 1)  # a connection in the pool, on the relay
    redis_relay.silent()
    outcome = []

    def move_s_notices():
        try:
            broadcast.send_version(10**9, 2)
        except Exception as error:  # noqa: BLE001 -- the outcome is what the test reads
            outcome.append(error)
        else:
            outcome.append(None)

    sending = threading.Thread(target=move_s_notices, daemon=True)
    sending.start()
    sending.join(timeout=host["socket_timeout"] - 5)
    assert not sending.is_alive(), "the notice was held for the socket timeout"
    assert len(outcome) == 1 and isinstance(outcome[0], TimeoutError)
    redis_relay.up()
    channel_layers.backends = {}
