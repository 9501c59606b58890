"""A new message is announced on the game's socket with a notice that carries none of it: each
page then fetches what its own reader may read."""

import json

import pytest
from channels.db import database_sync_to_async
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import ChatMessage
from tests.support.chat import post_chat
from tests.support.helpers import logged_in, user_at
from tests.support.sockets import page, session_cookie


@pytest.mark.django_db(transaction=True)
async def test_every_open_page_hears_that_there_is_new_talk_and_nothing_of_it(start_game):
    game = await database_sync_to_async(start_game)(3)
    writer = await database_sync_to_async(user_at)(game, 0)
    other = await database_sync_to_async(user_at)(game, 1)
    pages = [page(game), page(game, await database_sync_to_async(session_cookie)(other))]
    for communicator in pages:
        assert (await communicator.connect())[0]
        assert await communicator.receive_json_from() == {"version": game.version}

    client = await database_sync_to_async(logged_in)(writer)
    response = await database_sync_to_async(post_chat)(client, game, "A secret about the veto")
    assert response.status_code == 200

    for communicator in pages:
        notice = await communicator.receive_from(timeout=2)
        assert json.loads(notice) == {"chat": True}
        assert "veto" not in notice and writer.username not in notice
        assert await communicator.receive_nothing()
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_refused_message_sends_nothing(start_game, make_user):
    game = await database_sync_to_async(start_game)(3)
    communicator = page(game)
    await communicator.connect()
    await communicator.receive_json_from()
    player = await database_sync_to_async(logged_in)(await database_sync_to_async(user_at)(game, 0))
    spectator = await database_sync_to_async(logged_in)(await database_sync_to_async(make_user)())
    assert (await database_sync_to_async(post_chat)(player, game, "a\x00b")).status_code == 400
    assert (await database_sync_to_async(post_chat)(spectator, game, "hi")).status_code == 403
    assert await communicator.receive_nothing(timeout=0.3)
    await communicator.disconnect()


@pytest.mark.django_db
def test_the_game_page_and_the_chat_take_as_many_queries_with_many_messages(table):
    game, players = table
    seat = game.seats.get(index=1)
    post_chat(players[1], game, "first")

    def queries(url):
        with CaptureQueriesContext(connection) as captured:
            assert players[0].get(url).status_code == 200
        return len(captured)

    urls = [reverse("game", args=[game.pk]), reverse("chat", args=[game.pk])]
    players[0].get(urls[0])  # the page's play partial is rendered into the view cache once
    before = [queries(url) for url in urls]
    ChatMessage.objects.bulk_create(ChatMessage(game=game, seat=seat, text=f"line {n}") for n in range(300))
    players[0].post(reverse("chat_mute", args=[game.pk]), {"seat": 2, "muted": "1"})
    assert [queries(url) for url in urls] == before
    # The page: the session's user, the game, its seats (with the reader's mutes), vacations,
    # the chat and the turn report's moves (its play partial from the view cache); the chat alone:
    # user, game, seats, messages.
    assert before[0] <= 6 and before[1] <= 4
