"""WebSocket helpers: a logged-in session's cookie, a game page's socket, a move made at once, a
channel that hears what groups are sent."""

import asyncio
import random

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client

from elgrande_site.asgi import application
from games.engine import random_move
from games.play import moving
from tests.support.helpers import HOST, ORIGIN, state_of, user_at


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
