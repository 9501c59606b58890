"""Chat helpers shared by tests/chat: post a line as a player, read the lines stored for a game."""

from django.urls import reverse

from tests.support.helpers import HTMX


def post_chat(client, game, text, htmx=True):
    return client.post(reverse("chat", args=[game.pk]), {"text": text}, **(HTMX if htmx else {}))


def stored(game):
    from games.models import ChatMessage

    return list(ChatMessage.objects.filter(game=game).order_by("pk").values_list("seat__index", "text"))
