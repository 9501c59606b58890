"""Computer players' names and the colours' letters in the reader's language, on the game page and
in the lobby: "Ordinateur (glouton)" and a yellow "J" for a French reader, "Computer (avido)" and a
green "V" for an Italian one; English keeps the account's name and R/Y/B/G/N."""

import re

import pytest
from django.urls import reverse

from games.play import lifecycle
from tests.support.helpers import logged_in

pytestmark = pytest.mark.django_db

LETTERS = {
    "en": {"red": "R", "yellow": "Y", "blue": "B", "green": "G", "brown": "N"},
    "it": {"red": "R", "yellow": "G", "blue": "B", "green": "V", "brown": "M"},
    "fr": {"red": "R", "yellow": "J", "blue": "B", "green": "V", "brown": "M"},
}
COMPUTERS = {
    "en": ["Computer (greedy)", "Computer (strong)"],
    "it": ["Computer (avido)", "Computer (forte)"],
    "fr": ["Ordinateur (glouton)", "Ordinateur (fort)"],
}
PLAYER = re.compile(
    r'<div class="player colour-(\w+)[^"]*" data-seat="\d">\s*'
    r'<div class="who"><span class="chip">(\w)</span> <strong>([^<]+)</strong>'
)


@pytest.mark.parametrize("language", ["en", "it", "fr"])
def test_the_game_page_names_computers_and_letters_colours_in_the_readers_language(make_user, language):
    creator = make_user()
    creator.language = language
    creator.save()
    game = lifecycle.create_game(creator, num_players=3, short_game=True, computers=["greedy", "strong"])
    game.refresh_from_db()
    client = logged_in(creator)
    html = client.get(reverse("game", args=[game.pk])).content.decode()
    players = PLAYER.findall(html)
    assert len(players) == 3
    assert all(letter == LETTERS[language][colour] for colour, letter, _ in players)
    assert sorted(name for _, _, name in players) == sorted([creator.username, *COMPUTERS[language]])
    lobby = client.get(reverse("my_games")).content.decode()
    for name in COMPUTERS[language]:
        assert name in lobby
