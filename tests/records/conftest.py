import random
from datetime import timedelta

import pytest
from django.utils import timezone


@pytest.fixture
def finish_game():
    """Play a started game to its end through the services: random legal moves by the players,
    and now and then a deadline let pass, so that the site moves for a seat (automatic moves, and
    autopilot after two in a row)."""
    from games.engine import random_move, to_act
    from games.models import Game
    from games.play import expiry, moving
    from tests.support.helpers import state_of

    def finish(game, late_every=9):
        users = {seat.index: seat.user for seat in game.seats.all()}
        rng = random.Random(game.seed)
        state = state_of(game)
        made = 0
        while not state.is_over:
            made += 1
            if made % late_every == 0:
                Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
                assert expiry.apply_default_moves(game.pk, version=game.version)
            else:
                seat = to_act(state)[0]
                moving.submit_move(
                    game, user=users[seat], move=random_move(state, seat, rng), expected_version=game.version
                )
            state = state_of(game)
        return game

    return finish
