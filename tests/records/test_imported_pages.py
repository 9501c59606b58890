"""An imported game is a finished game like any other on the site's pages, with its players
named as in its record (they need not be users here): its page, its partials and the lobby show
it, nobody visiting is one of its seats, and nothing runs for it (deadlines, mail)."""

import json
import re

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils.html import strip_tags

from games import deadlines
from games.models import Game, Notification
from games.reading import selectors
from tests.support.helpers import HTMX, logged_in
from tests.support.records import a_record

pytestmark = pytest.mark.django_db

NAMES = ["Ana", "Bernardo", "Carmen"]


@pytest.fixture
def imported(tmp_path):
    record = a_record()
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    call_command("import_game", str(path))
    return Game.objects.get(imported=True)


def text(response):
    assert response.status_code == 200
    # Without the scripts: the clocks' words (base.html's #clock-texts) are data, not page text.
    html = re.sub(r"<script[^>]*>.*?</script>", "", response.content.decode(), flags=re.S)
    return re.sub(r"\s+", " ", strip_tags(html))


def test_its_page_shows_the_final_board_with_the_recorded_names(imported, make_user):
    for client in (Client(), logged_in(make_user())):
        page = text(client.get(imported.get_absolute_url()))
        assert "The game is over." in page
        assert "imported from a game record" in page
        winner = NAMES[imported.standings[0][1]]
        assert f"Final ranking: 1. {winner}" in page
        for name in NAMES:
            assert name in page
        assert "(you)" not in page and "Your move" not in page


def test_its_log_names_the_players(imported):
    log = text(Client().get(reverse("game_partial", args=[imported.pk, "log"]), {"all": "1"}, **HTMX))
    place, seat, _ = imported.standings[0]
    assert f"The game is over. {place}. {NAMES[seat]} (" in log
    for name in NAMES:
        assert f"{name} (" in log


@pytest.mark.parametrize("name", ["play", "board", "decision", "log"])
def test_every_partial_renders(imported, name):
    response = Client().get(reverse("game_partial", args=[imported.pk, name]), **HTMX)
    assert response.status_code == 200


def test_its_page_links_to_its_record(imported):
    page = Client().get(imported.get_absolute_url()).content.decode()
    assert f'href="{reverse("game_record", args=[imported.pk])}"' in page


def test_the_lobby_lists_it_among_the_finished_games(imported, make_user):
    for client in (Client(), logged_in(make_user())):
        page = text(client.get(reverse("lobby")))
        assert f"Game {imported.pk}" in page
        for name in NAMES:
            assert name in page
    # A visitor without an account is not taken for one of its seats, which have no user either.
    [row] = selectors.finished_games(AnonymousUser())
    assert [player["you"] for player in row["players"]] == [False, False, False]
    assert [player["username"] for player in row["ranking"]] == [NAMES[seat] for _, seat, _ in imported.standings]


def test_no_profile_lists_it_even_under_a_recorded_name(imported, make_user):
    ana = make_user("Ana")
    page = text(logged_in(ana).get(reverse("profile", args=["Ana"])))
    assert f"Game {imported.pk}" not in page
    assert "No finished game yet." in page


def test_nothing_runs_for_it(imported):
    assert deadlines.sweep() == 0
    imported.refresh_from_db()
    assert imported.deadline is None and not imported.rated and imported.status == Game.Status.FINISHED
    assert not Notification.objects.exists()


def test_a_move_posted_to_it_is_refused(imported, make_user):
    client = logged_in(make_user())
    move = {"expected_version": imported.version, "move": '{"type": "bid", "card": 9}'}
    response = client.post(reverse("move", args=[imported.pk]), move)
    assert response.status_code == 409
    assert "This game is over" in response.content.decode()
    assert imported.moves.count() == len(a_record()["moves"])


def test_the_admin_shows_it(imported, admin_client):
    assert admin_client.get(reverse("admin:games_game_change", args=[imported.pk])).status_code == 200
    assert admin_client.get(reverse("admin:games_game_changelist")).status_code == 200
