"""The game page shows a player coming back the same turn report as the mails, at its top: open
when it tells moves they have not seen, folded to its heading once they have; none for others."""

import random

import pytest
from django.urls import reverse

from games.engine import random_move, to_act
from games.play import moving
from tests.support.helpers import logged_in, state_of

pytestmark = pytest.mark.django_db


def report_of(page):
    start = page.find('<details class="turn-report"')
    if start == -1:
        return None
    return page[start:page.index("</details>\n", start)]


def test_a_returning_player_sees_what_the_others_did_once_open_then_folded(started, committed, make_user):
    game, users = started(3, seed=4)
    rng = random.Random(4)
    state = state_of(game)
    first = to_act(state)[0]
    for _ in range(3):
        seat = to_act(state)[0]
        committed(
            moving.submit_move, game, user=users[seat], move=random_move(state, seat, rng),
            expected_version=game.version)
        state = state_of(game)
    url = reverse("game", args=[game.pk])
    client = logged_in(users[first])
    report = report_of(client.get(url).content.decode())
    assert report is not None and report.startswith('<details class="turn-report" open>')
    assert "Since your last move: 2 moves by the others" in report
    others = [users[seat].username for seat in users if seat != first]
    assert all(f"{name} (" in report and "plays power card" in report for name in others)
    # Seen once, the same report stays at the top, folded.
    again = report_of(client.get(url).content.decode())
    assert again is not None and again.startswith('<details class="turn-report">')
    # A spectator, or anyone not seated, has none.
    assert report_of(logged_in(make_user()).get(url).content.decode()) is None


def test_no_report_before_anyone_but_the_player_moved(started):
    game, users = started(3, seed=4)
    first = to_act(state_of(game))[0]
    page = logged_in(users[first]).get(reverse("game", args=[game.pk])).content.decode()
    assert report_of(page) is None
