"""The archive of finished games: its rows, every filter and their combinations, keyset pages,
bad queries, private games, and a bounded number of queries however big it grows."""

import importlib
import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import Game, Result
from games.play import results
from games.reading import archive
from tests.support.archive_games import finished_game
from tests.support.helpers import logged_in, play

pytestmark = pytest.mark.django_db


def shown(response):
    return [row["game"].pk for row in response.context["page"].rows]


def json_ids(response):
    return [game["id"] for game in response.json()["games"]]


# ---- what is recorded when a game finishes ------------------------------------------------------


def test_a_game_that_finishes_is_recorded_with_places_scores_homes_and_cards(start_game):
    game = start_game(3, short_game=True, rated=True)
    play(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    setup = next(event for event in game.first_events if event["event"] == "setup")
    taken = {seat: [] for seat in range(3)}
    for events in game.moves.order_by("version").values_list("events", flat=True):
        for event in events:
            if event["event"] == "take_card":
                taken[event["seat"]].append(event["card"])
    assert all(len(cards) == 6 for cards in taken.values())
    results = {result.seat: result for result in Result.objects.filter(game=game)}
    assert sorted(results) == [0, 1, 2]
    for place, seat, score in game.standings:
        result = results[seat]
        assert (result.place, result.score, result.user) == (place, score, game.seats.get(index=seat).user)
        assert result.home == setup["homes"][seat]
        assert result.position == (seat - setup["first_bidder"]) % 3
        assert result.cards == taken[seat]
        copied = (result.finished_at, result.num_players, result.short_game, result.veto, result.rated, result.private)
        assert copied == (game.finished_at, 3, True, True, True, False)


def test_a_game_the_deadline_sweep_finishes_is_recorded_too(start_game):
    from games import deadlines
    from games.models import Seat

    game = start_game(2, short_game=True, veto=False)
    Seat.objects.filter(game=game).update(autopilot=True)
    Game.objects.filter(pk=game.pk).update(deadline=game.deadline - timedelta(days=2))
    with CaptureQueriesContext(connection) as captured:
        assert deadlines.sweep() == 1
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    results = Result.objects.filter(game=game).order_by("place", "seat")
    assert [[r.place, r.seat, r.score] for r in results] == game.standings
    assert all(len(r.cards) == 6 and r.home and r.short_game and not r.veto for r in results)
    # The game's columns the sweep does not load are read in one query, not one each.
    one_column = re.compile(r'SELECT "games_game"\."id", "games_game"\."\w+" FROM')
    assert not any(one_column.match(query["sql"]) for query in captured.captured_queries)


def test_a_game_stored_before_the_events_is_recorded_without_homes_or_cards():
    summaries = results.seat_summaries(
        2, [[1, 1, 80], [2, 0, 70]], [{"event": "legacy", "round": 0, "text": "The game begins."}], [[], []]
    )
    assert summaries == [
        {"seat": 1, "place": 1, "score": 80, "position": None, "home": "", "cards": None},
        {"seat": 0, "place": 2, "score": 70, "position": None, "home": "", "cards": None},
    ]


def test_the_migration_records_the_games_finished_before_it(start_game, make_user):
    from django.apps import apps as current_apps

    game = start_game(2, short_game=True)
    play(game)
    recorded = list(Result.objects.filter(game=game).order_by("seat").values())
    Result.objects.all().delete()
    importlib.import_module("games.migrations.0012_archive").fill_results(current_apps, None)
    fields = ("seat", "place", "score", "position", "home", "cards", "user_id", "finished_at")
    assert list(Result.objects.filter(game=game).order_by("seat").values(*fields)) == [
        {key: row[key] for key in fields} for row in recorded
    ]


# ---- the page ----------------------------------------------------------------------------------


def test_the_archive_lists_finished_games_newest_first_with_ranking_and_options(client, make_user):
    anna, ben, carla = make_user("anna"), make_user("ben"), make_user("carla")
    older = finished_game([anna, ben], [60, 75], short_game=True, veto=False)
    newer = finished_game([anna, ben, carla], [90, 90, 40], rated=True)
    response = client.get(reverse("archive"))
    assert response.status_code == 200
    assert shown(response) == [newer.pk, older.pk]
    text = " ".join(response.content.decode().split())
    assert "3 players, 9 rounds, veto cards, rated" in text
    assert "2 players, 6 rounds, no veto" in text
    # Shared places, each player's score, and a link to that player's games.
    assert '1.</span> <a href="/archive/?player=anna"' in text
    assert text.count('<span class="place">1.</span>') == 3
    assert '<strong class="score">90</strong>' in text and '<strong class="score">75</strong>' in text
    assert f'<a href="{newer.get_absolute_url()}">Game {newer.pk}</a>' in text


def test_unfinished_and_cancelled_games_are_not_in_the_archive(client, start_game, make_user):
    start_game(2)
    finished = finished_game([make_user(), make_user()])
    Game.objects.create(creator=make_user(), num_players=2, seed=1, status=Game.Status.CANCELLED)
    assert shown(client.get(reverse("archive"))) == [finished.pk]


def test_the_header_links_to_the_archive_and_the_statistics(client, db):
    html = client.get(reverse("lobby")).content.decode()
    assert f'href="{reverse("archive")}"' in html and f'href="{reverse("statistics")}"' in html


# ---- the filters -------------------------------------------------------------------------------


@pytest.fixture
def varied(make_user):
    """Twelve games of every kind between anna, ben, carla and dora, and what each is."""
    anna, ben, carla, dora = (make_user(name) for name in ("anna", "ben", "carla", "dora"))
    start = datetime(2025, 3, 1, 12, tzinfo=UTC)
    specs = [
        ([anna, ben], dict(short_game=True, veto=True, rated=False)),
        ([anna, carla], dict(short_game=False, veto=False, rated=True)),
        ([ben, carla, dora], dict(short_game=False, veto=True, rated=True)),
        ([anna, ben, carla], dict(short_game=True, veto=False, rated=False)),
        ([anna, ben, carla, dora], dict(short_game=False, veto=True, rated=False)),
        ([dora, ben], dict(short_game=False, veto=True, rated=True)),
        ([carla, dora, anna], dict(short_game=True, veto=True, rated=True)),
        ([ben, anna, dora, carla], dict(short_game=True, veto=False, rated=True)),
        ([anna, dora], dict(short_game=False, veto=False, rated=False)),
        ([carla, ben], dict(short_game=True, veto=False, rated=True)),
        ([dora, carla, ben, anna], dict(short_game=False, veto=True, rated=True)),
        ([ben, dora, anna], dict(short_game=False, veto=False, rated=False)),
    ]
    games = []
    for day, (users, options) in enumerate(specs):
        game = finished_game(users, when=start + timedelta(days=day), **options)
        games.append({
            "pk": game.pk, "names": {user.username for user in users}, "players": len(users),
            "rounds": 6 if options["short_game"] else 9, "veto": options["veto"], "rated": options["rated"],
            "day": (start + timedelta(days=day)).date(),
        })
    return games


def expected(games, query):
    matching = []
    for game in games:
        names = {query[key] for key in ("player", "against") if key in query}
        if not names <= game["names"]:
            continue
        if "players" in query and game["players"] != int(query["players"]):
            continue
        if "rounds" in query and game["rounds"] != int(query["rounds"]):
            continue
        if "veto" in query and game["veto"] != (query["veto"] == "yes"):
            continue
        if "rated" in query and game["rated"] != (query["rated"] == "yes"):
            continue
        if "since" in query and game["day"].isoformat() < query["since"]:
            continue
        if "until" in query and game["day"].isoformat() > query["until"]:
            continue
        matching.append(game["pk"])
    return sorted(matching, reverse=True)


FILTERS = [
    {},
    {"player": "anna"},
    {"player": "anna", "against": "ben"},
    {"against": "dora"},
    {"player": "carla", "against": "dora"},
    {"players": "2"},
    {"players": "3"},
    {"players": "4"},
    {"players": "5"},
    {"rounds": "6"},
    {"rounds": "9"},
    {"veto": "yes"},
    {"veto": "no"},
    {"rated": "yes"},
    {"rated": "no"},
    {"since": "2025-03-05"},
    {"until": "2025-03-03"},
    {"since": "2025-03-04", "until": "2025-03-04"},
    {"player": "anna", "rounds": "9", "veto": "no"},
    {"player": "ben", "against": "anna", "rated": "yes", "players": "4"},
    {"players": "3", "rounds": "6", "rated": "yes", "veto": "yes"},
    {"player": "dora", "since": "2025-03-06", "until": "2025-03-11", "veto": "yes"},
    {"rounds": "9", "veto": "yes", "rated": "yes", "players": "2", "since": "2025-03-02"},
    {"player": "anna", "players": "2", "rounds": "6", "veto": "no", "rated": "yes"},
]


@pytest.mark.parametrize("query", FILTERS, ids=lambda query: "&".join(f"{k}={v}" for k, v in query.items()) or "all")
def test_each_filter_and_combination_from_the_url(client, varied, query):
    want = expected(varied, query)
    response = client.get(reverse("archive"), query)
    assert response.status_code == 200
    assert shown(response) == want
    assert json_ids(client.get(reverse("archive_json"), query)) == want
    # The form shows the filters asked for, so the next search starts from them.
    for key, value in query.items():
        assert response.context["form"].data[key] == value


def test_the_filter_form_keeps_the_filters_in_the_address(client, varied):
    html = client.get(reverse("archive"), {"player": "anna", "veto": "no", "since": "2025-03-02"}).content.decode()
    assert '<form method="get" action="/archive/"' in html
    assert 'name="player" id="id_player" maxlength="150" value="anna"' in html
    assert 'name="since" id="id_since" value="2025-03-02"' in html
    veto = html[html.index('<select name="veto"'):]
    veto = veto[:veto.index("</select>")]
    assert veto.count(" selected") == 1 and '<option value="no" selected>' in veto
    # A refused query keeps what was typed, to correct it.
    refused = client.get(reverse("archive"), {"player": "nobody<b>"}).content.decode()
    assert 'value="nobody&lt;b&gt;"' in refused


def test_a_date_range_is_whole_days_in_the_viewers_time_zone(make_user):
    anna, ben = make_user("anna"), make_user("ben")
    anna.time_zone = "Pacific/Auckland"  # UTC+13 in January
    anna.save()
    late_evening_utc = finished_game([anna, ben], when=datetime(2025, 1, 10, 20, tzinfo=UTC))
    client = logged_in(anna)
    # In Auckland that game finished on 11 January.
    assert shown(client.get(reverse("archive"), {"since": "2025-01-11", "until": "2025-01-11"})) == [
        late_evening_utc.pk
    ]
    assert shown(client.get(reverse("archive"), {"until": "2025-01-10"})) == []


def test_a_deleted_player_is_no_filter_and_their_name_links_nowhere(client, make_user):
    from accounts import deletion

    anna, ben = make_user("anna"), make_user("ben")
    game = finished_game([anna, ben])
    deletion.delete_account(ben)
    response = client.get(reverse("archive"))
    assert shown(response) == [game.pk]
    html = response.content.decode()
    assert "deleted player" in html and f"player={ben.username}" not in html
    assert client.get(reverse("archive"), {"player": ben.username}).status_code == 400


# ---- pages -------------------------------------------------------------------------------------


def test_pages_go_on_by_keyset_both_ways(client, make_user, monkeypatch):
    monkeypatch.setattr(archive, "PAGE_SIZE", 3)
    anna, ben = make_user("anna"), make_user("ben")
    same_time = datetime(2025, 5, 1, tzinfo=UTC)
    # Games finished at the same instant are told apart by their ids.
    games = [finished_game([anna, ben], when=same_time if i in (2, 3, 4) else None) for i in range(8)]
    everything = [game.pk for game in sorted(games, key=lambda game: (game.finished_at, game.pk), reverse=True)]
    pages, response = [], client.get(reverse("archive"))
    assert response.context["newer_url"] is None
    while True:
        pages.append(shown(response))
        if response.context["older_url"] is None:
            break
        response = client.get(response.context["older_url"])
        assert response.status_code == 200
    assert [pk for page in pages for pk in page] == everything
    assert [len(page) for page in pages] == [3, 3, 2]
    # And back again, from the last page to the first.
    back = [pages[-1]]
    while response.context["newer_url"] is not None:
        response = client.get(response.context["newer_url"])
        back.append(shown(response))
    assert back[::-1] == pages


def test_pages_keep_the_filters(client, make_user, monkeypatch):
    monkeypatch.setattr(archive, "PAGE_SIZE", 2)
    anna, ben, carla = make_user("anna"), make_user("ben"), make_user("carla")
    mine = [finished_game([anna, ben] if i % 2 else [anna, carla]) for i in range(6)]
    with_ben = sorted((game.pk for game in mine[1::2]), reverse=True)
    first = client.get(reverse("archive"), {"player": "anna", "against": "ben"})
    assert "against=ben" in first.context["older_url"] and "player=anna" in first.context["older_url"]
    second = client.get(first.context["older_url"])
    assert shown(first) + shown(second) == with_ben
    assert second.context["older_url"] is None


def test_the_json_pages_follow_their_links(client, make_user):
    anna, ben = make_user("anna"), make_user("ben")
    games = [finished_game([anna, ben]) for _ in range(5)]
    seen, url = [], reverse("archive_json") + "?limit=2"
    while url:
        body = client.get(url).json()
        seen += [game["id"] for game in body["games"]]
        url = body["older"]
    assert seen == sorted((game.pk for game in games), reverse=True)
    assert body["newer"].startswith("http://testserver/archive.json?")


def test_the_json_shape(client, make_user):
    anna, ben, carla = make_user("anna"), make_user("ben"), make_user("carla")
    game = finished_game([anna, ben, carla], [70, 90, 70], short_game=True, veto=False, rated=True)
    response = client.get(reverse("archive_json"))
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "games": [{
            "id": game.pk,
            "url": f"http://testserver/games/{game.pk}/",
            "finished_at": game.finished_at.isoformat(),
            "num_players": 3,
            "rounds": 6,
            "veto": False,
            "rated": True,
            "practice": False,
            "private": False,
            "imported": False,
            "players": [
                {"place": 1, "seat": 1, "name": "ben", "colour": "yellow", "score": 90},
                {"place": 2, "seat": 0, "name": "anna", "colour": "red", "score": 70},
                {"place": 2, "seat": 2, "name": "carla", "colour": "blue", "score": 70},
            ],
        }],
        "newer": None,
        "older": None,
    }


def test_the_json_is_read_only(client, db):
    assert client.post(reverse("archive_json")).status_code == 405
    assert client.post(reverse("archive")).status_code == 405


# ---- bad queries -------------------------------------------------------------------------------

BAD = [
    ({"players": "7"}, "Players"),
    ({"players": "two"}, "Players"),
    ({"rounds": "8"}, "Rounds"),
    ({"veto": "maybe"}, "Veto cards"),
    ({"rated": "1"}, "Rated"),
    ({"since": "yesterday"}, "Finished from"),
    ({"since": "0001-01-01"}, "published in 1995"),
    ({"until": "99999-01-01"}, "to:"),
    ({"until": "3000-01-01"}, "to 2999"),
    ({"since": "2025-02-01", "until": "2025-01-01"}, "wrong way round"),
    ({"player": "nobody"}, "No player is called “nobody”"),
    ({"player": "an\x00na"}, "Null characters"),
    ({"player": "x" * 151}, "at most 150"),
    ({"player": "anna", "against": "anna"}, "two different players"),
    ({"after": "forged"}, "page link is damaged"),
    ({"after": "1700000000000000-1\x00"}, "Null characters"),
    ({"before": "-5-3"}, "page link is damaged"),
    ({"after": "99999999999999999-1"}, "out of range"),
    ({"after": "1-99999999999999999999"}, "page link is damaged"),
    ({"after": "1-1", "before": "1-1"}, "either after a game or before one"),
]


@pytest.mark.parametrize("query,message", BAD, ids=[message for _, message in BAD])
def test_a_bad_query_gets_a_400_saying_why(client, make_user, query, message):
    make_user("anna")
    response = client.get(reverse("archive"), query)
    assert response.status_code == 400
    assert "page" not in response.context
    assert message in response.context["error"]
    assert 'role="alert"' in response.content.decode()
    as_json = client.get(reverse("archive_json"), query)
    assert as_json.status_code == 400
    assert message in as_json.json()["error"]


@pytest.mark.parametrize("limit", ["0", "101", "-1", "many"])
def test_the_json_limit_is_between_1_and_100(client, db, limit):
    response = client.get(reverse("archive_json"), {"limit": limit})
    assert response.status_code == 400
    assert "Limit" in response.json()["error"]


def test_a_forged_but_well_formed_cursor_is_just_a_place_in_the_archive(client, make_user):
    anna, ben = make_user("anna"), make_user("ben")
    old = finished_game([anna, ben], when=datetime(2024, 1, 1, tzinfo=UTC))
    finished_game([anna, ben], when=datetime(2026, 1, 1, tzinfo=UTC))
    cursor = archive.keyset.Cursor(datetime(2025, 1, 1, tzinfo=UTC), 10**12)
    assert shown(client.get(reverse("archive"), {"after": cursor.token()})) == [old.pk]


# ---- private games -----------------------------------------------------------------------------


def test_a_private_game_is_listed_only_to_its_players(client, make_user):
    anna, ben, carla, spy = (make_user(name) for name in ("anna", "ben", "carla", "spy"))
    public = finished_game([anna, carla])
    private = finished_game([anna, ben], private=True)
    queries = [{}, {"player": "anna"}, {"player": "ben"}, {"player": "anna", "against": "ben"}, {"players": "2"}]
    for viewer in (None, spy, carla):
        browser = client if viewer is None else logged_in(viewer)
        for query in queries:
            page = browser.get(reverse("archive"), query)
            assert private.pk not in shown(page)
            assert f"/games/{private.pk}/" not in page.content.decode()
            assert private.pk not in json_ids(browser.get(reverse("archive_json"), query))
        assert private.pk not in [row["game"].pk for row in browser.get(reverse("lobby")).context["finished"]]
        if viewer is not None:
            assert browser.get(reverse("profile", args=["anna"])).context["finished_rows"][0]["game"].pk == public.pk
    for player in (anna, ben):
        browser = logged_in(player)
        assert shown(browser.get(reverse("archive"))) == [private.pk, public.pk]
        assert shown(browser.get(reverse("archive"), {"player": "anna", "against": "ben"})) == [private.pk]
        assert json_ids(browser.get(reverse("archive_json"), {"player": "ben"})) == [private.pk]
    # A player of it sees it among another's games only when it is a game they share.
    assert shown(logged_in(ben).get(reverse("archive"), {"player": "anna"})) == [private.pk, public.pk]
    assert shown(logged_in(ben).get(reverse("archive"), {"player": "carla"})) == [public.pk]


# ---- bounded queries ---------------------------------------------------------------------------

QUERY_SETS = [{}, {"player": "anna"}, {"player": "anna", "against": "ben"}, {"players": "3", "rated": "yes"},
              {"since": "2020-01-01", "veto": "no", "rounds": "6"}]


def test_the_archive_takes_a_fixed_few_queries_however_many_games(make_user):
    anna, ben, carla = make_user("anna"), make_user("ben"), make_user("carla")
    clients = {"anonymous": Client(), "anna": logged_in(anna)}

    def add(count):
        for i in range(count):
            finished_game([anna, ben, carla] if i % 2 else [ben, anna, carla], short_game=bool(i % 3),
                          veto=not i % 2, rated=True, private=i % 5 == 0)

    def counts():
        found = {}
        for name, browser in clients.items():
            for query in QUERY_SETS:
                for url in (reverse("archive"), reverse("archive_json")):
                    with CaptureQueriesContext(connection) as captured:
                        assert browser.get(url, query).status_code == 200
                    found[name, url, json.dumps(query)] = len(captured)
        return found

    add(2)
    few = counts()
    add(40)
    many = counts()
    assert many == few
    # The keys (public, and a logged-in viewer's private games), the games, their seats; and a
    # session and its user for a logged-in viewer, and the filter's players.
    for (name, _url, query), count in many.items():
        players = len(json.loads(query).get("player", "")[:1]) + len(json.loads(query).get("against", "")[:1])
        assert count <= (3 if name == "anonymous" else 6) + players


def test_a_list_never_loads_the_games_state(client, make_user):
    anna, ben = make_user("anna"), make_user("ben")
    finished_game([anna, ben])
    with CaptureQueriesContext(connection) as captured:
        client.get(reverse("archive"))
    assert not any('"state"' in query["sql"] or '"first_events"' in query["sql"] for query in captured.captured_queries)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="EXPLAIN of PostgreSQL's plans")
def test_every_archive_query_can_be_answered_from_an_index(make_user):
    """With sequential scans priced out, no query of the archive, the lobby or a profile falls
    back on one (there is an index for each), and no list is sorted outside its index.
    bench/archive.py shows the plans PostgreSQL picks by itself at 100,000 games."""
    anna, ben, carla = make_user("anna"), make_user("ben"), make_user("carla")
    for i in range(6):
        finished_game([anna, ben, carla][: 2 + i % 2], private=i == 3, rated=bool(i % 2))
    browser = logged_in(anna)
    captured = []
    for query in [*QUERY_SETS, {"after": archive.keyset.Cursor(datetime(2026, 1, 1, tzinfo=UTC), 1).token()}]:
        with CaptureQueriesContext(connection) as queries:
            browser.get(reverse("archive"), query)
        captured += queries.captured_queries
    with CaptureQueriesContext(connection) as queries:
        browser.get(reverse("lobby"))
        browser.get(reverse("profile", args=["ben"]))
    captured += queries.captured_queries
    statements = [query["sql"] for query in captured if query["sql"].lstrip().upper().startswith("SELECT")]
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        try:
            for sql in statements:
                if "games_" not in sql:
                    continue
                cursor.execute(f"EXPLAIN {sql}")
                plan = "\n".join(line for (line,) in cursor.fetchall())
                assert "Seq Scan on games_" not in plan, f"{sql}\n{plan}"
        finally:
            cursor.execute("SET enable_seqscan = on")


# ---- imported games ----------------------------------------------------------------------------


def test_an_imported_game_is_in_the_archive_and_its_statistics(client, tmp_path):
    from django.core.management import call_command

    from games.reading import statistics
    from tests.support.records import a_record

    path = tmp_path / "record.json"
    path.write_text(json.dumps(a_record()))
    call_command("import_game", str(path))
    game = Game.objects.get(imported=True)
    results = list(Result.objects.filter(game=game).order_by("place", "seat"))
    assert [[r.place, r.seat, r.score] for r in results] == game.standings
    # Its players are names from the record, not users here: no filter reaches them, no link.
    assert all(r.user is None and r.home and r.cards for r in results)
    response = client.get(reverse("archive"))
    assert shown(response) == [game.pk]
    html = " ".join(response.content.decode().split())
    assert ", imported</div>" in html and "player-link" not in html
    for name in ("Ana", "Bernardo", "Carmen"):
        assert name in html
    [entry] = client.get(reverse("archive_json")).json()["games"]
    assert entry["imported"] is True
    assert [player["name"] for player in entry["players"]] == [
        ["Ana", "Bernardo", "Carmen"][seat] for _, seat, _ in game.standings
    ]
    figures = statistics.compute()
    assert figures["games"] == 1 and figures["card_games"] == 1


def test_the_archive_page_and_json_show_seats_without_loading_a_model_instance(client, make_user):
    from django.db.models.signals import post_init

    from accounts.models import User
    from games.computer.players import computer_user
    from games.models import Seat

    anna, ben = make_user("anna"), make_user("ben")
    robot = computer_user("greedy")
    game = finished_game([anna, ben, robot], scores=[50, 70, 60])
    Seat.objects.filter(game=game, user=robot).update(computer="greedy")
    ben.deleted_at = datetime(2026, 1, 1, tzinfo=UTC)
    ben.save()
    made = []

    def count(sender, **kwargs):
        made.append(sender.__name__)

    for model in (Game, Seat, User):
        post_init.connect(count, sender=model)
    try:
        html = client.get(reverse("archive")).content.decode()
        data = client.get(reverse("archive_json")).json()
    finally:
        for model in (Game, Seat, User):
            post_init.disconnect(count, sender=model)
    assert made == []
    (listed,) = data["games"]
    assert [(p["place"], p["seat"], p["name"], p["score"]) for p in listed["players"]] == [
        (1, 1, "deleted player", 70), (2, 2, "Computer (greedy)", 60), (3, 0, "anna", 50)
    ]
    assert listed["url"].endswith(game.get_absolute_url()) and listed["rounds"] == 9
    # The deleted player's name links nowhere; anna's and the computer's to their games.
    assert html.count('class="player-link"') == 2 and "player=anna" in html
    assert "Computer (greedy)" in html and "deleted player" in html
