"""GET /api/games/<pk>/record/?after=x (or a limit out of range) answered its 400's "error" in
English whatever the reader's language: the sentence was an f-string, never translated, while the
404 beside it ("No such finished game.") was."""

import pytest
from django.test import Client

from tests.support.archive_games import finished_game

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "language, query, words",
    [
        ("fr", "after=x", "« after » doit être un nombre entier de 0 à"),
        ("fr", "limit=0", "« limit » doit être un nombre entier de 1 à 1000."),
        ("it", "limit=5000", "“limit” deve essere un numero intero da 1 a 1000."),
        ("en", "after=-1", '"after" must be a whole number from 0 to'),
    ],
)
def test_a_bad_page_of_the_record_api_is_refused_in_the_reader_s_language(make_user, language, query, words):
    game = finished_game([make_user(), make_user(), make_user()])
    response = Client(HTTP_ACCEPT_LANGUAGE=language).get(f"/api/games/{game.pk}/record/?{query}")
    assert response.status_code == 400
    assert words in response.json()["error"]
