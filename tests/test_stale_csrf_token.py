"""A game page opened before its player logged out and in again (in another tab: a log-in changes
the CSRF token) posts its next move with the old token. Django answered with its own CSRF page
("Forbidden (403) CSRF verification failed. Request aborted. More information is available with
DEBUG=True."), and htmx, which swaps 4xx answers (templates/base.html), put that whole page in
place of the board (#play). A stale tab must get a clear refusal in the player's language, where
refusals are shown, and nothing changes."""

import json
import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from tests.support.helpers import HTMX, snapshot, user_at

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r'"X-CSRFToken": "([^"]+)"')


def page_token(client, path):
    return TOKEN.search(client.get(path).content.decode()).group(1)


def log_in(client, username, password):
    token = page_token(client, reverse("account_login"))
    response = client.post(reverse("account_login"), {"login": username, "password": password},
                           HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 302


def stale_tab(start_game, password, language):
    """A player's client whose game page was opened before a log-out and log-in: (client, game, old token)."""
    game = start_game(3)
    user = user_at(game, game.to_act[0])
    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE=language)
    log_in(client, user.username, password)
    old = page_token(client, reverse("game", args=[game.pk]))
    # In another tab: out, and in again.
    assert client.post(reverse("account_logout"), HTTP_X_CSRFTOKEN=page_token(client, "/")).status_code == 302
    log_in(client, user.username, password)
    return client, game, old


@pytest.mark.parametrize(
    "language, words",
    [
        ("en", "This page is out of date: you logged in or out since it was opened"),
        ("fr", "Cette page n'est plus à jour\u00a0: vous vous êtes connecté ou déconnecté depuis son ouverture"),
    ],
)
def test_a_move_from_a_stale_tab_is_refused_in_the_move_s_error_place(start_game, password, settings, language, words):
    settings.DEBUG = False
    client, game, old = stale_tab(start_game, password, language)
    before = snapshot(game)
    response = client.post(reverse("move", args=[game.pk]),
                           {"move": json.dumps({"type": "bid", "card": 9}), "expected_version": game.version},
                           HTTP_X_CSRFTOKEN=old, HTTP_HX_TARGET="play", **HTMX)
    page = unescape(response.content.decode())
    assert response.status_code == 403
    assert words in page
    assert "CSRF" not in page and "DEBUG" not in page and "<html" not in page
    # Shown where a refused move's reason goes, not in place of the board.
    assert response["HX-Retarget"] == "#move-error"
    assert snapshot(game) == before


def test_a_chat_line_from_a_stale_tab_is_refused_in_the_chat_s_error_place(start_game, password, settings):
    from games.models import ChatMessage

    settings.DEBUG = False
    client, game, old = stale_tab(start_game, password, "en")
    response = client.post(reverse("chat", args=[game.pk]), {"text": "hola"},
                           HTTP_X_CSRFTOKEN=old, HTTP_HX_TARGET="chat-messages", **HTMX)
    assert response.status_code == 403
    assert response["HX-Retarget"] == "#chat-error"
    assert "reload the page" in response.content.decode()
    assert not ChatMessage.objects.exists()


def test_a_plain_form_from_a_stale_tab_gets_the_site_s_page(start_game, password, settings):
    settings.DEBUG = False
    client, game, old = stale_tab(start_game, password, "fr")
    before = snapshot(game)
    response = client.post(reverse("hand_seat_to_computer", args=[game.pk]),
                           {"expected_version": game.version, "csrfmiddlewaretoken": old})
    page = unescape(response.content.decode())
    assert response.status_code == 403
    assert "Cette page n'est plus à jour" in page
    # Django's page: "La vérification CSRF a échoué… la variable DEBUG vaut True."
    assert "vérification CSRF" not in page and "DEBUG" not in page
    assert snapshot(game) == before


def test_the_current_token_still_moves(start_game, password, settings):
    settings.DEBUG = False
    client, game, _old = stale_tab(start_game, password, "en")
    token = page_token(client, reverse("game", args=[game.pk]))
    response = client.post(reverse("move", args=[game.pk]),
                           {"move": json.dumps({"type": "bid", "card": 9}), "expected_version": game.version},
                           HTTP_X_CSRFTOKEN=token, **HTMX)
    assert response.status_code == 200
