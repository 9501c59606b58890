"""The Redis channel layer's send to many groups at once (elgrande_site/channel_layers.py), as the
deadline sweep sends a batch's notices."""

import asyncio
import time
from uuid import uuid4

import pytest
import redis
from channels.layers import get_channel_layer
from django.conf import settings

pytestmark = pytest.mark.skipif(
    not settings.REDIS_URL, reason="needs REDIS_URL: this is about the channels-redis layer (CI sets it)"
)


async def receive(layer, channel):
    try:
        return await asyncio.wait_for(layer.receive(channel), 0.5)
    except TimeoutError:
        return None


async def test_only_the_groups_somebody_listens_to_are_sent_to_and_every_listener_hears(
    channel_prefix_of_this_process, monkeypatch
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
    real = layer.group_send

    async def group_send(group, message):
        sent.append(group)
        await real(group, message)

    monkeypatch.setattr(layer, "group_send", group_send)
    await layer.group_send_many([
        (one, {"type": "game.version", "version": 4}),
        (two, {"type": "game.version", "version": 9}),
        (three, {"type": "game.version", "version": 2}),
        (lobby, {"type": "lobby.changed"}),
    ])
    assert sorted(sent) == sorted([one, lobby])
    assert await receive(layer, first) == {"type": "game.version", "version": 4}
    heard = [await receive(layer, second), await receive(layer, second)]
    assert sorted(heard, key=str) == [{"type": "game.version", "version": 4}, {"type": "lobby.changed"}]
    assert await receive(layer, stale) is None
    for group, channel in ((one, first), (one, second), (lobby, second), (three, stale)):
        await layer.group_discard(group, channel)
