"""The lobby's "my games" rows kept per game version and reader, and the profile's finished games
kept per finished games' generation and reader (games/reading/list_cache.py): read from the cache
while nothing changed, changed at once when what they show changes, never one reader's for
another."""

import re
from datetime import timedelta

import pytest
from django.apps import apps
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.infra import finished_generation
from games.models import Game
from tests.support.archive_games import finished_game
from tests.support.helpers import logged_in, play, user_at

pytestmark = pytest.mark.django_db


def asked(client, path):
    """The answer to a GET of `path` and the statements it made."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200
    return response, [query["sql"] for query in captured.captured_queries]


def rows_read(statements):
    """The statements that read the games of a list's rows (listing.rows_of: their standings)."""
    return [sql for sql in statements if "standings" in sql]


def section(response, name):
    """The section `name` of a page (`id="name"`), up to its end."""
    text = response.content.decode()
    part = text[text.index(f'<section id="{name}"'):]
    return part[: part.index("</section>")]


def my_row(response, game):
    """The row of `game` in the lobby's "my games"."""
    part = section(response, "my-games")
    part = part[part.rindex("<tr", 0, part.index(f'href="{game.get_absolute_url()}"')):]
    return part[: part.index("</tr>")]


def test_my_games_rows_come_from_the_cache_and_change_with_the_game(start_game):
    game = start_game(3, seed=3)
    mover = user_at(game, game.to_act[0])
    browser = logged_in(mover)
    first, first_queries = asked(browser, reverse("lobby"))
    again, again_queries = asked(browser, reverse("lobby"))
    # The games' rows are not read again (nor their seats': the same count of statements less).
    assert len(rows_read(first_queries)) == 1 and rows_read(again_queries) == []
    assert len(again_queries) < len(first_queries)
    assert my_row(again, game) == my_row(first, game)
    assert "Your move" in my_row(first, game)
    play(game, moves=1)
    game.refresh_from_db()
    after = browser.get(reverse("lobby"))
    if mover.pk not in [user_at(game, seat).pk for seat in game.to_act]:
        assert "Your move" not in my_row(after, game)
    assert my_row(after, game) != my_row(first, game)


def test_one_readers_row_never_reaches_another(start_game):
    game = start_game(3, seed=3)
    players = [user_at(game, seat) for seat in range(3)]
    mover = user_at(game, game.to_act[0])
    browsers = {player.pk: logged_in(player) for player in players}
    for _ in range(2):
        for player in players:
            row = my_row(browsers[player.pk].get(reverse("lobby")), game)
            assert ("Your move" in row) == (player == mover), player
            assert (f"{mover.username} to move" in row) == (player != mover), player
            assert 'class="your-turn"' in row if player == mover else 'class="your-turn"' not in row


def test_a_renamed_player_is_shown_renamed_at_once(start_game):
    game = start_game(3)
    me, other = user_at(game, 0), user_at(game, 1)
    browser = logged_in(me)
    assert other.username in my_row(browser.get(reverse("lobby")), game)
    other.username = "renamed-player"
    other.save(update_fields=["username"])
    assert "renamed-player" in my_row(browser.get(reverse("lobby")), game)


def profile(client, user):
    return client.get(reverse("profile", args=[user.username]))


def finished_ids(response):
    part = section(response, "finished")
    return sorted({int(piece.split("/", 1)[0]) for piece in part.split('href="/games/')[1:]})


def test_the_profiles_finished_games_come_from_the_cache_and_show_a_game_that_finishes(make_user, start_game):
    anna, ben = make_user("anna"), make_user("ben")
    older = finished_game([anna, ben])
    client = Client()
    first, first_queries = asked(client, reverse("profile", args=["anna"]))
    again, again_queries = asked(client, reverse("profile", args=["anna"]))
    assert section(again, "finished") == section(first, "finished")
    # Neither the page's keys nor its games, seats and rating changes are read again.
    assert len(again_queries) <= len(first_queries) - 4 and rows_read(again_queries) == []
    assert finished_ids(again) == [older.pk]
    game = start_game(2, short_game=True, veto=False)
    seat = game.seats.get(index=0)
    seat.user = anna
    seat.save()
    play(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert finished_ids(profile(client, anna)) == sorted([older.pk, game.pk])


def test_a_private_game_on_a_profile_never_reaches_a_reader_who_did_not_sit_in_it(make_user):
    anna, ben, carla = make_user("anna"), make_user("ben"), make_user("carla")
    public = finished_game([anna, carla])
    private = finished_game([anna, ben], private=True)
    for player in (anna, ben):
        browser = logged_in(player)
        for _ in range(2):
            assert private.pk in finished_ids(profile(browser, anna))
    for browser in (Client(), logged_in(carla)):
        for _ in range(2):
            shown = finished_ids(profile(browser, anna))
            assert private.pk not in shown and public.pk in shown


def test_each_language_and_time_zone_gets_its_own_profile_list(make_user):
    from datetime import UTC, datetime

    anna, ben = make_user("anna"), make_user("ben")
    # 23:30 UTC: the 2nd in Rome, still the 1st in UTC.
    finished_game([anna, ben], when=datetime(2025, 3, 1, 23, 30, tzinfo=UTC))
    client = Client()
    english = section(client.get(reverse("profile", args=["anna"]), HTTP_ACCEPT_LANGUAGE="en"), "finished")
    french = section(client.get(reverse("profile", args=["anna"]), HTTP_ACCEPT_LANGUAGE="fr"), "finished")
    assert "Finished games" in english and "Finished games" not in french
    anna.time_zone, ben.time_zone = "UTC", "Europe/Rome"
    anna.save(update_fields=["time_zone"])
    ben.save(update_fields=["time_zone"])
    days = [section(profile(logged_in(reader), anna), "finished") for reader in (anna, ben)]
    assert "1 Mar 2025" in days[0] and "2 Mar 2025" in days[1]


def test_rebuilding_the_ratings_retires_the_kept_profiles(make_user):
    from ratings.rating import replace_all

    finished_game([make_user("anna"), make_user("ben")], rated=True)
    before = finished_generation.current()
    replace_all(apps)
    assert finished_generation.current() != before


def test_a_deadline_shown_is_counted_on_each_request(start_game, monkeypatch):
    """The row is kept, its countdown is not: it says the time left now."""
    from django.utils import timezone

    game = start_game(3)
    browser = logged_in(user_at(game, 0))
    first = my_row(browser.get(reverse("lobby")), game)
    later = timezone.now() + timedelta(hours=5)
    monkeypatch.setattr(timezone, "now", lambda: later)
    second = my_row(browser.get(reverse("lobby")), game)
    assert first.split("data-left=")[1] != second.split("data-left=")[1]


def open_row(response, game):
    """The row of `game` in the lobby's open games, or None when it is not listed."""
    part = section(response, "open-games")
    link = f'href="{game.get_absolute_url()}"'
    if link not in part:
        return None
    part = part[part.rindex("<tr", 0, part.index(link)):]
    return part[: part.index("</tr>")]


def unmasked(row):
    """A row with its join form's token left out."""
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", row)


def test_open_games_rows_come_from_the_cache_and_change_when_a_player_joins(make_user):
    from games.play import lifecycle

    anna, ben, carla = make_user("anna"), make_user("ben"), make_user("carla")
    game = lifecycle.create_game(anna, num_players=4)
    browser = logged_in(ben)
    first, first_queries = asked(browser, reverse("lobby"))
    again, again_queries = asked(browser, reverse("lobby"))
    # The open game's row is not read again (its game and its seats: two statements fewer).
    assert len(rows_read(first_queries)) == 1 and rows_read(again_queries) == []
    assert len(again_queries) <= len(first_queries) - 2
    # The same row but for the join form's token, masked afresh on each page.
    assert unmasked(open_row(again, game)) == unmasked(open_row(first, game))
    assert "<td>1 / 4</td>" in open_row(first, game) and "carla" not in open_row(first, game)
    lifecycle.join_game(game, user=carla)
    after = open_row(browser.get(reverse("lobby")), game)
    assert "<td>2 / 4</td>" in after and "carla" in after
    # One who sits in it has it in their own games, not among the open ones.
    assert open_row(logged_in(carla).get(reverse("lobby")), game) is None


def test_one_readers_open_games_never_reach_another(make_user, settings):
    from django.middleware.csrf import _unmask_cipher_token

    from accounts import friends
    from games.play import lifecycle

    anna, ben, carla, dora = make_user("anna"), make_user("ben"), make_user("carla"), make_user("dora")
    game = lifecycle.create_game(anna, num_players=3)
    friends.block(dora, anna)
    readers = {"ben": logged_in(ben), "carla": logged_in(carla), "dora": logged_in(dora), "anna": logged_in(anna)}
    readers["carla"].cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    visitor = Client()
    for _ in range(2):
        for name, browser in readers.items():
            row = open_row(browser.get(reverse("lobby")), game)
            if name in ("dora", "anna"):
                # Dora blocks its creator; Anna sits in it.
                assert row is None, name
                continue
            assert ("Join" in row) == (name == "ben") and ("Rejoindre" in row) == (name == "carla"), name
            assert ("9 rounds" in row) == (name == "ben") and ("9 tours" in row) == (name == "carla"), name
            # The join form carries this reader's own token, never one kept from another's page.
            token = row.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
            assert _unmask_cipher_token(token) == browser.cookies[settings.CSRF_COOKIE_NAME].value, name
        row = open_row(visitor.get(reverse("lobby")), game)
        assert row is not None and "<form" not in row and "csrfmiddlewaretoken" not in row


def test_my_games_follow_a_change_of_whose_move_it_is_that_raised_no_version(start_game):
    """The moves to act are read as text with each request: a statement that changed them
    without raising the game's version (maintenance, a test) still changes the row and the
    order."""
    older = start_game(3)
    game = start_game(3)
    mover = user_at(game, game.to_act[0])
    seat = older.seats.exclude(index__in=older.to_act).first()
    seat.user = mover
    seat.save()
    browser = logged_in(mover)
    first = browser.get(reverse("lobby"))
    assert "Your move" in my_row(first, game) and [row["game"].pk for row in first.context["my_games"]] == [
        game.pk, older.pk,
    ]
    Game.objects.filter(pk=game.pk).update(to_act=[index for index in range(3) if index not in game.to_act][:1])
    Game.objects.filter(pk=older.pk).update(to_act=[seat.index])
    after = browser.get(reverse("lobby"))
    assert "Your move" not in my_row(after, game) and "Your move" in my_row(after, older)
    assert [row["game"].pk for row in after.context["my_games"]] == [older.pk, game.pk]


def test_the_lobby_reads_the_finished_games_generation_once(start_game, make_user, monkeypatch):
    """Its three kept lists (my games, open games, recently finished) share one look-up."""
    from games.play import lifecycle

    game = start_game(3)
    lifecycle.create_game(make_user(), num_players=3)
    finished_game([make_user(), make_user()])
    browser = logged_in(user_at(game, 0))
    read = []
    current = finished_generation.current

    def counted():
        read.append(1)
        return current()

    monkeypatch.setattr(finished_generation, "current", counted)
    response = browser.get(reverse("lobby"))
    assert [len(response.context[name]) for name in ("my_games", "open_games")] == [1, 1]
    assert "finished" in response.content.decode()
    assert len(read) == 1


def test_rows_kept_by_a_caller_that_prepares_them_otherwise_never_reach_the_lobby(start_game, make_user):
    """selectors' lists read without the lobby's `prepare` keep plain rows: the lobby then reads
    its own, composed with their markup, not those."""
    from games.play import lifecycle
    from games.reading import selectors

    game = start_game(3)
    me = user_at(game, 0)
    opened = lifecycle.create_game(make_user(), num_players=3)
    plain_mine = selectors.my_games(me).rows
    plain_open = selectors.open_games(me).rows
    assert "row_html" not in plain_mine[0] and "row_html" not in plain_open[0]
    response = logged_in(me).get(reverse("lobby"))
    assert "row_html" in response.context["my_games"][0] and "row_html" in response.context["open_games"][0]
    assert my_row(response, game) and open_row(response, opened)
