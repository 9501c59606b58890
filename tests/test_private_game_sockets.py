"""A private game's sockets stop hearing of the game, its spectators' view included, once the
page's session lost the right to see it (logged out, or its player left the game), as the HTTP
pages of the same session answer 404 by then: the socket is closed as one of a game it may not
see (games/live/consumers.py `still_allowed`)."""

import gzip
import json

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from games.play import lifecycle
from tests.support.helpers import HTMX
from tests.support.sockets import frames_page, move_now, opened, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


async def everything_heard(socket, timeout=1.5):
    """What the page is sent until it hears nothing for `timeout` seconds: frames unpacked, notices
    as dicts; a close from the server ends it."""
    heard = []
    while True:
        if await socket.receive_nothing(timeout):
            return heard
        output = await socket.receive_output()
        if output["type"] == "websocket.close":
            heard.append({"closed": output.get("code")})
            return heard
        if output.get("bytes") is not None:
            heard.append({"frame": True, **json.loads(gzip.decompress(output["bytes"]))})
        else:
            heard.append(json.loads(output["text"]))


async def test_a_private_games_view_stops_reaching_a_socket_whose_session_lost_the_game(clock, start_game, make_user):
    game = await database_sync_to_async(start_game)(3, private=True)
    visitor = await database_sync_to_async(make_user)("visitor")
    browser = Client()

    def invited():
        browser.force_login(visitor)
        browser.get(reverse("invitation", args=[game.pk, game.invite_token]))
        assert browser.get(reverse("game", args=[game.pk])).status_code == 200
        return (b"cookie", f"sessionid={browser.cookies['sessionid'].value}".encode())

    cookie = await database_sync_to_async(invited)()
    # A logged-in spectator in the site's time zone: served by the spectators' hub.
    socket = await opened(frames_page(game, cookie), game.version)

    def logged_out():
        browser.post(reverse("account_logout"))
        # The session of the socket's cookie no longer may see the game: the 404 of a missing game.
        again = Client(headers={"cookie": cookie[1].decode()})
        assert again.get(reverse("game", args=[game.pk])).status_code == 404
        assert again.get(reverse("game_partial", args=[game.pk, "play"]), **HTMX).status_code == 404

    await database_sync_to_async(logged_out)()
    await database_sync_to_async(move_now)(game)
    heard = await everything_heard(socket)
    leaked = [each for each in heard if "play" in each]
    assert not leaked, f"a socket whose session may no longer see the game got its view: {leaked[0]['play'][:200]}"
    await socket.disconnect()


async def test_a_player_who_left_a_private_game_hears_nothing_more_of_it(clock, make_user):
    """A player seated in a private open game (this browser never followed the invitation link: he
    joined from another one) leaves it; his page's socket, opened while he sat there, goes on
    hearing the game's changes, though the game page answers that session 404."""
    creator = await database_sync_to_async(make_user)("creator")
    leaver = await database_sync_to_async(make_user)("leaver")
    game = await database_sync_to_async(lifecycle.create_game)(creator, num_players=3, private=True)
    await database_sync_to_async(lifecycle.join_game)(game, user=leaver, token=game.invite_token)
    await database_sync_to_async(game.refresh_from_db)()
    cookie = await database_sync_to_async(session_cookie)(leaver)
    socket = await opened(frames_page(game, cookie), game.version)
    await database_sync_to_async(lifecycle.leave_game)(game, user=leaver)
    left_at = game.version + 1

    def cannot_see():
        assert Client(headers={"cookie": cookie[1].decode()}).get(reverse("game", args=[game.pk])).status_code == 404

    await database_sync_to_async(cannot_see)()
    await database_sync_to_async(game.refresh_from_db)()
    for _ in range(2):  # the last seats taken: the game starts
        joiner = await database_sync_to_async(make_user)()
        await database_sync_to_async(lifecycle.join_game)(game, user=joiner, token=game.invite_token)
    heard = await everything_heard(socket)
    # (The notice of his own leaving, version `left_at`, may come or not: the page goes anyway.)
    told = [each for each in heard if each.get("version", 0) > left_at or "play" in each or "chat" in each]
    assert not told, f"a non-member's socket hears the private game: {told}"
    await socket.disconnect()


async def test_a_seats_page_of_a_private_game_logged_out_is_closed_and_a_public_ones_told_the_version(
    clock, start_game
):
    """A seat's page takes its own view in frames; once its session is logged out no frame can be
    made for it. A private game's page is then closed as one it may not see, where a public game's
    is told the bare version (a logged-out visitor may see a public game), and goes on hearing."""
    for private in (True, False):
        game = await database_sync_to_async(start_game)(3, private=private)
        player = await database_sync_to_async(lambda game=game: game.seats.get(index=1).user)()
        cookie = await database_sync_to_async(session_cookie)(player)
        socket = await opened(frames_page(game, cookie), game.version)

        def logged_out(cookie=cookie):
            Client(headers={"cookie": cookie[1].decode()}).post(reverse("account_logout"))

        await database_sync_to_async(logged_out)()
        await database_sync_to_async(move_now)(game)
        heard = await everything_heard(socket)
        if private:
            assert heard == [{"closed": 4404}], heard
        else:
            assert heard == [{"version": game.version}], heard
            await database_sync_to_async(move_now)(game)
            assert await everything_heard(socket) == [{"version": game.version}]
        await socket.disconnect()
