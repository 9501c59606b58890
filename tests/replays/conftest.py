import pytest


@pytest.fixture
def finished_game(start_game):
    """A 3-player short game played to its end through the services, with random moves drawn
    from its seed (fixed by default, so that a failure repeats)."""
    from games.models import Game
    from tests.support.helpers import play

    def finish(num_players=3, seed=3, **options):
        game = start_game(num_players, seed=seed, short_game=True, **options)
        play(game)
        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED
        return game

    return finish
