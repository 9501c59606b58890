"""The lobby's per-player socket: told only that one of the player's games changed."""

import asyncio
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


async def test_a_lobby_logged_out_hears_nothing_more_of_its_players_games(start_game):
    """The lobby's socket outlives the page's session: once that session is logged out (in
    another tab, on a shared computer), it no longer tells whoever sits at the browser when the
    player's games move, nor keeps the player "online" in his friends' lists: it is closed, as
    a logged-out lobby's socket is refused."""
    from django.core.cache import cache
    from django.test import Client
    from django.urls import reverse

    from games.infra import presence
    from tests.support.sockets import move_now

    game = await database_sync_to_async(start_game)(3)
    player = await database_sync_to_async(user_at)(game, 1)
    cookie = await database_sync_to_async(session_cookie)(player)
    communicator = WebsocketCommunicator(application, "/ws/lobby/", headers=[HOST, ORIGIN, cookie])
    connected, _ = await communicator.connect()
    assert connected

    def logged_out():
        Client(headers={"cookie": cookie[1].decode()}).post(reverse("account_logout"))

    await database_sync_to_async(logged_out)()
    await cache.adelete(presence.online_key(player.pk))
    await database_sync_to_async(move_now)(game)
    output = await communicator.receive_output(timeout=2)
    assert output == {"type": "websocket.close", "code": 4403}, output
    assert await communicator.receive_nothing(timeout=0.3)
    assert await cache.aget(presence.online_key(player.pk)) is None
    await communicator.disconnect()


async def test_a_page_left_open_after_its_log_out_no_longer_keeps_its_player_present(start_game, settings):
    """A lobby or a game page whose session was logged out shows its player online to nobody, and
    keeps back none of his "your move" mails: its heartbeat stops at its next beat."""
    from django.core.cache import cache
    from django.test import Client
    from django.urls import reverse
    from django.utils import timezone

    from games.infra import presence
    from tests.support.sockets import page

    # A short grace, so that the pages refresh their presence every half second.
    settings.YOUR_MOVE_GRACE_SECONDS = 1.5
    game = await database_sync_to_async(start_game)(3)
    player = await database_sync_to_async(user_at)(game, 1)
    cookie = await database_sync_to_async(session_cookie)(player)
    lobby = WebsocketCommunicator(application, "/ws/lobby/", headers=[HOST, ORIGIN, cookie])
    assert (await lobby.connect())[0]
    game_page = page(game, cookie)
    await game_page.connect()
    await game_page.receive_json_from()
    await asyncio.sleep(2 * presence.refresh_seconds())
    assert await cache.aget(presence.online_key(player.pk)) is not None

    def logged_out():
        Client(headers={"cookie": cookie[1].decode()}).post(reverse("account_logout"))

    await database_sync_to_async(logged_out)()
    await asyncio.sleep(2 * presence.refresh_seconds())
    await cache.adelete(presence.online_key(player.pk))
    await asyncio.sleep(3 * presence.refresh_seconds())
    assert await cache.aget(presence.online_key(player.pk)) is None
    _last, is_open = await cache.aget(presence.key(game.pk, player.pk))
    assert not is_open
    assert presence.quiet_until(game.pk, player.pk, timezone.now() + timedelta(seconds=2)) is None
    await game_page.disconnect()
    await lobby.disconnect()


def test_the_sockets_look_at_their_session_is_bounded_as_a_requests(monkeypatch, settings):
    """A lobby's or game page's socket asks at each heartbeat and lobby notice whether its session
    still holds the player: that look runs in the thread channels runs every socket's look-ups in,
    where a pooled connection gone silent for good held it, and every socket's handshake behind
    it, for good unless its waits are bounded as a request's (elgrande_site.database.bounded_calls)."""
    from asgiref.sync import async_to_sync

    from elgrande_site import database
    from games.live import consumers, own_views

    seen = []

    def reader_request(scope):
        seen.append(getattr(database._request, "limits", None))
        raise RuntimeError("looked")

    monkeypatch.setattr(own_views, "reader_request", reader_request)
    assert async_to_sync(consumers.signed_in_as)({}, 1) is True
    assert seen == [(settings.DATABASE_WAIT_LIMIT, settings.DATABASE_CHECK_LIMIT)]
