"""Simultaneous submissions against one version: exactly one is applied.

Real threads, each with its own database connection, race for the same game. On PostgreSQL
(CI) the row lock of select_for_update serialises them; on SQLite, the embedded mode, the
immediate transactions of the settings do.
"""


import pytest
from django.test import Client
from django.urls import reverse

from games.models import Move
from games.play import moving
from games.play.errors import StaleVersion
from tests.support.games import race
from tests.support.helpers import state_of, user_at

pytestmark = pytest.mark.django_db(transaction=True)


def test_simultaneous_submissions_apply_exactly_one(start_game):
    game = start_game(3)
    seat = game.to_act[0]
    user = user_at(game, seat)
    version = game.version
    bids = [13, 12, 11, 10, 9, 8]

    outcomes = race(
        [lambda card=card: moving.submit_move(
            game, user=user, move={"type": "bid", "card": card}, expected_version=version
        ) for card in bids]
    )

    applied = [outcome for outcome in outcomes if not isinstance(outcome, Exception)]
    refused = [outcome for outcome in outcomes if isinstance(outcome, Exception)]
    assert len(applied) == 1
    assert all(isinstance(error, StaleVersion) for error in refused), refused
    game.refresh_from_db()
    assert game.version == version + 1
    [move] = Move.objects.filter(game=game)
    assert state_of(game).bids[seat] == move.move["card"]


def test_a_double_click_over_http_applies_one_move(start_game):
    game = start_game(3)
    user = user_at(game, game.to_act[0])
    version = game.version

    def click():
        client = Client()
        client.force_login(user)
        response = client.post(
            reverse("move", args=[game.pk]),
            {"move": '{"type": "bid", "card": 7}', "expected_version": version},
            HTTP_HX_REQUEST="true",
        )
        return response.status_code

    outcomes = race([click, click, click])
    assert sorted(outcomes) == [200, 409, 409]
    game.refresh_from_db()
    assert game.version == version + 1
    assert Move.objects.filter(game=game).count() == 1
