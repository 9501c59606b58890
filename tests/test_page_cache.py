"""A running game's whole page is served around the play partial kept in the view cache
(games/web/views.py `_cached_page`, games/reading/view_cache.py): what each reader gets stays his own (seat,
spectator, language, time zone) and current (version)."""

import json
import random
import re

import pytest
from django.test import Client
from django.urls import reverse

from games.engine import random_move
from tests.support.helpers import HTMX, logged_in, play, state_of, user_at

pytestmark = pytest.mark.django_db


def page(client, game, language="en"):
    client.cookies.load({"django_language": language})
    response = client.get(reverse("game", args=[game.pk]), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def hand(html):
    return sorted(int(card) for card in re.findall(r'data-hand-card="(\d+)"', html))


def test_each_seat_and_the_spectators_get_their_own_page_from_the_cache(clock, start_game, make_user, renders):
    game = start_game(3)
    state = state_of(game)
    readers = {seat: logged_in(user_at(game, seat)) for seat in range(3)}
    readers[None] = Client()
    readers["stranger"] = logged_in(make_user())
    # The first round renders each reader's view (and each seat's once more: its log is no
    # longer new to it, games/reading/view_cache.py); the last round comes from the cache alone.
    for _ in range(2):
        pages = {reader: page(client, game) for reader, client in readers.items()}
    rendered = len(renders)
    pages = {reader: page(client, game) for reader, client in readers.items()}
    assert len(renders) == rendered
    for seat in range(3):
        # data-hand-card marks the cards of the reader's own hand, and no one else's.
        assert hand(pages[seat]) == sorted(state.hands[seat])
    assert hand(pages[None]) == [] and hand(pages["stranger"]) == []
    assert 'aria-label="Your power cards"' not in pages[None] + pages["stranger"]
    # The page's mark and its icon say whose move it is, for each reader.
    acting = game.to_act[0]
    for reader, html in pages.items():
        mine = reader == acting
        assert ('data-your-move="1"' in html) == mine
        assert ("favicon-your-move" in re.search(r'id="favicon" href="([^"]*)"', html).group(1)) == mine


def test_the_spectators_page_names_its_logged_in_reader_but_not_the_other_spectators(start_game, make_user):
    game = start_game(3)
    first, second = make_user(), make_user()
    one, two = page(logged_in(first), game), page(logged_in(second), game)
    assert first.username in one and first.username not in two
    assert second.username in two and second.username not in one


def test_a_new_version_is_a_new_page_for_every_reader(start_game):
    game = start_game(3)
    readers = {seat: logged_in(user_at(game, seat)) for seat in range(3)}
    readers[None] = Client()
    for client in readers.values():
        assert f'data-version="{game.version}"' in page(client, game)
    before = game.version
    state = play(game, moves=1)
    game.refresh_from_db()
    assert game.version > before
    for seat, client in readers.items():
        html = page(client, game)
        assert f'data-version="{game.version}"' in html and f'data-version="{before}"' not in html
        assert hand(html) == (sorted(state.hands[seat]) if seat is not None else [])


def test_the_page_is_in_each_readers_language(start_game):
    game = start_game(3)
    client = logged_in(user_at(game, 0))
    for language, seville, live in (
        ("it", "Siviglia", 'lang="it"'),
        ("en", "Seville", 'lang="en"'),
        ("fr", "Séville", 'lang="fr"'),
        ("it", "Siviglia", 'lang="it"'),
    ):
        html = page(client, game, language)
        assert seville in html and f'<html {live}>' in html
        other = {"it": "Seville", "en": "Siviglia", "fr": "Siviglia"}[language]
        assert other not in html.split('id="play"')[1].split('id="chat"')[0]


def test_the_deadline_is_in_each_readers_time_zone(clock, start_game, make_user):
    game = start_game(3)
    tokyo = make_user()
    tokyo.time_zone = "Asia/Tokyo"
    tokyo.save(update_fields=["time_zone"])
    seat = user_at(game, 1)
    seat.time_zone = "America/New_York"
    seat.save(update_fields=["time_zone"])
    for _ in range(2):
        assert "Mon 2 Mar, 12:00 UTC" in page(Client(), game)
        assert "Mon 2 Mar, 21:00 JST" in page(logged_in(tokyo), game)
        assert "Mon 2 Mar, 07:00 EST" in page(logged_in(seat), game)


def test_a_page_from_the_cache_carries_its_readers_own_csrf_token(start_game, renders):
    game = start_game(3)
    seat = game.to_act[0]
    user = user_at(game, seat)
    for _ in range(3):
        browser = Client(enforce_csrf_checks=True)
        browser.force_login(user)
        html = page(browser, game)
    assert len(renders) == 1  # the second and third browsers got it from the cache
    assert "csrf-token-of-the-reader" not in html
    # The play partial's own token, from the cache: base.html's log-out form comes first, with get_token's.
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]*)"', html[html.index('<div id="play"'):]).group(1)
    move = random_move(state_of(game), seat, random.Random(1))
    response = browser.post(
        reverse("move", args=[game.pk]),
        {"move": json.dumps(move), "expected_version": game.version, "csrfmiddlewaretoken": token},
        **HTMX,
    )
    assert response.status_code == 200 and f'data-version="{game.version + 1}"' in response.content.decode()


def turn_report(html):
    found = re.search(r'<details class="turn-report"( open)?>(.*?)</details>', html, re.S)
    return None if found is None else (bool(found.group(1)), found.group(2))


def test_each_seat_gets_its_own_turn_report_from_the_cache_and_the_spectators_none(start_game, renders):
    """The page's frame (its head with the seat's turn report, games/web/views.py _frame) is kept
    per reader beside the play partial: a seat's report never reaches another seat or a spectator,
    and it opens on the first visit after the others' moves, folded on the visits after."""
    game = start_game(3)
    play(game, moves=7)
    game.refresh_from_db()
    readers = {seat: logged_in(user_at(game, seat)) for seat in range(3)}
    readers[None] = Client()
    readers["stranger"] = Client()
    first = {reader: turn_report(page(client, game)) for reader, client in readers.items()}
    second = {reader: turn_report(page(client, game)) for reader, client in readers.items()}
    rendered = len(renders)
    third = {reader: turn_report(page(client, game)) for reader, client in readers.items()}
    assert len(renders) == rendered  # the third round came from the cache
    assert first[None] is None and second[None] is None and third[None] is None
    assert third["stranger"] is None
    # The seat that moved last has nothing new to be told; the others each their own moves since theirs.
    reported = [seat for seat in range(3) if first[seat] is not None]
    assert len(reported) >= 2
    bodies = {seat: first[seat][1] for seat in reported}
    assert len(set(bodies.values())) == len(reported), "each seat's report tells other moves"
    for seat in range(3):
        if seat in reported:
            assert first[seat] == (True, bodies[seat])
            assert second[seat] == third[seat] == (False, bodies[seat])
        else:
            assert first[seat] is second[seat] is third[seat] is None


def test_the_pages_frame_is_in_each_readers_language(start_game):
    game = start_game(3)
    client = logged_in(user_at(game, 0))
    paused = {
        "en": "Live updates are paused",
        "it": "Gli aggiornamenti in tempo reale sono sospesi",
        "fr": "Les mises à jour en direct sont suspendues",
    }
    for language in ("it", "en", "fr", "it", "fr", "en"):
        html = page(client, game, language)
        assert paused[language] in html
        assert not any(words in html for other, words in paused.items() if other != language)
