"""A chat line posted while the same player's move is being saved: both take the game's row first
(games/play/chat.py post_message locks it, not the seat's: the Move row's foreign key to the seat is
checked under FOR KEY SHARE at the move's commit), so neither waits for the other in a cycle. On
PostgreSQL a lock on the seat first made one of them fail with "deadlock detected" (a 500)."""

import threading
import time

import pytest
from django.db import connection

from games.play import chat, moving
from tests.support.games import race
from tests.support.helpers import user_at

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_chat_line_and_a_move_of_the_same_seat_do_not_deadlock(start_game, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's")
    game = start_game(3)
    index = game.to_act[0]
    user = user_at(game, index)
    seat = game.seats.get(index=index)
    seat_locked, move_started = threading.Event(), threading.Event()
    original = chat._count_against_rate_limit

    def slow_rate_limit(*args):
        # Called by post_message with the seat's row locked: let the move take the game's first.
        seat_locked.set()
        move_started.wait(10)
        time.sleep(0.5)
        return original(*args)

    monkeypatch.setattr(chat, "_count_against_rate_limit", slow_rate_limit)

    def post():
        chat.post_message(game, seat, "one moment")
        return "posted"

    def move():
        seat_locked.wait(10)
        move_started.set()
        moving.submit_move(game, user=user, move={"type": "bid", "card": 13}, expected_version=game.version)
        return "moved"

    outcomes = race([post, move])
    assert outcomes == ["posted", "moved"], outcomes
