"""Rated games played to their end through the services, for the ratings' tests."""

from games.models import Game
from games.play import lifecycle
from tests.support.helpers import play


def open_rated(users, **options):
    """A rated game of `users`, started, nobody having moved yet."""
    options = {"short_game": True, "rated": True, **options}
    game = lifecycle.create_game(users[0], num_players=len(users), **options)
    for user in users[1:]:
        lifecycle.join_game(game, user=user, token=game.invite_token)
    game.refresh_from_db()
    return game


def play_rated(users, **options):
    """A rated game of `users` played with random legal moves to its end (the short game)."""
    game = open_rated(users, **options)
    play(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


def stored(model):
    """Every row of `model` as plain values, floats as their exact hex: what must not change."""
    columns = [field.attname for field in model._meta.concrete_fields if field.name != "id"]
    return sorted(
        tuple(value.hex() if isinstance(value, float) else value for value in row)
        for row in model.objects.values_list(*columns)
    )
