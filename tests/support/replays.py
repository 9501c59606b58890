"""Helpers of the replay tests: the positions of a game as the engine alone reaches them, and the
replay's pages."""

import re

from django.urls import reverse
from django.utils.html import strip_tags

from games.engine import apply_move, new_game
from games.models import Move
from tests.support.helpers import HTMX


def engine_positions(game):
    """Every position of the game, [state after 0 moves, after 1, ...], from the seed and the
    stored moves alone, without any snapshot."""
    state = new_game(**game.engine_options())
    states = [state]
    for seat, move in Move.objects.filter(game=game).order_by("version").values_list("seat__index", "move"):
        state = apply_move(state, seat, move)
        states.append(state)
    return states


def replay_url(game, at=None, partial=False, **query):
    url = reverse("game_partial", args=[game.pk, "replay"]) if partial else reverse("game", args=[game.pk])
    if at is not None:
        query["at"] = at
    return url + ("?" + "&".join(f"{key}={value}" for key, value in query.items()) if query else "")


def replay(client, game, at=None, **query):
    """The replay area's HTML at `at` (the partial), checking that it answered 200."""
    response = client.get(replay_url(game, at, partial=True, **query), **HTMX)
    assert response.status_code == 200, response.content.decode()[:500]
    return response.content.decode()


def section(html, element_id):
    """The inner HTML of the <div id=...> of the page (the board, the log, the decision area)."""
    start = html.index(f'<div id="{element_id}">') + len(f'<div id="{element_id}">')
    depth, index = 1, start
    tags = re.compile(r"<(/?)div\b[^>]*>")
    while depth:
        match = tags.search(html, index)
        depth += -1 if match.group(1) else 1
        index = match.end()
    return html[start : match.start()]


def log_items(html):
    """The texts of the log's entries, oldest first."""
    items = re.findall(r'<li data-round="\d+"[^>]*>(.*?)</li>', section(html, "log"), re.S)
    return [" ".join(strip_tags(item).split()) for item in reversed(items)]


PLAYER = re.compile(r'<div class="player[^"]*" data-seat="(\d+)">(.*?)</div>\s*(?=<div class="player|</section>)', re.S)


def revealed_hands(html):
    """{seat: [cards]} shown as each player's hand in a finished game's replay."""
    hands = {}
    for seat, body in PLAYER.findall(html):
        hands[int(seat)] = [int(card) for card in re.findall(r'data-revealed-card="(\d+)"', body)]
    return hands


def own_hand(html):
    return [int(card) for card in re.findall(r'data-hand-card="(\d+)"', html)]
