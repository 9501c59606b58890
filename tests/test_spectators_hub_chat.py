"""The spectators' hub hands a chat notice to its pages off its receive loop (games/live/spectators.py
`take`): a private game's spectator page asks the database whether it may still hear
(games/live/consumers.py `still_allowed`), and while those look-ups wait, notices of other games
must still reach their spectators at once."""

import asyncio
import time

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from games import broadcast
from games.live.consumers import GameConsumer
from tests.support.sockets import frames_page, heard, move_now, opened

pytestmark = pytest.mark.django_db(transaction=True)

LOOK_UP = 0.5  # how long one look-up waits (a busy database thread, a slow database)


async def test_a_private_games_chat_does_not_hold_up_the_other_games_spectators(start_game, make_user, monkeypatch):
    private = await database_sync_to_async(start_game)(3, private=True)
    public = await database_sync_to_async(start_game)(3)
    pages = []
    for number in range(4):
        visitor = await database_sync_to_async(make_user)(f"visitor{number}")

        def invited(visitor=visitor):
            browser = Client()
            browser.force_login(visitor)
            browser.get(reverse("invitation", args=[private.pk, private.invite_token]))
            return (b"cookie", f"sessionid={browser.cookies['sessionid'].value}".encode())

        cookie = await database_sync_to_async(invited)()
        pages.append(await opened(frames_page(private, cookie), private.version))
    watcher = await opened(frames_page(public), public.version)

    original = GameConsumer.__dict__["may_still_view"]

    async def slow(self):
        await asyncio.sleep(LOOK_UP)
        return await original.__get__(self, GameConsumer)()

    monkeypatch.setattr(GameConsumer, "may_still_view", slow)
    await database_sync_to_async(broadcast.send_chat)(private.pk)
    await asyncio.sleep(0.05)
    started = time.monotonic()
    await database_sync_to_async(move_now)(public)
    got = await heard(watcher, timeout=10)
    waited = time.monotonic() - started
    assert got.get("version") == public.version
    assert waited < LOOK_UP, f"a public game's spectator waited {waited:.2f} s behind another game's chat notice"
    for page in [*pages, watcher]:
        await page.disconnect()
