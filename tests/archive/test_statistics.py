"""The statistics page: its figures on a few games made by hand, worked out here by hand too, and
how they are kept: computed off the requests, at most every few minutes."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import tasks
from games.computer import players as computer
from games.reading import statistics
from tests.support.archive_games import finished_game
from tests.support.helpers import play

pytestmark = pytest.mark.django_db


@pytest.fixture
def five_games(make_user):
    """Five finished games, one private game and one practice game (with a computer player),
    which the statistics leave out.

    game  players  rounds  scores (seat order)  first bidder  homes (seat order)
    1     2        9       [90, 70]             0             galicia, aragon
    2     2        9       [60, 80]             1             aragon, seville
    3     3        9       [100, 100, 50]       2             galicia, seville, granada
    4     3        6       [40, 70, 60]         0             aragon, galicia, valencia
    5     2        6       [55, 45]             1             seville, galicia
    """
    anna, ben, carla = make_user("anna"), make_user("ben"), make_user("carla")
    finished_game([anna, ben], [90, 70], homes=["galicia", "aragon"], first_bidder=0,
                  cards={0: ["score_castillo", "king_card"], 1: ["eviction", "score_castillo"]})
    finished_game([ben, carla], [60, 80], homes=["aragon", "seville"], first_bidder=1,
                  cards={0: ["king_card", "veto"], 1: ["score_castillo", "eviction"]})
    finished_game([anna, ben, carla], [100, 100, 50], homes=["galicia", "seville", "granada"], first_bidder=2,
                  cards={0: ["veto"], 1: ["king_card"], 2: ["score_castillo"]})
    finished_game([carla, anna, ben], [40, 70, 60], short_game=True, homes=["aragon", "galicia", "valencia"],
                  first_bidder=0, cards={0: ["eviction"], 1: ["eviction"], 2: ["king_card"]})
    finished_game([anna, carla], [55, 45], short_game=True, homes=["seville", "galicia"], first_bidder=1,
                  cards={0: ["king_card"], 1: ["veto"]})
    finished_game([anna, ben], [10, 200], private=True, homes=["valencia", "catalonia"],
                  cards={0: ["veto"], 1: ["veto"]})
    finished_game([computer.computer_user("random"), carla], [5, 300], practice=True,
                  homes=["valencia", "catalonia"], cards={0: ["veto"], 1: ["veto"]})


def test_games_and_the_average_winning_score_by_number_of_players(five_games):
    figures = statistics.compute()
    assert figures["games"] == 5
    assert figures["by_players"] == [
        # 9 rounds: 90 and 80; 6 rounds: 55. A shared first place counts its score once.
        {"num_players": 2, "games": 3, "long": 2, "short": 1, "winning_long": 85.0, "winning_short": 55.0},
        {"num_players": 3, "games": 2, "long": 1, "short": 1, "winning_long": 100.0, "winning_short": 70.0},
    ]


def test_how_often_each_place_in_the_first_bidding_wins(five_games):
    [two, three] = statistics.compute()["positions"]
    # 2 players: game 1 seat 0 bid first and won; game 2 seat 1 bid first and won; game 5 seat 1
    # bid first and lost (seat 0, second to bid, won).
    assert two["num_players"] == 2 and two["games"] == 3 and two["expected"] == 50.0
    assert [(cell["position"], cell["wins"], cell["seats"]) for cell in two["cells"]] == [(1, 2, 3), (2, 1, 3)]
    assert two["cells"][0]["rate"] == pytest.approx(200 / 3)
    # 3 players: game 3 seats 0 and 1 share the win, first bidder seat 2 (positions 2 and 3 win);
    # game 4 seat 1 wins, first bidder seat 0 (position 2 wins).
    assert [(cell["wins"], cell["seats"]) for cell in three["cells"]] == [(0, 2), (2, 2), (1, 2)]


def test_how_often_each_home_region_wins(five_games):
    homes = {row["region"]: row for row in statistics.compute()["homes"]}
    # galicia: won games 1, 3 (2 and 3 players) and 4 (3 players), lost 5 (2 players).
    assert (homes["galicia"]["seats"], homes["galicia"]["wins"]) == (4, 3)
    assert homes["galicia"]["rate"] == 75.0
    assert homes["galicia"]["expected"] == pytest.approx(100 * (1 / 2 + 1 / 3 + 1 / 3 + 1 / 2) / 4)
    assert (homes["aragon"]["seats"], homes["aragon"]["wins"]) == (3, 0)
    assert (homes["seville"]["seats"], homes["seville"]["wins"]) == (3, 3)
    assert (homes["granada"]["seats"], homes["granada"]["wins"]) == (1, 0)
    assert (homes["valencia"]["seats"], homes["valencia"]["wins"]) == (1, 0)
    # The private and practice games' regions are not counted, and the best region comes first.
    assert "catalonia" not in homes
    assert list(homes)[:2] == ["seville", "galicia"]


def test_how_often_each_action_card_is_taken_and_by_the_eventual_winner(five_games):
    figures = statistics.compute()
    cards = {row["card"]: row for row in figures["cards"]}
    assert figures["card_games"] == 5
    assert {card: (row["taken"], row["by_winner"]) for card, row in cards.items()} == {
        "score_castillo": (4, 2),  # game 1 seat 0 (won), 1 seat 1, 2 seat 1 (won), 3 seat 2
        "king_card": (5, 3),  # game 1 seat 0 (won), 2 seat 0, 3 seat 1 (won), 4 seat 2, 5 seat 0 (won)
        "eviction": (4, 2),  # game 1 seat 1, 2 seat 1 (won), 4 seat 0, 4 seat 1 (won)
        "veto": (3, 1),  # game 2 seat 0, 3 seat 0 (won), 5 seat 1; the private and practice games' not counted
    }
    assert cards["score_castillo"]["title"] == "Scoring: the Castillo"
    assert cards["king_card"]["stack"] == 5 and cards["eviction"]["stack"] == 4
    assert cards["king_card"]["per_game"] == 1.0
    assert cards["score_castillo"]["winner_share"] == 50.0
    # The cards the winners took most often first; a tie goes to the card taken more, then by title.
    assert [row["card"] for row in figures["cards"]] == ["king_card", "eviction", "score_castillo", "veto"]
    assert figures["winners_share"] == 50.0


def test_the_figures_of_a_played_game(start_game):
    game = start_game(2, short_game=True)
    play(game)
    game.refresh_from_db()
    figures = statistics.compute()
    assert figures["games"] == 1 and figures["card_games"] == 1
    assert sum(row["taken"] for row in figures["cards"]) == 12
    winning = game.standings[0][2]
    assert figures["by_players"][0]["winning_short"] == winning


def test_the_page_shows_the_figures(client, five_games):
    response = client.get(reverse("statistics"))
    assert response.status_code == 200
    text = " ".join(response.content.decode().split())
    assert "Drawn from the 5 finished public games" in text
    assert "Practice games, with computer players, are left out." in text
    assert "85.0" in text and "55.0" in text
    seville = '<th scope="row">Seville</th><td class="number">3</td><td class="number optional">3</td>'
    assert f'{seville} <td class="number">100.0%</td>' in text
    assert "Scoring: the Castillo" in text
    assert '<a href="/archive/">archive</a>' in text


def test_the_figures_time_names_its_zone_the_readers(client, five_games, make_user):
    """"As of" a time, in the reader's own time zone, and saying which: the games' clocks do."""
    assert re.search(r'as of <time datetime="[^"]+">\d+ \w+ \d{4}, \d\d:\d\d UTC</time>',
                     client.get(reverse("statistics")).content.decode())
    rome = make_user("romano")
    rome.time_zone = "Europe/Rome"
    rome.save()
    client.force_login(rome)
    assert re.search(r'as of <time datetime="[^"]+">\d+ \w+ \d{4}, \d\d:\d\d CES?T</time>',
                     client.get(reverse("statistics")).content.decode())


def test_the_page_with_no_game_yet(client, db):
    response = client.get(reverse("statistics"))
    assert response.status_code == 200
    assert "No game has finished yet" in response.content.decode()


def test_the_page_does_not_compute_the_figures_on_every_request(client, five_games, make_user, settings):
    settings.STATISTICS_SECONDS = 600
    client.get(reverse("statistics"))
    finished_game([make_user(), make_user()], [100, 1])
    with CaptureQueriesContext(connection) as captured:
        response = client.get(reverse("statistics"))
    assert not any("games_result" in query["sql"] for query in captured.captured_queries)
    assert response.context["stats"]["games"] == 5


def test_beat_refreshes_the_figures_and_the_page_shows_them(client, five_games, make_user):
    client.get(reverse("statistics"))
    finished_game([make_user(), make_user()], [100, 1])
    tasks.refresh_statistics()
    assert client.get(reverse("statistics")).context["stats"]["games"] == 6


def test_stale_figures_are_computed_again_by_the_next_request(client, five_games, make_user, settings, monkeypatch):
    settings.STATISTICS_SECONDS = 60
    client.get(reverse("statistics"))
    finished_game([make_user(), make_user()], [100, 1])
    later = timezone.now() + timedelta(seconds=121)
    monkeypatch.setattr(statistics.timezone, "now", lambda: later)
    assert client.get(reverse("statistics")).context["stats"]["games"] == 6


def test_while_another_process_computes_the_stale_figures_are_shown(client, five_games, make_user, settings,
                                                                     monkeypatch):
    from django.core.cache import cache

    settings.STATISTICS_SECONDS = 60
    client.get(reverse("statistics"))
    finished_game([make_user(), make_user()], [100, 1])
    later = timezone.now() + timedelta(seconds=121)
    monkeypatch.setattr(statistics.timezone, "now", lambda: later)
    cache.add(statistics.LOCK_KEY, True)
    assert client.get(reverse("statistics")).context["stats"]["games"] == 5
    cache.delete(statistics.LOCK_KEY)
    assert client.get(reverse("statistics")).context["stats"]["games"] == 6


def test_beat_runs_the_refresh(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["refresh-statistics"]
    assert entry["task"] == "games.tasks.refresh_statistics"
    assert entry["schedule"] == settings.STATISTICS_SECONDS
