"""The state and events are stored through games.infra.json_codec: what is read back is what was saved,
the database holds ordinary JSON, and a missing state is still SQL NULL."""

import json

import pytest
from django.db import connection

from games.models import Game, Move
from tests.support.helpers import play

pytestmark = pytest.mark.django_db


def raw_json(table, column, pk):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM {table} WHERE id = %s", [pk])
        return cursor.fetchone()[0]


def test_a_stored_state_and_events_read_back_as_saved_and_as_plain_json(start_game):
    game = start_game(3)
    play(game, moves=12)
    game.refresh_from_db()
    stored = Game.objects.get(pk=game.pk)
    assert json.loads(raw_json("games_game", "state", game.pk)) == stored.state
    move = Move.objects.filter(game=game).last()
    assert json.loads(raw_json("games_move", "events", move.pk)) == move.events
    move.events = [{"event": "legacy", "round": 1, "text": "Ñandú's «caballeros» — 3"}]
    move.save()
    move.refresh_from_db()
    assert move.events[0]["text"] == "Ñandú's «caballeros» — 3"


def test_a_game_without_a_state_stores_sql_null(make_user):
    from games.play import lifecycle

    game = lifecycle.create_game(make_user(), num_players=3)
    assert raw_json("games_game", "state", game.pk) is None
    assert Game.objects.filter(pk=game.pk, state__isnull=True).exists()
    assert Game.objects.get(pk=game.pk).state is None
