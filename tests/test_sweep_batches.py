"""The sweep in batches: the games of a batch locked only at the version listed, and the notices of a
batch sent together after its games are committed."""

import asyncio
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import OperationalError
from django.utils import timezone

from games import broadcast, deadlines, services
from games.models import Game, Seat
from tests.helpers import user_at

# Real commits: the notices go out after them.
pytestmark = pytest.mark.django_db(transaction=True)


def overdue(game):
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    game.refresh_from_db()
    return game


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


def games_of(make_user, count):
    """`count` started games of the same three players."""
    users = [make_user() for _ in range(3)]
    games = []
    for _ in range(count):
        game = services.create_game(users[0], num_players=3)
        for user in users[1:]:
            services.join_game(game, user)
        game.refresh_from_db()
        games.append(overdue(game))
    return users, games


def test_a_sweep_tells_each_game_page_its_new_version_and_each_lobby_once(make_user):
    users, games = games_of(make_user, 3)
    pages = [listen(broadcast.game_group(game.pk)) for game in games]
    lobby = listen(broadcast.user_group(users[1].pk))
    assert deadlines.sweep() == 3
    for game, page in zip(games, pages):
        game.refresh_from_db()
        assert page() == [{"type": "game.version", "version": game.version}]
    assert lobby() == [{"type": "lobby.changed"}]


def test_the_notices_of_the_batches_committed_before_a_lost_connection_are_still_sent(make_user, monkeypatch):
    _, (first, second) = games_of(make_user, 2)
    monkeypatch.setattr(deadlines, "SWEEP_BATCH", 1)
    page = listen(broadcast.game_group(first.pk))
    real = services.expire

    def expire(pairs):
        if pairs[0][0] == second.pk:
            raise OperationalError("server closed the connection unexpectedly")
        return real(pairs)

    monkeypatch.setattr(services, "expire", expire)
    with pytest.raises(OperationalError):
        deadlines.sweep()
    first.refresh_from_db()
    assert page() == [{"type": "game.version", "version": first.version}]


def test_notices_that_cannot_be_sent_are_logged_and_the_games_still_move_on(make_user, monkeypatch, caplog):
    _, games = games_of(make_user, 2)

    async def unreachable(notices):
        raise ConnectionError("redis is away")

    monkeypatch.setattr(broadcast, "_group_send", unreachable)
    assert deadlines.sweep() == 2
    assert "notices could not be sent" in caplog.text
    assert all(Game.objects.get(pk=game.pk).version > game.version for game in games)


def test_a_batch_moves_only_the_games_still_at_the_version_listed(start_game):
    moved_on, waiting = overdue(start_game(3)), overdue(start_game(3))
    seat = moved_on.to_act[0]
    # The seat already let one deadline pass: a second one in a row would put it on autopilot.
    Seat.objects.filter(game=moved_on, index=seat).update(timeouts=1)
    listed = list(deadlines.overdue_games(timezone.now()))
    # Then its player moves himself (his count of timeouts starts again), and the next decision
    # is overdue too before the sweep's batch comes to the game.
    services.submit_move(moved_on, user_at(moved_on, seat), {"type": "bid", "card": 5}, moved_on.version)
    moved_on = overdue(moved_on)
    assert services.expire(listed) == 1
    assert Game.objects.get(pk=moved_on.pk).version == moved_on.version
    assert Game.objects.get(pk=waiting.pk).version > waiting.version
    seats = {seat.index: seat for seat in Seat.objects.filter(game=moved_on)}
    assert seats[seat].timeouts == 0 and not seats[seat].autopilot
    # At its new version the next sweep plays for the seats late there.
    assert deadlines.sweep() == 1
    seats = {seat.index: seat for seat in Seat.objects.filter(game=moved_on)}
    assert all(seats[index].timeouts == 1 for index in moved_on.to_act)
