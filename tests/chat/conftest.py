import pytest
from django.urls import reverse

from tests.helpers import HTMX, logged_in, user_at


def post_chat(client, game, text, htmx=True):
    return client.post(reverse("chat", args=[game.pk]), {"text": text}, **(HTMX if htmx else {}))


def stored(game):
    from games.models import ChatMessage

    return list(ChatMessage.objects.filter(game=game).order_by("pk").values_list("seat__index", "text"))


@pytest.fixture
def table(start_game):
    """A running three-player game and a client for each of its players."""
    game = start_game(3)
    return game, [logged_in(user_at(game, seat)) for seat in range(3)]
