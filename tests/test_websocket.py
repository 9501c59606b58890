import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from elgrande_site.asgi import application
from games.play import moving
from games.play.errors import StaleVersion
from tests.support.helpers import HOST, ORIGIN, user_at
from tests.support.sockets import page, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


async def test_every_open_page_hears_the_new_version_and_nothing_else(start_game):
    game = await database_sync_to_async(start_game)(3)
    seat = game.to_act[0]
    mover = await database_sync_to_async(user_at)(game, seat)
    other = await database_sync_to_async(user_at)(game, (seat + 1) % 3)
    cookie = await database_sync_to_async(session_cookie)(other)
    pages = [page(game), page(game, cookie)]
    for communicator in pages:
        connected, _ = await communicator.connect()
        assert connected
        assert await communicator.receive_json_from() == {"version": game.version}

    await database_sync_to_async(moving.submit_move)(
        game, user=mover, move={"type": "bid", "card": 9}, expected_version=game.version
    )

    for communicator in pages:
        assert await communicator.receive_json_from(timeout=2) == {"version": game.version + 1}
        assert await communicator.receive_nothing()
        await communicator.disconnect()


async def test_a_refused_move_sends_nothing(start_game):
    game = await database_sync_to_async(start_game)(3)
    mover = await database_sync_to_async(user_at)(game, game.to_act[0])
    communicator = page(game)
    await communicator.connect()
    await communicator.receive_json_from()
    with pytest.raises(StaleVersion):
        await database_sync_to_async(moving.submit_move)(
            game, user=mover, move={"type": "bid", "card": 9}, expected_version=game.version - 1
        )
    assert await communicator.receive_nothing(timeout=0.3)
    await communicator.disconnect()


async def test_a_reconnecting_page_learns_the_version_it_missed(start_game):
    game = await database_sync_to_async(start_game)(3)
    mover = await database_sync_to_async(user_at)(game, game.to_act[0])
    communicator = page(game)
    await communicator.connect()
    await communicator.receive_json_from()
    await communicator.disconnect()
    await database_sync_to_async(moving.submit_move)(
        game, user=mover, move={"type": "bid", "card": 9}, expected_version=game.version
    )
    again = page(game)
    await again.connect()
    assert await again.receive_json_from() == {"version": game.version + 1}
    await again.disconnect()


async def test_private_games_refuse_strangers_sockets(start_game, make_user):
    game = await database_sync_to_async(start_game)(3, private=True)
    stranger = await database_sync_to_async(make_user)("stranger")
    for headers in ([], [await database_sync_to_async(session_cookie)(stranger)]):
        communicator = page(game, *headers)
        connected, _ = await communicator.connect()
        assert not connected
    player = await database_sync_to_async(user_at)(game, 0)
    communicator = page(game, await database_sync_to_async(session_cookie)(player))
    connected, _ = await communicator.connect()
    assert connected
    await communicator.disconnect()


async def test_a_socket_for_a_missing_game_is_refused(db):
    communicator = WebsocketCommunicator(application, "/ws/games/424242/", headers=[HOST, ORIGIN])
    connected, _ = await communicator.connect()
    assert not connected


async def test_sockets_from_foreign_origins_are_refused(start_game):
    game = await database_sync_to_async(start_game)(2)
    communicator = WebsocketCommunicator(
        application, f"/ws/games/{game.pk}/", headers=[HOST, (b"origin", b"http://evil.example")]
    )
    connected, _ = await communicator.connect()
    assert not connected


@pytest.mark.parametrize(
    "host, origin",
    [
        (b"testserver", b"http://testserver:9999"),  # another port of the same host
        (b"testserver", b"https://testserver"),  # another scheme
        (b"testserver:8000", b"http://testserver"),
        (b"testserver:8000", b"http://testserver:8001"),
        (b"evil.example", b"http://evil.example"),  # a host the site does not serve
        (b"testserver", b"null"),
    ],
)
async def test_sockets_from_another_port_or_scheme_of_the_site_s_host_are_refused(start_game, host, origin):
    game = await database_sync_to_async(start_game)(2)
    communicator = WebsocketCommunicator(
        application, f"/ws/games/{game.pk}/", headers=[(b"host", host), (b"origin", origin)]
    )
    assert await communicator.connect() == (False, 1000)


@pytest.mark.parametrize(
    "scheme, host, origin, trusted",
    [
        ("ws", b"testserver:8000", b"http://testserver:8000", []),
        ("wss", b"testserver", b"https://testserver", []),
        # Behind a proxy that serves the site under its own name.
        ("ws", b"127.0.0.1:8000", b"https://play.example.org", ["https://play.example.org"]),
        ("ws", b"127.0.0.1:8000", b"https://eu.play.example.org", ["https://*.play.example.org"]),
    ],
)
async def test_sockets_from_the_site_itself_or_a_trusted_origin_are_accepted(
    start_game, settings, scheme, host, origin, trusted
):
    settings.ALLOWED_HOSTS = ["testserver", "127.0.0.1"]
    settings.CSRF_TRUSTED_ORIGINS = trusted
    game = await database_sync_to_async(start_game)(2)
    communicator = WebsocketCommunicator(
        application, f"/ws/games/{game.pk}/", headers=[(b"host", host), (b"origin", origin)]
    )
    communicator.scope["scheme"] = scheme
    connected, _ = await communicator.connect()
    assert connected
    await communicator.disconnect()


async def test_a_trusted_origin_admits_its_own_scheme_only(start_game, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://*.play.example.org"]
    game = await database_sync_to_async(start_game)(2)
    communicator = WebsocketCommunicator(
        application, f"/ws/games/{game.pk}/", headers=[HOST, (b"origin", b"http://eu.play.example.org")]
    )
    assert await communicator.connect() == (False, 1000)


async def test_what_a_page_sends_is_ignored(start_game):
    game = await database_sync_to_async(start_game)(2)
    version = game.version
    communicator = page(game)
    await communicator.connect()
    await communicator.receive_json_from()
    await communicator.send_json_to({"type": "bid", "card": 9})
    assert await communicator.receive_nothing(timeout=0.2)
    await database_sync_to_async(game.refresh_from_db)()
    assert game.version == version
    assert not await database_sync_to_async(game.moves.exists)()
    await communicator.disconnect()


async def test_whatever_a_page_sends_is_ignored_and_the_page_keeps_listening(start_game):
    game = await database_sync_to_async(start_game)(3)
    mover = await database_sync_to_async(user_at)(game, game.to_act[0])
    communicator = page(game)
    await communicator.connect()
    await communicator.receive_json_from()
    await communicator.send_to(text_data="not json {")
    await communicator.send_to(bytes_data=b"\x00\xff")
    await communicator.send_json_to({"type": "bid", "card": 9})
    assert await communicator.receive_nothing(timeout=0.2)
    await database_sync_to_async(moving.submit_move)(
        game, user=mover, move={"type": "bid", "card": 9}, expected_version=game.version
    )
    assert await communicator.receive_json_from(timeout=2) == {"version": game.version + 1}
    await communicator.disconnect()


async def test_a_notice_sent_from_a_background_thread_reaches_the_page_at_once_on_the_embedded_layer(
    start_game, settings
):
    """The embedded site's deadline ticker and computer players' runner send their notices from
    threads of their own. The in-memory layer's queues live on the server's event loop: the notice
    must be handed to that loop, which a put from another thread's loop does not wake (the page
    heard the move at the loop's next timer, or, racing with it, never)."""
    import threading
    import time

    from games import broadcast

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    game = await database_sync_to_async(start_game)(3)
    communicator = page(game)
    connected, _ = await communicator.connect()
    assert connected
    assert await communicator.receive_json_from() == {"version": game.version}

    thread = threading.Thread(target=broadcast.send_version, args=(game.pk, game.version + 1))
    started = time.monotonic()
    thread.start()
    assert await communicator.receive_json_from(timeout=5) == {"version": game.version + 1}
    # At once, not when the loop next woke by itself (here, the receive's own timeout).
    assert time.monotonic() - started < 2
    thread.join(5)
    assert not thread.is_alive()
    await communicator.disconnect()


async def test_a_players_open_page_keeps_their_your_move_mails_back_and_closing_it_starts_the_grace(
    start_game, settings
):
    from datetime import timedelta

    from django.core.cache import cache
    from django.utils import timezone

    from games.infra import presence

    # A short grace, so that the page refreshes its presence every half second.
    settings.YOUR_MOVE_GRACE_SECONDS = 1.5
    game = await database_sync_to_async(start_game)(3)
    player = await database_sync_to_async(user_at)(game, 1)
    await cache.aclear()
    communicator = page(game, await database_sync_to_async(session_cookie)(player))
    await communicator.connect()
    await communicator.receive_json_from()
    last, is_open = await cache.aget(presence.key(game.pk, player.pk))
    assert is_open
    assert presence.quiet_until(game.pk, player.pk, timezone.now()) is not None
    # The open page says it is still there every refresh_seconds().
    await asyncio.sleep(2 * presence.refresh_seconds())
    refreshed, is_open = await cache.aget(presence.key(game.pk, player.pk))
    assert is_open and refreshed > last
    await communicator.disconnect()
    closed, is_open = await cache.aget(presence.key(game.pk, player.pk))
    assert not is_open and closed >= refreshed
    # Within the grace the mail waits; after it, it goes.
    assert presence.quiet_until(game.pk, player.pk, timezone.now()) is not None
    assert presence.quiet_until(game.pk, player.pk, timezone.now() + timedelta(seconds=2)) is None
    # A visitor without a seat leaves no presence behind.
    await cache.aclear()
    visitor = page(game)
    await visitor.connect()
    await visitor.receive_json_from()
    await visitor.disconnect()
    assert await cache.aget(presence.key(game.pk, None)) is None
