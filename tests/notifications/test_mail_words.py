"""The words of mails as each language writes them: the digest says "this game" for one game and
"these games" for more."""

import pytest

from games.mail import composing

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
