"""Playing games through the site in tests: post a move as the page does, race functions in threads,
a game on autopilot, a practice game against computer players, and the clock running out."""

import json
import random
import threading
from datetime import timedelta

from django.db import connection
from django.urls import reverse
from django.utils import timezone

from games.engine import random_move
from games.models import Game, Seat
from games.play import expiry, lifecycle, moving
from tests.support.helpers import HTMX, state_of, user_at


def post_move(client, game, move, version=None, htmx=True, **fields):
    data = {"move": move if isinstance(move, str) else json.dumps(move), **fields}
    data["expected_version"] = game.version if version is None else version
    return client.post(reverse("move", args=[game.pk]), data, **(HTMX if htmx else {}))


def race(functions):
    """Run the functions in threads released at the same instant; return their outcomes."""
    barrier = threading.Barrier(len(functions))
    outcomes = [None] * len(functions)

    def run(index, function):
        try:
            barrier.wait()
            outcomes[index] = function()
        except Exception as error:  # the outcome is what the test inspects
            outcomes[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=item) for item in enumerate(functions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return outcomes


def on_autopilot(start_game):
    """A 3-player game whose seat `game.to_act[0]` at the start timed out twice in a row."""
    game = start_game(3, seed=7)
    rng = random.Random(1)
    seat = game.to_act[0]
    time_out(game)
    others_move_until_only(game, seat, rng)
    time_out(game)
    return game, seat, rng


def practice(make_user, levels=("greedy", "greedy"), num_players=None, **options):
    creator = make_user()
    game = lifecycle.create_game(
        creator, num_players=num_players or len(levels) + 1, short_game=True, computers=list(levels), **options
    )
    game.refresh_from_db()
    return game, creator


def user_at_seat(game, user):
    return Seat.objects.get(game=game, user=user).index


def time_out(game):
    """The deadline passes for the seats to act, and the sweep plays for them."""
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert expiry.apply_default_moves(game.pk, version=game.version)
    game.refresh_from_db()


def others_move_until_only(game, seat, rng):
    """The other players move themselves until `seat` alone must act."""
    while game.to_act != [seat]:
        assert game.status == Game.Status.ACTIVE
        other = next(s for s in game.to_act if s != seat)
        moving.submit_move(game, user=user_at(game, other), move=random_move(state_of(game), other, rng),
            expected_version=game.version)
        game.refresh_from_db()
