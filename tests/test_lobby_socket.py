"""The lobby's per-player socket: told only that one of the player's games changed."""

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from elgrande_site.asgi import application
from games.models import Game
from games.play import expiry, lifecycle, moving
from tests.support.helpers import HOST, ORIGIN, user_at
from tests.support.sockets import session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


async def lobby_of(user):
    communicator = WebsocketCommunicator(
        application, "/ws/lobby/", headers=[HOST, ORIGIN, await database_sync_to_async(session_cookie)(user)]
    )
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def test_an_anonymous_lobby_socket_is_refused(db):
    communicator = WebsocketCommunicator(application, "/ws/lobby/", headers=[HOST, ORIGIN])
    connected, _ = await communicator.connect()
    assert not connected


async def test_a_move_tells_the_lobbies_of_the_games_players_and_nobody_elses(start_game, make_user):
    game = await database_sync_to_async(start_game)(3)
    seat = game.to_act[0]
    mover = await database_sync_to_async(user_at)(game, seat)
    player = await database_sync_to_async(user_at)(game, (seat + 1) % 3)
    stranger = await database_sync_to_async(make_user)()
    players, strangers = [await lobby_of(mover), await lobby_of(player)], [await lobby_of(stranger)]

    await database_sync_to_async(moving.submit_move)(
        game, user=mover, move={"type": "bid", "card": 9}, expected_version=game.version
    )

    for communicator in players:
        assert await communicator.receive_json_from(timeout=2) == {"changed": True}
        assert await communicator.receive_nothing()
    for communicator in strangers:
        assert await communicator.receive_nothing(timeout=0.3)
    for communicator in players + strangers:
        await communicator.disconnect()


async def test_joining_and_leaving_tell_the_lobbies_of_everyone_concerned(make_user):
    creator, joiner = await database_sync_to_async(make_user)(), await database_sync_to_async(make_user)()
    game = await database_sync_to_async(lifecycle.create_game)(creator, num_players=3)
    lobbies = [await lobby_of(creator), await lobby_of(joiner)]
    await database_sync_to_async(lifecycle.join_game)(game, user=joiner)
    for communicator in lobbies:
        assert await communicator.receive_json_from(timeout=2) == {"changed": True}
    await database_sync_to_async(lifecycle.leave_game)(game, user=joiner)
    # The player who left is no longer seated, but his lobby still lists the game until told.
    for communicator in lobbies:
        assert await communicator.receive_json_from(timeout=2) == {"changed": True}
        await communicator.disconnect()


async def test_a_deadline_tells_the_lobbies_too(start_game):
    game = await database_sync_to_async(start_game)(2)
    user = await database_sync_to_async(user_at)(game, 0)
    communicator = await lobby_of(user)
    await database_sync_to_async(
        Game.objects.filter(pk=game.pk).update
    )(deadline=timezone.now() - timedelta(seconds=1))
    assert await database_sync_to_async(expiry.apply_default_moves)(game.pk, version=game.version)
    assert await communicator.receive_json_from(timeout=2) == {"changed": True}
    await communicator.disconnect()


async def test_what_a_lobby_sends_is_ignored(make_user):
    communicator = await lobby_of(await database_sync_to_async(make_user)())
    await communicator.send_to(text_data="not json {")
    await communicator.send_json_to({"changed": True})
    assert await communicator.receive_nothing(timeout=0.2)
    await communicator.disconnect()
