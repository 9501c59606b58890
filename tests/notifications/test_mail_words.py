"""The words of mails as each language writes them: the digest says "this game" for one game and
"these games" for more; French puts its non-breaking space before the colons the templates and the
log's sentences add themselves (the ranking of the game-over mail, the digest's games, the
caballeros a player moved)."""

import pytest
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.html import strip_tags

from games.mail import composing
from games.words.log_text import Names, event_html

pytestmark = pytest.mark.django_db

NBSP = "\u00a0"
ONE = {
    "en": "This game waits for your move:",
    "it": "Questa partita aspetta la tua mossa:",
    "fr": f"Cette partie attend votre coup{NBSP}:",
}
MANY = {
    "en": "These games wait for your move:",
    "it": "Queste partite aspettano la tua mossa:",
    "fr": f"Ces parties attendent votre coup{NBSP}:",
}


def digest(user, language, games):
    user.language = language
    waiting = [{"game": game, "asked": "your power card", "url": f"https://x/{game.pk}/", "deadline": None}
               for game in games]
    _subject, text, html = composing.render_mail(
        "digest", user=user, game=None, subject="", context={"waiting": waiting, "time_zone": "UTC"}
    )
    return text, html


@pytest.mark.parametrize("language", ["en", "it", "fr"])
def test_a_digest_of_one_game_says_this_game_and_one_of_two_these_games(language, started):
    game, users = started(3)
    other, _ = started(3)
    text, html = digest(users[0], language, [game])
    assert ONE[language] in text and ONE[language] in html
    assert MANY[language] not in text + html
    text, html = digest(users[0], language, [game, other])
    assert MANY[language] in text and MANY[language] in html


def test_a_french_digest_puts_a_non_breaking_space_before_the_colon_after_each_game(started):
    game, users = started(3)
    _text, html = digest(users[0], "fr", [game])
    assert f"</a>{NBSP}: your power card" in html


RANKING = [
    {"place": 1, "name": "ernest", "label": "R", "score": 84, "you": False},
    {"place": 2, "name": "francois", "label": "M", "score": 77, "you": True},
]


@pytest.mark.parametrize("part", ["txt", "html"])
def test_the_french_game_over_ranking_puts_a_non_breaking_space_before_its_colons(part):
    with translation.override("fr"):
        rendered = render_to_string(f"email/game_finished.{part}", {"ranking": RANKING, "game": {"pk": 1}})
    assert f"ernest (R){NBSP}: 84 points" in rendered
    assert f"(M){NBSP}: 77 points" in rendered
    with translation.override("en"):
        rendered = render_to_string(f"email/game_finished.{part}", {"ranking": RANKING, "game": {"pk": 1}})
    assert "ernest (R): 84 points" in rendered


def test_the_caballeros_a_player_moved_are_told_with_frances_colon():
    event = {"event": "shift", "shifts": [{"seat": 0, "count": 1, "from": "granada", "to": "galicia"}]}
    names = Names(["green", "red", "brown"], {0: "italo"})
    with translation.override("fr"):
        said = strip_tags(event_html(event, names))
    assert said.startswith(f"italo (vert){NBSP}: 1 Caballero"), said
    with translation.override("en"):
        assert strip_tags(event_html(event, names)).startswith("italo (green): 1 "), said
