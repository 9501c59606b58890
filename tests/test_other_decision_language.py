"""A post of fields for another decision than the seat's (a forged or mixed-up form: move_form=place
while the seat must bid) was refused in the reader's language but for the decision's name, the
engine's id in English: "Ces champs ne répondent pas à votre décision actuelle (une décision de
type bid)." The refusal must be said in the reader's language, and change nothing."""

from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from tests.support.helpers import HTMX, snapshot, user_at

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "language, words",
    [
        ("en", "These fields do not answer the decision you have now: your bid."),
        ("fr", "Ces champs ne répondent pas à la décision que vous avez à prendre maintenant\u00a0: "
               "votre carte de pouvoir."),
        ("it", "Questi campi non rispondono alla decisione che hai ora: la tua carta potere."),
    ],
)
def test_fields_of_another_decision_are_refused_in_the_reader_s_language(start_game, language, words):
    game = start_game(3)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user_at(game, game.to_act[0]))
    before = snapshot(game)
    response = client.post(reverse("move", args=[game.pk]),
                           {"move_form": "place", "to-aragon": "1", "expected_version": game.version}, **HTMX)
    assert response.status_code == 400
    page = unescape(response.content.decode())
    assert words in page
    assert "bid" not in page.replace("your bid", "")
    assert snapshot(game) == before
