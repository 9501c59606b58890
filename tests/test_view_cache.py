"""The play partial is rendered once per (game, version, reader) and served from the cache
(games/reading/view_cache.py): what each reader gets must stay exactly his own and current."""

import json
import random
import re
from datetime import date, timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.backends.cache import SessionStore
from django.test import Client
from django.urls import reverse

from accounts import vacations
from games.engine import random_move
from games.models import Seat
from games.play import lifecycle
from games.reading import selectors, view_cache
from games.web import views
from tests.support.helpers import HTMX, logged_in, play, state_of, user_at

pytestmark = pytest.mark.django_db


def play_partial(client, game):
    response = client.get(reverse("game_partial", args=[game.pk, "play"]), **HTMX)
    return response.status_code, response.content.decode()


def play_html(client, game):
    status, html = play_partial(client, game)
    assert status == 200
    return html


def you_at(html):
    """The seats marked "(you)" on the board."""
    return [int(seat) for seat, block in re.findall(r'data-seat="(\d+)">(.*?)</div>', html, re.S) if "(you)" in block]


def tokens(html):
    return re.findall(r'name="csrfmiddlewaretoken" value="([^"]*)"', html)


def left(html):
    return {int(seconds) for seconds in re.findall(r'class="countdown" datetime="[^"]+" data-left="(\d+)"', html)}


def test_every_spectator_gets_the_one_rendered_view_of_a_version(clock, start_game, make_user, renders):
    game = start_game(3)
    anonymous = play_html(Client(), game)
    stranger = play_html(logged_in(make_user()), game)
    again = play_html(Client(), game)
    assert len(renders) == 1 and ":spectator:" in renders[0]
    assert anonymous == stranger == again
    assert you_at(anonymous) == [] and tokens(anonymous) == [] and 'data-your-move="0"' in anonymous


def test_two_seats_and_a_spectator_of_one_version_each_get_their_own_view(clock, start_game, renders):
    game = start_game(3)
    acting = game.to_act[0]
    other = next(index for index in range(3) if index not in game.to_act)
    views = {}
    for reader in (acting, other, None, acting, other, None):
        client = Client() if reader is None else logged_in(user_at(game, reader))
        # Each request gets a fresh mask of its reader's CSRF secret; the rest is the same.
        html = without_tokens(play_html(client, game))
        assert views.setdefault(reader, html) == html
    # Three renders for three readers; the second round came from the cache.
    assert len(renders) == 3 and len(set(renders)) == 3
    assert you_at(views[acting]) == [acting] and you_at(views[other]) == [other] and you_at(views[None]) == []
    assert 'data-your-move="1"' in views[acting] and 'data-your-move="0"' in views[other]
    # A seat's own hand is shown to that seat only.
    hand = 'aria-label="Your power cards"'
    assert hand in views[acting] and hand in views[other] and hand not in views[None]
    assert 'name="expected_version"' in views[acting] and 'name="expected_version"' not in views[None]


def test_a_cached_seat_view_is_not_served_to_the_next_player_of_that_seat_index(start_game, make_user, renders):
    game = start_game(3)
    seat = game.seats.get(index=0)
    before = play_html(logged_in(seat.user), game)
    # However the seat came to have another player, the key names the reader's user.
    newcomer = make_user()
    Seat.objects.filter(pk=seat.pk).update(user=newcomer)
    after = play_html(logged_in(newcomer), game)
    assert len(renders) == 2 and renders[0] != renders[1]
    assert newcomer.username in after and newcomer.username not in before


def test_a_private_game_is_not_found_for_a_stranger_before_any_cache_lookup(start_game, make_user, monkeypatch):
    game = start_game(3, private=True)
    player = play_html(logged_in(user_at(game, 0)), game)
    spectator_key_lookups = []
    get = view_cache.get
    monkeypatch.setattr(view_cache, "get", lambda key: spectator_key_lookups.append(key) or get(key))
    for client in (Client(), logged_in(make_user())):
        status, html = play_partial(client, game)
        assert status == 404 and "data-version" not in html
    assert spectator_key_lookups == []
    # Whoever followed the invitation link reads the spectator's view.
    invited = Client()
    invited.get(reverse("invitation", args=[game.pk, game.invite_token]))
    html = play_html(invited, game)
    assert you_at(html) == [] and you_at(player) == [0]
    assert len(spectator_key_lookups) == 1


def test_after_a_move_no_reader_gets_the_view_of_the_version_before(start_game):
    game = start_game(3)
    readers = {index: logged_in(user_at(game, index)) for index in range(3)}
    readers[None] = Client()
    for client in readers.values():
        assert f'data-version="{game.version}"' in play_html(client, game)
    before = game.version
    play(game, moves=1)
    game.refresh_from_db()
    assert game.version > before
    for client in readers.values():
        html = play_html(client, game)
        assert f'data-version="{game.version}"' in html and f'data-version="{before}"' not in html


def test_the_clock_of_a_cached_view_counts_from_its_deadline_at_every_request(clock, start_game, renders):
    game = start_game(3)
    first = play_html(Client(), game)
    assert left(first) == {86400} and "1 d 0 h left" in first
    clock.now += timedelta(hours=2, minutes=30, seconds=5)
    later = play_html(Client(), game)
    assert len(renders) == 1
    assert left(later) == {86400 - 9005} and "21 h 29 min left" in later
    assert "<!--" not in later.split('id="board"')[0]
    clock.now += timedelta(days=2)
    assert left(play_html(Client(), game)) == {0}


def test_the_deadline_is_written_in_each_readers_time_zone(clock, start_game, make_user):
    game = start_game(3)
    tokyo = make_user()
    tokyo.time_zone = "Asia/Tokyo"
    tokyo.save(update_fields=["time_zone"])
    assert "Deadline: Mon 2 Mar, 12:00 UTC" in play_html(Client(), game)
    assert "Deadline: Mon 2 Mar, 21:00 JST" in play_html(logged_in(tokyo), game)
    assert "Deadline: Mon 2 Mar, 12:00 UTC" in play_html(Client(), game)


def test_a_seat_answers_its_cached_view_with_a_csrf_token_of_its_own(start_game, renders):
    game = start_game(3)
    seat = game.to_act[0]
    user = user_at(game, seat)
    first = Client(enforce_csrf_checks=True)
    first.force_login(user)
    play_html(first, game)
    # The second reader of this seat's view (another tab, another browser) gets it from the cache.
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    html = play_html(browser, game)
    assert len(renders) == 1
    token = tokens(html)[0]
    assert set(tokens(html)) == {token} and "csrf-token-of-the-reader" not in html
    move = random_move(state_of(game), seat, random.Random(1))
    response = browser.post(
        reverse("move", args=[game.pk]),
        {"move": json.dumps(move), "expected_version": game.version, "csrfmiddlewaretoken": token},
        **HTMX,
    )
    assert response.status_code == 200
    game.refresh_from_db()
    assert f'data-version="{game.version}"' in response.content.decode()


def test_what_changes_without_a_new_version_shows_at_once(clock, start_game):
    game = start_game(3)
    html = play_html(Client(), game)
    assert "badge autopilot" not in html and "badge vacation" not in html
    Seat.objects.filter(game=game, index=1).update(autopilot=True)
    assert "badge autopilot" in play_html(Client(), game)
    vacations.add(user_at(game, 2), date(2026, 3, 1), date(2026, 3, 3), now=clock.now)
    html = play_html(Client(), game)
    assert "on vacation until 3 March" in html
    game.refresh_from_db()
    assert f'data-version="{game.version}"' in html


def test_an_open_game_is_rendered_for_each_reader(make_user, renders):
    creator, other = make_user(), make_user()
    game = lifecycle.create_game(creator, num_players=3)
    assert "Cancel the game" in play_html(logged_in(creator), game)
    html = play_html(logged_in(other), game)
    assert "Cancel the game" not in html and ">Join</button>" in html
    assert renders == []


def test_a_finished_game_is_served_from_the_cache_too(start_game, renders):
    game = start_game(2)
    play(game)
    game.refresh_from_db()
    first = play_html(Client(), game)
    assert "The game is over" in first and play_html(Client(), game) == first
    assert len(renders) == 1


def test_a_cached_play_partial_takes_a_few_queries_however_long_the_game(
    start_game, django_assert_max_num_queries
):
    game = start_game(3)
    play(game, moves=40)
    play_html(Client(), game)
    player = logged_in(user_at(game, 0))
    play_html(player, game)
    # The session (the logged-in reader's), the game, its seats with their users, the mutes.
    with django_assert_max_num_queries(4):
        play_html(Client(), game)
    with django_assert_max_num_queries(6):
        play_html(player, game)


def without_tokens(html):
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)


def test_the_cached_view_is_the_page_that_the_reader_would_have_had_rendered_for_him(clock, start_game, rf):
    """Rendered without the request (so no per-user context can reach a shared entry), the
    cached body is still exactly the partial rendered with it."""
    game = start_game(3)
    play(game, moves=5)
    game.refresh_from_db()
    for reader in (game.to_act[0], None):
        user = user_at(game, reader) if reader is not None else None
        client = logged_in(user) if user else Client()
        # The first look marks the others' moves as new and moves the seat's seen_version on;
        # the look after it (cached under the new seen_version) is what a render now gives.
        play_html(client, game)
        cached = play_html(client, game)
        request = rf.get(reverse("game_partial", args=[game.pk, "play"]), **HTMX)
        request.user = user or AnonymousUser()
        request.session = SessionStore()
        context = selectors.game_context(request, selectors.viewable_game(request, game.pk))
        direct = views._render_partial(request, "play", context).content.decode()
        assert without_tokens(cached) == without_tokens(direct)


def test_a_seats_cached_view_marks_the_others_moves_as_new_only_until_its_player_has_looked(clock, start_game):
    game = start_game(3)
    play(game, moves=5)
    game.refresh_from_db()
    reader = game.to_act[0]
    client = logged_in(user_at(game, reader))
    first = play_html(client, game)
    assert re.search(r'<li data-round="\d+" class="[^"]*\bnew\b', first)
    for _ in range(2):
        again = play_html(client, game)
        assert not re.search(r'<li data-round="\d+" class="[^"]*\bnew\b', again)
    assert Seat.objects.get(game=game, index=reader).seen_version == game.version


def test_a_view_whose_game_moved_on_while_it_was_read_is_not_kept_under_the_older_version(start_game, rf):
    """The game's row is read without its state, which a render reads after it: a move between
    the two made a view of the newer state, kept under the older version's key (and served to
    every spectator of that version)."""
    from django.core.cache import cache

    from games.reading import page_game, play_view

    game = start_game(3)
    play(game, moves=3)
    game.refresh_from_db()
    request = rf.get(reverse("game_partial", args=[game.pk, "play"]), **HTMX)
    request.user, request.session = AnonymousUser(), SessionStore()
    read = page_game.play_game(request, game.pk)  # the row of this version, without its state
    assert read.get_deferred_fields()
    play(game, moves=1)  # another player's move, between the row and its state
    key, _spans = play_view.play_key(request, read)
    body, _deadline = play_view.cached_play(request, read)
    assert body  # the reader still gets a view
    assert cache.get(key) is None
    # Without a move between them the view is kept, as always.
    game.refresh_from_db()
    read = page_game.play_game(request, game.pk)
    entry = play_view.cached_play(request, read)
    assert cache.get(play_view.play_key(request, read)[0]) == entry
    assert f'data-version="{game.version}"' in entry[0]


def test_a_render_reads_no_move_newer_than_the_game_it_renders(start_game, rf):
    """A move committed after the game's row was read (its state read with it) and before the
    log's moves: the view kept under the older version had the newer move in its log, and the
    page's turn report (kept with the page's frame) too."""
    from games.mail.turn_report import since_last_move
    from games.reading import page_game

    game = start_game(3)
    play(game, moves=4)
    game.refresh_from_db()
    request = rf.get(reverse("game_partial", args=[game.pk, "play"]), **HTMX)
    request.user, request.session = AnonymousUser(), SessionStore()
    read = page_game.play_game(request, game.pk, large=True)
    seats = list(read.seats.all())
    waiting = next(seat.index for seat in seats if seat.index not in read.to_act)
    before = since_last_move(read, waiting, seats)
    play(game, moves=1)
    assert [version for *_rest, version in page_game.log_moves(read, 0)][-1] == read.version
    assert since_last_move(read, waiting, seats) == before


@pytest.mark.parametrize("masked_cookie", [False, True], ids=["cookie", "cookie-of-django-before-4"])
@pytest.mark.parametrize("where", ["partial", "page"])
def test_a_seat_holding_its_csrf_cookie_posts_with_the_token_of_its_cached_view(start_game, renders, where,
                                                                               masked_cookie):
    # The clients above hold no CSRF cookie when they fetch, so get_token makes a new secret: here
    # the browser holds the cookie of its earlier pages, as it does from its second page on.
    from django.conf import settings
    from django.middleware.csrf import _get_new_csrf_string, _mask_cipher_secret

    game = start_game(3)
    seat = game.to_act[0]
    user = user_at(game, seat)
    url, htmx = (reverse("game_partial", args=[game.pk, "play"]), HTMX) if where == "partial" else \
        (reverse("game", args=[game.pk]), {})
    first = Client(enforce_csrf_checks=True)
    first.force_login(user)
    assert first.get(url, **htmx).status_code == 200
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    secret = _get_new_csrf_string()
    browser.cookies[settings.CSRF_COOKIE_NAME] = _mask_cipher_secret(secret) if masked_cookie else secret
    response = browser.get(url, **htmx)
    assert response.status_code == 200 and len(renders) == 1  # the seat's view came from the cache
    # Its cookie renewed, as get_token asks, with the same secret (unmasked); the answer varies by it.
    assert response.cookies[settings.CSRF_COOKIE_NAME].value == secret and "Cookie" in response["Vary"]
    html = response.content.decode()
    # The play partial's own token: on the page, base.html's log-out form comes first, with get_token's.
    token = tokens(html[html.index('<div id="play"'):])[0]
    move = random_move(state_of(game), seat, random.Random(1))
    posted = {"move": json.dumps(move), "expected_version": game.version}
    other = _mask_cipher_secret(_get_new_csrf_string())
    refused = browser.post(reverse("move", args=[game.pk]), {**posted, "csrfmiddlewaretoken": other}, **HTMX)
    assert refused.status_code == 403  # the checks are on: a token of another secret is refused
    answer = browser.post(reverse("move", args=[game.pk]), {**posted, "csrfmiddlewaretoken": token}, **HTMX)
    assert answer.status_code == 200
    game.refresh_from_db()
    assert f'data-version="{game.version}"' in answer.content.decode()
