"""WebSocket helpers: a logged-in session's cookie, a game page's socket, a move made at once."""

import random

from channels.testing import WebsocketCommunicator
from django.test import Client

from elgrande_site.asgi import application
from games.engine import random_move
from games.play import services
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
    services.submit_move(game, user=user_at(game, seat), move=choice, expected_version=game.version)
    game.refresh_from_db()
