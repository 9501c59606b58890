"""A move posted from a page whose socket brings its views in frames (static/game.js then sends the
header X-View-By-Socket) is answered with a 204 and the new version, without the mover's view: the
POST renders nothing, the mover's socket brings that view (games/web/views.py `move`; the socket's
side is tests/test_own_views_socket.py). Refusals are what they are without the header."""

import json
import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.engine import random_move
from games.models import Move
from tests.support.helpers import HTMX, logged_in, play, snapshot, state_of, user_at

pytestmark = pytest.mark.django_db

BY_SOCKET = {**HTMX, "HTTP_X_VIEW_BY_SOCKET": "1"}


def post(client, game, move, version=None, headers=BY_SOCKET):
    data = {"move": json.dumps(move), "expected_version": game.version if version is None else version}
    return client.post(reverse("move", args=[game.pk]), data, **headers)


def test_a_move_asking_for_its_view_by_socket_gets_a_204_with_the_new_version_and_renders_nothing(
    start_game, renders
):
    game = start_game(3)
    response = post(logged_in(user_at(game, game.to_act[0])), game, {"type": "bid", "card": 9})
    assert response.status_code == 204 and response.content == b""
    game.refresh_from_db()
    assert response["X-Game-Version"] == str(game.version)
    assert Move.objects.get(game=game).move == {"type": "bid", "card": 9}
    assert renders == []
    # Without the header the answer is the mover's view, rendered by the POST.
    response = post(logged_in(user_at(game, game.to_act[0])), game, {"type": "bid", "card": 8}, headers=HTMX)
    assert response.status_code == 200
    game.refresh_from_db()
    assert f'data-version="{game.version}"' in response.content.decode()
    assert len(renders) == 1


def test_with_the_header_a_second_click_or_a_stale_post_is_refused_and_changes_nothing(start_game):
    game = start_game(3)
    client = logged_in(user_at(game, game.to_act[0]))
    old_version = game.version
    assert post(client, game, {"type": "bid", "card": 9}).status_code == 204
    before = snapshot(game)
    for move in ({"type": "bid", "card": 9}, {"type": "bid", "card": 8}):
        response = post(client, game, move, version=old_version)
        assert response.status_code == 409
        assert b"moved on" in response.content
        assert response["HX-Retarget"] == "#move-error"
        assert snapshot(game) == before


def test_with_the_header_a_refused_move_and_a_plain_post_are_answered_as_without(start_game):
    game = start_game(3)
    waiting = next(s for s in range(3) if s not in game.to_act)
    before = snapshot(game)
    response = post(logged_in(user_at(game, waiting)), game, {"type": "bid", "card": 9})
    assert response.status_code == 409 and b"not your turn" in response.content
    assert snapshot(game) == before
    plain = {"HTTP_X_VIEW_BY_SOCKET": "1"}
    response = post(logged_in(user_at(game, game.to_act[0])), game, {"type": "bid", "card": 9}, headers=plain)
    assert response.status_code == 302 and response["Location"] == game.get_absolute_url()


def test_the_move_by_socket_takes_two_queries_less_than_the_one_answered_with_its_view(start_game):
    # The render's two: the log's recent moves, and the version the mover has now seen.
    counts = []
    for headers in (HTMX, BY_SOCKET):
        game = start_game(3, seed=1)
        game.refresh_from_db()
        play(game, moves=20)
        game.refresh_from_db()
        seat = game.to_act[0]
        client = logged_in(user_at(game, seat))
        client.get(reverse("game", args=[game.pk]))
        move = random_move(state_of(game), seat, random.Random(1))
        with CaptureQueriesContext(connection) as captured:
            response = post(client, game, move, headers=headers)
        assert response.status_code in (200, 204)
        counts.append(len(captured.captured_queries))
    assert counts[1] == counts[0] - 2, counts
