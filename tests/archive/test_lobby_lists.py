"""Every list of games in the lobby is a page long, however many games there are or a player is in,
and pages on; a page link that is not one gets a 400 saying so."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import Game
from games.play import lifecycle
from games.reading import selectors
from tests.support.archive_games import finished_game
from tests.support.helpers import HTMX, logged_in

pytestmark = pytest.mark.django_db


def ids(rows):
    return [row["game"].pk for row in rows]


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(selectors, "MY_GAMES_PER_PAGE", 3)
    monkeypatch.setattr(selectors, "OPEN_GAMES_PER_PAGE", 2)
    monkeypatch.setattr(selectors, "RECENTLY_FINISHED", 2)


def running_with(me, start_game, my_move):
    """A running game with `me` in the seat that is to move, or in one that is not."""
    game = start_game(3)
    seat = game.seats.get(index=game.to_act[0]) if my_move else game.seats.exclude(index=game.to_act[0]).first()
    seat.user = me
    seat.save()
    return game


def test_my_games_come_a_page_at_a_time_those_waiting_for_me_first(small_pages, make_user, start_game):
    me = make_user()
    waiting = [running_with(me, start_game, my_move=True) for _ in range(2)]
    others = [running_with(me, start_game, my_move=False) for _ in range(3)]
    joined = lifecycle.create_game(make_user(), num_players=4)
    lifecycle.join_game(joined, user=me)
    client = logged_in(me)
    first = client.get(reverse("lobby"))
    assert ids(first.context["my_games"]) == [waiting[1].pk, waiting[0].pk, joined.pk]
    assert first.context["waiting"] == 2 and first.context["your_move"]
    html = first.content.decode()
    assert "2 games wait for your move" in html and "page 1 of 2" in html
    assert 'href="/?mine=2"' in html
    second = client.get(reverse("lobby"), {"mine": 2})
    assert ids(second.context["my_games"]) == [others[2].pk, others[1].pk, others[0].pk]
    # The title says so on every page, and the first page is a click away.
    assert second.context["your_move"]
    assert "see the first page" in second.content.decode()
    # The live refresh of the list keeps its page.
    partial = client.get(reverse("my_games"), {"mine": 2}, **HTMX)
    assert ids(partial.context["my_games"]) == ids(second.context["my_games"])
    assert f'data-url="{reverse("my_games")}?mine=2"' in partial.content.decode()


def test_a_page_past_the_last_shows_the_last_one(small_pages, make_user, start_game):
    me = make_user()
    games = [running_with(me, start_game, my_move=False) for _ in range(4)]
    response = logged_in(me).get(reverse("lobby"), {"mine": 7})
    assert response.status_code == 200
    assert ids(response.context["my_games"]) == [games[0].pk]


@pytest.mark.parametrize("mine", ["0", "-1", "two", "1\x00", "9" * 400])
def test_a_page_number_that_is_none_gets_a_400(make_user, mine):
    me = make_user()
    client = logged_in(me)
    response = client.get(reverse("lobby"), {"mine": mine})
    if mine == "9" * 400:
        # A huge number is a page past the last: the last page.
        assert response.status_code == 200
        return
    assert response.status_code == 400
    assert "not a page number of your games" in response.content.decode()
    partial = client.get(reverse("my_games"), {"mine": mine}, **HTMX)
    assert partial.status_code == 400
    assert "not a page number" in partial.content.decode()


def test_open_games_come_a_page_at_a_time_by_keyset(small_pages, client, make_user):
    games = [lifecycle.create_game(make_user(), num_players=3) for _ in range(5)]
    lifecycle.create_game(make_user(), num_players=3, private=True)
    newest_first = [game.pk for game in reversed(games)]
    pages, response = [], client.get(reverse("lobby"))
    while True:
        pages.append(ids(response.context["open_games"]))
        older = response.context["open_page"].older
        if older is None:
            break
        assert f'href="/?open_after={older.token()}#open-games"' in response.content.decode()
        response = client.get(reverse("lobby"), {"open_after": older.token()})
    assert pages == [newest_first[:2], newest_first[2:4], newest_first[4:]]
    newer = response.context["open_page"].newer
    back = client.get(reverse("lobby"), {"open_before": newer.token()})
    assert ids(back.context["open_games"]) == newest_first[2:4]


@pytest.mark.parametrize(
    "query", [{"open_after": "nonsense"}, {"open_before": "1-\x00"}, {"open_after": "1-1", "open_before": "1-1"}]
)
def test_a_damaged_open_games_link_gets_a_400(client, db, query):
    response = client.get(reverse("lobby"), query)
    assert response.status_code == 400
    assert "page" in response.content.decode()


def test_recently_finished_is_the_archives_first_few_with_a_link_to_the_rest(small_pages, client, make_user):
    anna, ben = make_user("anna"), make_user("ben")
    games = [finished_game([anna, ben]) for _ in range(3)]
    response = client.get(reverse("lobby"))
    assert ids(response.context["finished"]) == [games[2].pk, games[1].pk]
    assert f'href="{reverse("archive")}"' in response.content.decode()


def test_a_player_in_hundreds_of_games_gets_a_page_of_them(make_user, start_game):
    """The measurement of the issue: a player in 280 running games got a 187 KB lobby."""
    me = make_user()
    games = [running_with(me, start_game, my_move=False) for _ in range(selectors.MY_GAMES_PER_PAGE + 5)]
    client = logged_in(me)
    with CaptureQueriesContext(connection) as captured:
        response = client.get(reverse("lobby"))
    assert len(response.context["my_games"]) == selectors.MY_GAMES_PER_PAGE
    assert len(captured) <= 12
    last = client.get(reverse("lobby"), {"mine": 2})
    assert ids(last.context["my_games"]) == [game.pk for game in games[:5]][::-1]
    assert Game.objects.filter(seats__user=me).count() == selectors.MY_GAMES_PER_PAGE + 5


def test_the_delete_page_names_a_bounded_number_of_running_games(make_user, start_game, password):
    from accounts import deletion

    me = make_user()
    games = [running_with(me, start_game, my_move=False) for _ in range(deletion.GAMES_NAMED + 3)]
    client = logged_in(me)
    html = client.get(reverse("delete_account")).content.decode()
    assert html.count('">game ') == deletion.GAMES_NAMED
    assert "and 3 more" in html and f"game {games[0].pk}" in html
    refused = client.post(reverse("delete_account"), {"password": password})
    assert refused.status_code == 400
    assert "and 3 more" in refused.content.decode()
