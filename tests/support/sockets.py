"""WebSocket helpers: a logged-in session's cookie, a game page's socket, a move made at once, a
channel that hears what groups are sent."""

import asyncio
import gzip
import json
import random

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from elgrande_site.asgi import application
from games.engine import random_move
from games.play import moving
from tests.support.helpers import HOST, HTMX, ORIGIN, state_of, user_at


def session_cookie(user):
    client = Client()
    client.force_login(user)
    return (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())


def page(game, *headers):
    return WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=[HOST, ORIGIN, *headers])


def move_now(game, seat=None, choice=None):
    """A move (a random legal one unless `choice`) through the services, as a page would post it."""
    seat = game.to_act[0] if seat is None else seat
    choice = choice or random_move(state_of(game), seat, random.Random(game.version))
    moving.submit_move(game, user=user_at(game, seat), move=choice, expected_version=game.version)
    game.refresh_from_db()


def listen(*groups):
    """A channel in each of `groups`; returns a function that reads everything sent to it."""
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    for group in groups:
        async_to_sync(layer.group_add)(group, channel)

    async def drain():
        heard = []
        while True:
            try:
                heard.append(await asyncio.wait_for(layer.receive(channel), 0.5))
            except TimeoutError:
                return heard

    return async_to_sync(drain)


def frames_page(game, *headers, frames=True, language="en", replay=False):
    """A game page's socket that asks for frames (`frames`) in `language`, as static/game.js opens it
    (`replay`: from a page opened on a past position)."""
    path = f"/ws/games/{game.pk}/" + (f"?play=gzip&lang={language}" if frames else "") + ("&replay=1" if replay else "")
    return WebsocketCommunicator(application, path, headers=[HOST, ORIGIN, *headers])


async def opened(communicator, version):
    connected, _ = await communicator.connect()
    assert connected
    assert await communicator.receive_json_from() == {"version": version}
    return communicator


async def heard(communicator, timeout=3):
    """What a page hears next: a notice (a dict) or a frame unpacked ({"version", "play"}, marked)."""
    output = await communicator.receive_output(timeout)
    assert output["type"] == "websocket.send"
    if output.get("bytes") is not None:
        return {"frame": True, **json.loads(gzip.decompress(output["bytes"]))}
    return json.loads(output["text"])


def logged_out_play(game, language="en"):
    response = Client(headers={"accept-language": language}).get(
        reverse("game_partial", args=[game.pk, "play"]), **HTMX
    )
    assert response.status_code == 200
    return response.content.decode()
