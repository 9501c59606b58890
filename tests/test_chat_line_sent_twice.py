"""A table-talk line sent twice (a double click on "Send" or a second Enter: htmx queues the second
post until the first is answered, then sends it too) was stored, announced and shown twice. A
second click must change nothing; a line written again later, or another line, is a new one."""

import pytest
from django.test import Client
from django.urls import reverse

from games.models import ChatMessage
from tests.support.helpers import HTMX, user_at

pytestmark = pytest.mark.django_db


@pytest.fixture
def writing(start_game):
    game = start_game(3)
    client = Client()
    client.force_login(user_at(game, 0))
    return game, client


def test_the_same_line_sent_twice_is_stored_once(writing):
    game, client = writing
    for _ in range(2):
        response = client.post(reverse("chat", args=[game.pk]), {"text": "I bid the 13"}, **HTMX)
        assert response.status_code == 200
    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["I bid the 13"]
    assert response.content.decode().count("I bid the 13") == 1


def test_another_line_or_the_same_later_is_a_new_one(writing, settings):
    from datetime import timedelta

    game, client = writing
    client.post(reverse("chat", args=[game.pk]), {"text": "hola"}, **HTMX)
    client.post(reverse("chat", args=[game.pk]), {"text": "¿qué tal?"}, **HTMX)
    client.post(reverse("chat", args=[game.pk]), {"text": "hola"}, **HTMX)
    ChatMessage.objects.update(created_at=ChatMessage.objects.first().created_at - timedelta(minutes=1))
    client.post(reverse("chat", args=[game.pk]), {"text": "hola"}, **HTMX)
    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["hola", "¿qué tal?", "hola", "hola"]
