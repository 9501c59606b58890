import pytest

from tests.support.helpers import logged_in, user_at


@pytest.fixture
def table(start_game):
    """A running three-player game and a client for each of its players."""
    game = start_game(3)
    return game, [logged_in(user_at(game, seat)) for seat in range(3)]
