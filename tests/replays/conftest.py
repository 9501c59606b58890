import pytest


@pytest.fixture
def finished_game(start_game):
    """A 3-player short game played to its end through the services, with random moves drawn
    from its seed (fixed by default, so that a failure repeats). The same game asked again in this
    process is copied from the first one's rows (tests/support/copied_rows.py): playing it through
    the services was most of this directory's time."""
    from games.models import Game
    from tests.support.copied_rows import made_once
    from tests.support.helpers import play

    def finish(num_players=3, seed=3, **options):
        def build():
            game = start_game(num_players, seed=seed, short_game=True, **options)
            play(game)
            return game

        game = made_once(("finished_game", num_players, seed, tuple(sorted(options.items()))), build)
        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED
        return game

    return finish
