"""A game's record is served only once the game is finished (its seed decides every hidden thing,
and its moves hold the secret choices), and a private game's only to the players seated in it:
to anyone else it is a 404, as for a game that does not exist. The JSON endpoint gives the moves
in pages, with a cursor by version."""

import json

import pytest
from django.test import Client
from django.urls import reverse

from games.access import invitation_session_key
from games.play import lifecycle
from tests.support.copied_rows import made_once
from tests.support.helpers import logged_in, play, user_at

pytestmark = pytest.mark.django_db

NOT_FOUND = {"error": "No such finished game."}


def urls(game):
    return [reverse("game_record", args=[game.pk]), reverse("game_record_api", args=[game.pk])]


def assert_hidden(client, game):
    for url in urls(game):
        response = client.get(url)
        assert response.status_code == 404, url
        assert response.json() == NOT_FOUND
        assert str(game.seed) not in response.content.decode()


def assert_served(client, game):
    for url in urls(game):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Content-Type"] == "application/json"
        assert response.json()["seed"] == game.seed


@pytest.fixture
def finished(start_game, finish_game):
    """A finished game; the same one asked again in this process is copied from the first one's
    rows (tests/support/copied_rows.py) instead of played again through the services."""

    def make(**options):
        def build():
            return finish_game(start_game(3, seed=21, short_game=True, **options))

        game = made_once(("records finished", tuple(sorted(options.items()))), build)
        game.refresh_from_db()
        return game

    return make


def test_a_finished_public_game_is_served_to_everyone_and_downloads_as_a_file(finished, make_user):
    game = finished()
    assert_served(Client(), game)
    assert_served(logged_in(make_user()), game)
    assert_served(logged_in(user_at(game, 0)), game)
    response = Client().get(reverse("game_record", args=[game.pk]))
    assert response["Content-Disposition"] == f'attachment; filename="el-grande-game-{game.pk}.json"'
    assert len(response.json()["moves"]) == game.moves.count()


def test_a_running_game_has_no_record_not_even_for_its_players(start_game):
    game = start_game(3)
    play(game, moves=10)
    game.refresh_from_db()
    for client in (Client(), logged_in(user_at(game, 0)), logged_in(game.creator)):
        assert_hidden(client, game)
        # Nor a link to one on its page.
        assert reverse("game_record", args=[game.pk]) not in client.get(game.get_absolute_url()).content.decode()


def test_an_open_or_cancelled_game_has_no_record(make_user):
    creator = make_user()
    waiting = lifecycle.create_game(creator, num_players=3)
    cancelled = lifecycle.create_game(creator, num_players=3)
    lifecycle.cancel_game(cancelled, user=creator)
    for game in (waiting, cancelled):
        assert_hidden(logged_in(creator), game)
        assert_hidden(Client(), game)


def test_a_private_finished_game_is_served_only_to_its_players(finished, make_user):
    game = finished(private=True)
    for index in range(3):
        assert_served(logged_in(user_at(game, index)), game)
    assert_hidden(Client(), game)
    assert_hidden(logged_in(make_user()), game)
    # Someone who followed the invitation link may watch the game, but is not seated in it.
    guest = logged_in(make_user())
    session = guest.session
    session[invitation_session_key(game.pk)] = True
    session.save()
    page = guest.get(game.get_absolute_url())
    assert page.status_code == 200
    assert reverse("game_record", args=[game.pk]) not in page.content.decode()
    assert_hidden(guest, game)


def test_a_private_record_may_not_be_kept_by_shared_caches(finished):
    game = finished(private=True)
    for url in urls(game):
        assert "private" in logged_in(user_at(game, 1)).get(url)["Cache-Control"]


def test_an_unknown_game_answers_as_a_hidden_one():
    for url in (reverse("game_record", args=[987654]), reverse("game_record_api", args=[987654])):
        response = Client().get(url)
        assert response.status_code == 404 and response.json() == NOT_FOUND


def test_the_finished_page_links_to_its_record(finished):
    game = finished()
    page = Client().get(game.get_absolute_url()).content.decode()
    assert f'href="{reverse("game_record", args=[game.pk])}"' in page


def test_the_moves_come_in_pages_that_make_up_the_whole_record(finished):
    game = finished()
    client = Client()
    whole = client.get(reverse("game_record", args=[game.pk])).json()
    url = reverse("game_record_api", args=[game.pk]) + "?limit=40"
    moves, pages = [], 0
    while url:
        page = client.get(url).json()
        assert {**page, "moves": None, "next": None} == {**whole, "moves": None, "next": None}
        assert len(page["moves"]) <= 40
        moves += page["moves"]
        pages += 1
        url = page["next"]
        if url:
            assert url.endswith(f"?after={page['moves'][-1]['version']}&limit=40")
            assert url.startswith("http://testserver/")
    assert moves == whole["moves"]
    assert pages == len(whole["moves"]) // 40 + 1


def test_the_default_page_and_a_cursor_past_the_end(finished):
    game = finished()
    url = reverse("game_record_api", args=[game.pk])
    first = Client().get(url).json()
    assert len(first["moves"]) == min(200, game.moves.count())
    past = Client().get(url, {"after": game.version}).json()
    assert past["moves"] == [] and past["next"] is None


@pytest.mark.parametrize(
    "query",
    [
        {"after": "-1"},
        {"after": "abc"},
        {"after": "1.5"},
        {"after": "99999999999"},
        {"after": "2147483648"},
        {"after": "3\x00"},
        {"after": ""},
        {"limit": "0"},
        {"limit": "1001"},
        {"limit": "ten"},
    ],
)
def test_a_bad_cursor_or_page_size_is_a_clear_400(finished, query):
    game = finished()
    response = Client().get(reverse("game_record_api", args=[game.pk]), query)
    assert response.status_code == 400
    name = next(iter(query))
    assert response.json()["error"].startswith(f'"{name}" must be a whole number from')


def test_records_are_read_only(finished):
    game = finished()
    for url in urls(game):
        assert Client().post(url, {"moves": "[]"}).status_code == 405
    game.refresh_from_db()
    assert game.imported is False and game.moves.exists()


def test_a_page_of_moves_takes_the_same_few_queries_however_long_the_game(finished, django_assert_num_queries):
    game = finished()
    client = Client()
    # The game, its seats, their users, the page of moves.
    with django_assert_num_queries(4):
        client.get(reverse("game_record_api", args=[game.pk]), {"limit": 1})
    with django_assert_num_queries(4):
        client.get(reverse("game_record_api", args=[game.pk]), {"limit": 1000})
    with django_assert_num_queries(4):
        assert client.get(reverse("game_record", args=[game.pk])).status_code == 200


def test_a_deleted_players_name_is_not_in_the_record(finished, password):
    game = finished()
    user = user_at(game, 1)
    username = user.username
    logged_in(user).post(reverse("delete_account"), {"password": password, "confirm": "on"})
    user.refresh_from_db()
    assert user.deleted_at is not None
    record = json.loads(Client().get(reverse("game_record", args=[game.pk])).content)
    assert record["players"][1]["name"] == "deleted player"
    assert username not in json.dumps(record)


def test_a_game_whose_stored_moves_hold_junk_still_exports_without_it(finished):
    """Moves stored before they were cleaned (the engine ignored the extra fields, and the site
    stored the move as posted): the record shows each move as its shape, so a field holding a
    number beyond 64 bits or a list nested 300 deep no longer makes the record a 500 for ever."""
    from games.models import Move

    game = finished()
    deep = []
    for _ in range(300):
        deep = [deep]
    junk = {"note": 10**20, "deep": deep}
    rows = {row.move["type"]: row for row in Move.objects.filter(game=game).order_by("version")}
    spoiled = {}
    for kind in ("court", "place", "special", "bid"):
        row = rows[kind]
        spoiled[row.version] = row.move
        extra = {"plan": [{**row.move["plan"][0], **junk}]} if "plan" in row.move else {}
        Move.objects.filter(pk=row.pk).update(move={**row.move, **junk, **extra})
    for url in urls(game):
        response = Client().get(url)
        assert response.status_code == 200, url
        moves = {move["version"]: move["move"] for move in response.json()["moves"]}
        assert {version: moves[version] for version in spoiled} == spoiled
