"""The lists of finished games kept in the cache (games/reading/list_cache.py): the archive's page
and JSON and the lobby's recently finished games are read from it while nothing changed, show a
game that finishes at once, and never give one reader's list (private games, language, time
zone) to another."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import Game, Seat
from tests.support.archive_games import finished_game
from tests.support.helpers import logged_in, play

pytestmark = pytest.mark.django_db

LISTS = ("archive", "archive_json", "lobby")


def game_ids(response):
    """The finished games a list shows, from its body (a cached answer has no context)."""
    if response["Content-Type"].startswith("application/json"):
        return [game["id"] for game in response.json()["games"]]
    text = response.content.decode()
    section = text[text.index('id="finished-games"'):] if 'id="finished-games"' in text else text
    section = section[section.index('id="archive"'):] if 'id="archive"' in section else section
    ids = []
    for part in section.split('href="/games/')[1:]:
        number = int(part.split("/", 1)[0])
        if number not in ids:
            ids.append(number)
    return ids


def main_part(response):
    """What the page shows below the site's header (whose CSRF token changes every request)."""
    return response.content.decode().split("<main", 1)[-1]


def queries(client, name, query=None):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(reverse(name), query or {})
    assert response.status_code == 200
    return response, len(captured)


def test_a_second_request_is_read_from_the_cache(make_user):
    anna, ben = make_user("anna"), make_user("ben")
    finished_game([anna, ben])
    for client in (Client(), logged_in(anna)):
        for name in ("archive", "archive_json"):
            first, asked = queries(client, name, {"player": "anna"})
            second, asked_again = queries(client, name, {"player": "anna"})
            assert main_part(second) == main_part(first)
            # No filter's player, no keys, no games, no seats: at most the session and its user.
            assert asked_again <= 2 < asked


@pytest.mark.parametrize("how", ["moves", "sweep"])
def test_a_game_that_finishes_is_listed_at_once(client, make_user, start_game, how):
    from games import deadlines

    anna, ben = make_user("anna"), make_user("ben")
    older = finished_game([anna, ben])
    for name in LISTS:
        assert game_ids(client.get(reverse(name))) == [older.pk]
        assert game_ids(client.get(reverse(name))) == [older.pk]
    game = start_game(2, short_game=True, veto=False)
    if how == "moves":
        play(game)
    else:
        # The sweep stores the games it plays with statements of its own, not Game.save().
        Seat.objects.filter(game=game).update(autopilot=True)
        Game.objects.filter(pk=game.pk).update(deadline=game.deadline - timedelta(days=2))
        assert deadlines.sweep() == 1
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    for name in LISTS:
        assert game_ids(client.get(reverse(name))) == [game.pk, older.pk], name


def test_a_private_game_never_reaches_a_reader_who_did_not_sit_in_it(make_user):
    anna, ben, carla = make_user("anna"), make_user("ben"), make_user("carla")
    public = finished_game([anna, carla])
    private = finished_game([anna, ben], private=True)
    queries_asked = [{}, {"player": "anna"}, {"player": "anna", "against": "ben"}]
    # The players of the private game ask first, so that their lists are in the cache.
    for player in (anna, ben):
        browser = logged_in(player)
        for name in LISTS:
            for query in queries_asked if name != "lobby" else [{}]:
                for _ in range(2):
                    assert private.pk in game_ids(browser.get(reverse(name), query)), (player, name, query)
    for browser in (Client(), logged_in(carla)):
        for name in LISTS:
            for query in queries_asked if name != "lobby" else [{}]:
                for _ in range(2):
                    shown = game_ids(browser.get(reverse(name), query))
                    assert private.pk not in shown, (name, query)
                    assert public.pk in shown or query.get("against"), (name, query)


def test_each_language_gets_its_own_list(client, make_user):
    finished_game([make_user("anna"), make_user("ben")])
    for name, words in (("archive", "Archive of finished games"), ("lobby", "Recently finished")):
        french = client.get(reverse(name), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
        english = client.get(reverse(name), HTTP_ACCEPT_LANGUAGE="en").content.decode()
        italian = client.get(reverse(name), HTTP_ACCEPT_LANGUAGE="it").content.decode()
        assert words in english
        assert words not in french and words not in italian
        assert "Archives des parties terminées" in french or name == "lobby"
        assert "Archivio delle partite finite" in italian or name == "lobby"
        assert client.get(reverse(name), HTTP_ACCEPT_LANGUAGE="en").content.decode().count(words) == english.count(
            words
        )


def test_each_time_zone_gets_its_own_dates_and_days(make_user):
    anna, ben = make_user("anna"), make_user("ben")
    game = finished_game([anna, ben], when=datetime(2025, 1, 10, 20, tzinfo=UTC))
    browser = logged_in(anna)
    one_day = {"since": "2025-01-11", "until": "2025-01-11"}
    for name in ("archive", "lobby"):
        assert "10 Jan 2025" in browser.get(reverse(name)).content.decode()
    assert game_ids(browser.get(reverse("archive"), one_day)) == []
    assert game_ids(browser.get(reverse("archive_json"), one_day)) == []
    # Only the zone changes (no generation raised by a name): in Auckland it finished on the 11th.
    anna.time_zone = "Pacific/Auckland"
    anna.save(update_fields=["time_zone"])
    for name in ("archive", "lobby"):
        text = browser.get(reverse(name)).content.decode()
        assert "11 Jan 2025" in text and "10 Jan 2025" not in text
    assert game_ids(browser.get(reverse("archive"), one_day)) == [game.pk]
    assert game_ids(browser.get(reverse("archive_json"), one_day)) == [game.pk]


def test_a_deleted_account_is_shown_deleted_at_once(client, make_user):
    from accounts import deletion

    anna, ben = make_user("anna"), make_user("bernardo")
    game = finished_game([anna, ben])
    for name in LISTS:
        assert "bernardo" in client.get(reverse(name)).content.decode()
    deletion.delete_account(ben)
    for name in LISTS:
        text = client.get(reverse(name)).content.decode()
        assert "bernardo" not in text and game_ids(client.get(reverse(name))) == [game.pk], name
    assert client.get(reverse("archive"), {"player": "bernardo"}).status_code == 400


def test_a_finished_game_deleted_or_made_private_leaves_the_lists(client, make_user):
    anna, ben = make_user("anna"), make_user("ben")
    kept, hidden, deleted = (finished_game([anna, ben]) for _ in range(3))
    for name in LISTS:
        assert game_ids(client.get(reverse(name))) == [deleted.pk, hidden.pk, kept.pk]
    deleted.delete()
    hidden.private = True
    hidden.save()
    hidden.results.update(private=True)
    for name in LISTS:
        assert game_ids(client.get(reverse(name))) == [kept.pk], name
