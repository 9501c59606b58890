"""A logged-in reader's page (a seat's, or a spectator's in his own time zone) that asks for frames
is sent its own view over its own socket, rendered by the process holding the socket
(games/live/own_views.py): the view its fetch would bring, never another reader's, and only while
the socket's session still holds the user it was opened for; else the bare version, and the page
fetches. Against the site's own channel layer: in memory, or Redis when REDIS_URL is set."""

import json
import random
import re
from importlib import import_module

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.middleware.csrf import _get_new_csrf_string, _unmask_cipher_token
from django.urls import reverse

from accounts.models import User
from games import broadcast
from games.engine import random_move
from games.live import own_views
from games.models import Seat
from games.play import lifecycle, moving
from games.reading import play_view, view_cache
from tests.support.helpers import HTMX, logged_in, state_of, user_at
from tests.support.sockets import frames_page, heard, listen, logged_out_play, move_now, opened, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

# The CSRF cookie a page's browser holds (set by the game page's first load).
SECRET = _get_new_csrf_string()
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture
def rendered(monkeypatch):
    """(user id, what readers_play gave) for every own view asked for, in order."""
    made = []
    real = play_view.readers_play

    def counted(request, game):
        found = real(request, game)
        made.append((request.user.pk, found))
        return found

    monkeypatch.setattr(play_view, "readers_play", counted)
    return made


def cookie(user, csrf=True):
    _name, value = session_cookie(user)
    return (b"cookie", value + (f"; csrftoken={SECRET}".encode() if csrf else b""))


async def reader_page(game, user, csrf=True, language="en"):
    header = await database_sync_to_async(cookie)(user, csrf)
    return await opened(frames_page(game, header, language=language), game.version)


async def seat_page(game, seat, csrf=True):
    return await reader_page(game, await database_sync_to_async(user_at)(game, seat), csrf)


async def waiting_seat(start_game):
    """A started game of three, the seat to act and another seat, waiting."""
    game = await database_sync_to_async(start_game)(3)
    mover = game.to_act[0]
    return game, mover, next(index for index in range(3) if index != mover)


def seen_versions(game):
    return dict(Seat.objects.filter(game=game).values_list("index", "seen_version"))


def fetched(user, game, seen=None):
    """The play partial `user` fetches, with his seat's seen version first put back to `seen` (as
    it stood before a frame's render moved it on: the fetch then finds the same view), its CSRF
    token written out."""
    if seen is not None:
        Seat.objects.filter(game=game, user=user).update(seen_version=seen)
    response = logged_in(user).get(reverse("game_partial", args=[game.pk, "play"]), **HTMX)
    assert response.status_code == 200
    return response.content.decode()


def untokened(body):
    return TOKEN.sub('name="csrfmiddlewaretoken" value="-"', body)


def token_is_the_pages(body):
    """Every form's token is a masking of the CSRF cookie the page's browser holds."""
    tokens = TOKEN.findall(body)
    return bool(tokens) and all(_unmask_cipher_token(token) == SECRET for token in tokens)


async def test_each_seat_gets_its_own_view_the_one_it_would_fetch_the_mover_too(clock, start_game, rendered):
    # The mover's too: his page posts its moves asking for no view in the answer
    # (games/web/views.py `move`, tests/test_move_view_by_socket.py), and gets it here.
    game = await database_sync_to_async(start_game)(3)
    seats = [await seat_page(game, seat) for seat in range(3)]
    users = [await database_sync_to_async(user_at)(game, seat) for seat in range(3)]
    mover = game.to_act[0]
    seen = await database_sync_to_async(seen_versions)(game)
    await database_sync_to_async(move_now)(game, mover)
    views = {}
    for index, socket in enumerate(seats):
        got = await heard(socket)
        assert got["frame"] and got["version"] == game.version
        assert f'data-version="{game.version}"' in got["play"]
        assert token_is_the_pages(got["play"])
        views[index] = got["play"]
        assert await socket.receive_nothing()
    assert sorted(user_id for user_id, _found in rendered) == sorted(user.pk for user in users)
    assert all(found[1] is not None for _user, found in rendered)
    for index, body in views.items():
        own = await database_sync_to_async(fetched)(users[index], game, seen[index])
        assert untokened(body) == untokened(own)
    # Never another seat's, nor the spectators'.
    assert len({untokened(body) for body in views.values()}) == 3
    spectators = await database_sync_to_async(logged_out_play)(game)
    assert all(body != spectators for body in views.values())
    for socket in seats:
        await socket.disconnect()


async def test_a_seats_view_never_reaches_another_seats_a_spectators_or_a_logged_out_socket(
    clock, start_game, make_user
):
    game = await database_sync_to_async(start_game)(3)
    mover = game.to_act[0]
    watched = next(index for index in range(3) if index != mover)
    other = next(index for index in range(3) if index not in (mover, watched))
    watched_page = await seat_page(game, watched)
    other_page = await seat_page(game, other)
    spectator = await opened(frames_page(game), game.version)
    logged_out_fetching = await opened(frames_page(game, frames=False), game.version)
    stranger = await database_sync_to_async(make_user)("stranger")
    logged_in_spectator = await reader_page(game, stranger)
    # What the channel layer carries to the game's group: versions only.
    group = await database_sync_to_async(listen)(broadcast.game_group(game.pk))
    await database_sync_to_async(move_now)(game, mover)
    own = (await heard(watched_page))["play"]
    others = {
        "another seat": await heard(other_page),
        "a spectator": await heard(spectator),
        "a logged-out page": await heard(logged_out_fetching),
        "a logged-in spectator": await heard(logged_in_spectator),
    }
    assert others["a logged-out page"] == {"version": game.version}
    for who, got in others.items():
        assert got["version"] == game.version, who
        assert untokened(got.get("play", "")) != untokened(own), who
    spectators = await database_sync_to_async(logged_out_play)(game)
    assert others["a spectator"]["play"] == spectators
    assert others["a logged-in spectator"]["play"] == spectators
    assert await database_sync_to_async(group)() == [{"type": "game.version", "version": game.version}]
    for socket in (watched_page, other_page, spectator, logged_out_fetching, logged_in_spectator):
        assert await socket.receive_nothing()
        await socket.disconnect()


def end_session(header, to=None):
    """End the session of the cookie `header` (logged out), or, with `to`, make it `to`'s (the
    browser logged in as another)."""
    key = re.search(rb"sessionid=([a-z0-9]+)", header[1]).group(1).decode()
    store = import_module(settings.SESSION_ENGINE).SessionStore(key)
    if to is None:
        store.delete()
        return
    store["_auth_user_id"] = str(to.pk)
    store["_auth_user_hash"] = to.get_session_auth_hash()
    store["_auth_user_backend"] = settings.AUTHENTICATION_BACKENDS[0]
    store.save()


@pytest.mark.parametrize("ending", ["logged out", "another user"])
async def test_a_socket_whose_session_ended_or_changed_hands_gets_the_bare_version(
    clock, start_game, make_user, ending, rendered
):
    game, mover, seat = await waiting_seat(start_game)
    user = await database_sync_to_async(user_at)(game, seat)
    header = await database_sync_to_async(cookie)(user)
    socket = await opened(frames_page(game, header), game.version)
    someone = await database_sync_to_async(make_user)("someone") if ending == "another user" else None
    await database_sync_to_async(end_session)(header, someone)
    await database_sync_to_async(move_now)(game, mover)
    assert await heard(socket) == {"version": game.version}
    # Nothing was even looked up for whoever holds the session now.
    assert rendered == []
    await socket.disconnect()


def change_password(user):
    user.set_password("another one entirely")
    user.save()


def deactivate(user):
    User.objects.filter(pk=user.pk).update(is_active=False)


@pytest.mark.parametrize("change", [change_password, deactivate], ids=["password changed", "deactivated"])
async def test_a_socket_whose_player_changed_his_password_or_was_deactivated_gets_the_bare_version(
    clock, start_game, change, caplog
):
    """The reader is read with the game's seats (accounts/backends.py `users_read_along`), and Django
    checks the session against that row as against its own SELECT's."""
    game, mover, seat = await waiting_seat(start_game)
    socket = await seat_page(game, seat)
    # Framed while the session holds him, as it was made.
    await database_sync_to_async(move_now)(game, mover)
    got = await heard(socket)
    assert got["frame"] and got["version"] == game.version
    await database_sync_to_async(change)(await database_sync_to_async(user_at)(game, seat))
    await database_sync_to_async(move_now)(game)
    assert await heard(socket) == {"version": game.version}
    # Refused, not broken: nothing failed on the way.
    assert "could not be" not in caplog.text
    await socket.disconnect()


def test_a_seats_frame_reads_its_reader_with_the_games_seats_in_three_round_trips(start_game):
    """The session, the game with its seats and their users (the reader among them), the log's moves;
    the seen mark after the frame is sent."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game = start_game(3)
    mover = game.to_act[0]
    seat = next(index for index in range(3) if index != mover)
    move_now(game, mover)
    user = user_at(game, seat)
    _name, value = cookie(user)
    scope = {"type": "websocket", "path": f"/ws/games/{game.pk}/", "query_string": b"",
             "headers": [(b"host", b"testserver"), (b"cookie", value)]}
    with CaptureQueriesContext(connection) as queries:
        made = own_views.make_frame(scope, user.pk, "en", game.pk)
    assert made["frame"] and made["version"] == game.version
    assert [query["sql"].split('"')[1] for query in queries] == ["games_game", "games_move"], queries.captured_queries
    assert made["seen"] == (Seat.objects.get(game=game, index=seat).pk, game.version)


async def test_a_seat_page_without_the_csrf_cookie_gets_the_bare_version(clock, start_game):
    """A token minted by the socket's process would be one the browser never gets: its forms
    would fail. The page fetches its view, and the fetch sets the cookie."""
    game, mover, seat = await waiting_seat(start_game)
    socket = await seat_page(game, seat, csrf=False)
    await database_sync_to_async(move_now)(game, mover)
    assert await heard(socket) == {"version": game.version}
    await socket.disconnect()


async def test_two_pages_of_one_player_each_get_his_view_and_his_other_games_nothing(clock, start_game):
    game, mover, seat = await waiting_seat(start_game)
    user = await database_sync_to_async(user_at)(game, seat)
    tabs = [await reader_page(game, user), await reader_page(game, user)]
    elsewhere = await database_sync_to_async(lifecycle.create_game)(user, num_players=3)
    other_game = await opened(frames_page(elsewhere, await database_sync_to_async(cookie)(user)), elsewhere.version)
    await database_sync_to_async(move_now)(game, mover)
    first, second = [await heard(tab) for tab in tabs]
    assert first["frame"] and second["frame"] and first["version"] == second["version"] == game.version
    # The second render found the seat's seen version moved on by the first: the same lines, only
    # no longer marked new. Either way the player's own view, never anybody else's.
    assert token_is_the_pages(first["play"]) and token_is_the_pages(second["play"])
    assert await other_game.receive_nothing()
    for socket in (*tabs, other_game):
        await socket.disconnect()


async def test_a_seat_handed_to_the_computer_gets_its_own_view_with_the_take_back(clock, start_game):
    game, mover, seat = await waiting_seat(start_game)
    user = await database_sync_to_async(user_at)(game, seat)
    socket = await seat_page(game, seat)
    seen = await database_sync_to_async(seen_versions)(game)
    game = await database_sync_to_async(moving.hand_seat_to_computer)(
        game, user=user, expected_version=game.version
    )
    got = await heard(socket)
    assert got["frame"] and got["version"] == game.version
    assert "autopilot-note" in got["play"]
    own = await database_sync_to_async(fetched)(user, game, seen[seat])
    assert untokened(got["play"]) == untokened(own)
    await socket.disconnect()


async def test_a_spectator_in_his_own_time_zone_gets_his_view_in_it(clock, start_game, make_user):
    game = await database_sync_to_async(start_game)(3)
    madrid = await database_sync_to_async(make_user)("madrid")
    await database_sync_to_async(User.objects.filter(pk=madrid.pk).update)(time_zone="Europe/Madrid")
    madrid = await database_sync_to_async(User.objects.get)(pk=madrid.pk)
    socket = await reader_page(game, madrid)
    await database_sync_to_async(move_now)(game)
    got = await heard(socket)
    assert got["frame"] and got["version"] == game.version
    assert got["play"] == await database_sync_to_async(fetched)(madrid, game)
    assert got["play"] != await database_sync_to_async(logged_out_play)(game)
    await socket.disconnect()


async def test_a_render_that_fails_leaves_the_page_to_fetch(clock, start_game, monkeypatch, caplog):
    game, mover, seat = await waiting_seat(start_game)
    socket = await seat_page(game, seat)

    def broken(request, game):
        raise RuntimeError("the view could not be rendered")

    monkeypatch.setattr(play_view, "readers_play", broken)
    await database_sync_to_async(move_now)(game, mover)
    assert await heard(socket) == {"version": game.version}
    assert "could not be rendered" in caplog.text
    await socket.disconnect()


async def test_a_rendering_thread_that_fails_leaves_the_page_to_fetch_and_the_next_move_framed(
    clock, start_game, monkeypatch, caplog
):
    game, mover, seat = await waiting_seat(start_game)
    socket = await seat_page(game, seat)
    real = own_views.frame

    async def broken(*args):
        raise RuntimeError("no thread to render in")

    monkeypatch.setattr(own_views, "frame", broken)
    await database_sync_to_async(move_now)(game, mover)
    assert await heard(socket) == {"version": game.version}
    assert "could not be made" in caplog.text
    monkeypatch.setattr(own_views, "frame", real)
    next_mover = game.to_act[0]
    await database_sync_to_async(move_now)(game, next_mover)
    got = await heard(socket)
    assert got["version"] == game.version
    # Framed again, whoever moved (the seat's own move too: its page asks for no view in the answer).
    assert got["frame"]
    await socket.disconnect()


def test_a_made_up_request_of_a_logged_out_socket_is_nobody(db):
    """The reader is who the session says, not who the socket was opened for."""
    scope = {"type": "websocket", "path": "/ws/games/1/", "headers": [(b"host", b"testserver")], "query_string": b""}
    request = own_views.reader_request(scope)
    assert not request.user.is_authenticated
    assert own_views.make_frame(scope, 1, "en", 1) is None


async def test_a_page_showing_a_past_position_gets_bare_versions_and_its_seat_sees_nothing_new(
    clock, start_game, rendered
):
    """A page that says it shows a past position ("replay": static/game.js) is sent bare versions,
    nothing rendered for it: a render of its reader's view would mark as seen the moves he has not
    looked at. Back live ("live"), it is sent its own view again."""
    game = await database_sync_to_async(start_game)(3)
    sockets = [await seat_page(game, seat) for seat in range(3)]
    for socket in sockets:
        await socket.send_to(text_data="replay")
    seen = await database_sync_to_async(seen_versions)(game)
    await database_sync_to_async(move_now)(game)
    for socket in sockets:
        assert await heard(socket) == {"version": game.version}
    assert rendered == []
    assert await database_sync_to_async(seen_versions)(game) == seen
    following = game.to_act[0]
    reader = next(seat for seat in range(3) if seat != following)
    await sockets[reader].send_to(text_data="live")
    await database_sync_to_async(move_now)(game, following)
    got = await heard(sockets[reader])
    assert got["frame"] and got["version"] == game.version
    assert [user for user, _found in rendered] == [await database_sync_to_async(lambda: user_at(game, reader).pk)()]
    for seat, socket in enumerate(sockets):
        if seat != reader:
            assert await heard(socket) == {"version": game.version}
        await socket.disconnect()


async def test_a_page_opened_on_a_past_position_gets_bare_versions_from_its_first_notice(
    clock, start_game, rendered
):
    """A page opened on a past position says so in its socket's address (static/game.js): a notice
    that comes before it could say "replay" renders nothing and marks nothing seen. Back live, it
    is sent its own view."""
    game, mover, seat = await waiting_seat(start_game)
    header = await database_sync_to_async(cookie)(await database_sync_to_async(user_at)(game, seat))
    socket = await opened(frames_page(game, header, replay=True), game.version)
    seen = await database_sync_to_async(seen_versions)(game)
    await database_sync_to_async(move_now)(game, mover)
    assert await heard(socket) == {"version": game.version}
    assert rendered == []
    assert await database_sync_to_async(seen_versions)(game) == seen
    await socket.send_to(text_data="live")
    await database_sync_to_async(move_now)(game)
    got = await heard(socket)
    assert got["frame"] and got["version"] == game.version
    await socket.disconnect()


def post_asking_no_view(user, game, seat):
    """The mover's page posting its move as static/game.js does when its socket takes frames."""
    data = {"move": json.dumps(random_move(state_of(game), seat, random.Random(3))), "expected_version": game.version}
    response = logged_in(user).post(reverse("move", args=[game.pk]), data, **HTMX, HTTP_X_VIEW_BY_SOCKET="1")
    game.refresh_from_db()
    return response


async def test_the_movers_page_asking_no_view_in_the_answer_gets_it_from_its_socket_rendered_once(
    clock, start_game, monkeypatch
):
    game = await database_sync_to_async(start_game)(3)
    mover = game.to_act[0]
    user = await database_sync_to_async(user_at)(game, mover)
    socket = await seat_page(game, mover)
    renders = []
    real = view_cache.render
    monkeypatch.setattr(view_cache, "render", lambda *args: renders.append(args[1]["own_seat"]) or real(*args))
    response = await database_sync_to_async(post_asking_no_view)(user, game, mover)
    assert response.status_code == 204 and response["X-Game-Version"] == str(game.version)
    got = await heard(socket)
    assert got["frame"] and got["version"] == game.version
    assert f'data-version="{game.version}"' in got["play"]
    assert token_is_the_pages(got["play"])
    assert await socket.receive_nothing()
    # Rendered once, by the socket's process, and as the mover's seat.
    assert len(renders) == 1 and (renders[0].index, renders[0].user_id) == (mover, user.pk)
    await socket.disconnect()


def seen_version_of(game, seat):
    return Seat.objects.get(game=game, index=seat).seen_version


async def test_a_seats_lines_are_marked_seen_once_its_frame_is_sent(clock, start_game, monkeypatch):
    """The seen mark (the log's lines no longer new at the next look) is written after the frame
    that shows them as new went out on the page's socket, not before."""
    from games.live.consumers import GameConsumer

    game, mover, seat = await waiting_seat(start_game)
    socket = await seat_page(game, seat)
    before = await database_sync_to_async(seen_version_of)(game, seat)
    happened = []
    real_send, real_seen = GameConsumer.send, play_view.seen

    async def send(self, text_data=None, bytes_data=None, close=False):
        if bytes_data is not None:
            happened.append(("frame sent", await database_sync_to_async(seen_version_of)(game, seat)))
        await real_send(self, text_data=text_data, bytes_data=bytes_data, close=close)

    def seen(mark):
        real_seen(mark)
        happened.append(("seen written", seen_version_of(game, seat)))

    monkeypatch.setattr(GameConsumer, "send", send)
    monkeypatch.setattr(play_view, "seen", seen)
    await database_sync_to_async(move_now)(game, mover)
    got = await heard(socket)
    assert got["frame"] and got["version"] == game.version
    assert ' new">' in got["play"], "the other seat's move is marked new (games/templatetags/game_page.py)"
    await socket.receive_nothing()
    assert happened == [("frame sent", before), ("seen written", game.version)]
    await socket.disconnect()


async def test_a_frame_that_could_not_be_sent_leaves_the_lines_new_for_the_next_look(
    clock, start_game, monkeypatch
):
    from games.live.consumers import GameConsumer

    game, mover, seat = await waiting_seat(start_game)
    socket = await seat_page(game, seat)
    before = await database_sync_to_async(seen_version_of)(game, seat)
    real_send = GameConsumer.send

    async def send(self, text_data=None, bytes_data=None, close=False):
        if bytes_data is not None:
            raise ConnectionResetError("the page went away")
        await real_send(self, text_data=text_data, bytes_data=bytes_data, close=close)

    monkeypatch.setattr(GameConsumer, "send", send)
    await database_sync_to_async(move_now)(game, mover)
    assert await socket.receive_nothing(timeout=1)
    assert await database_sync_to_async(seen_version_of)(game, seat) == before < game.version
    await socket.disconnect()
    # The next look shows the other seat's move as new, and only then moves the mark on.
    user = await database_sync_to_async(user_at)(game, seat)
    body = await database_sync_to_async(fetched)(user, game)
    assert ' new">' in body and await database_sync_to_async(seen_version_of)(game, seat) == game.version
    assert ' new">' not in await database_sync_to_async(fetched)(user, game)


async def test_a_seats_socket_render_neither_reads_nor_keeps_a_view_cache_entry(clock, start_game, monkeypatch):
    """Its entry would be keyed by the seen version the render moves on: nobody could read it."""
    game, mover, seat = await waiting_seat(start_game)
    socket = await seat_page(game, seat)
    asked = []
    real_get = view_cache.get
    monkeypatch.setattr(view_cache, "get", lambda key: asked.append(key) or real_get(key))
    kept = []
    real_render = view_cache.render
    monkeypatch.setattr(view_cache, "render", lambda *args: kept.append(args[2]) or real_render(*args))
    await database_sync_to_async(move_now)(game, mover)
    got = await heard(socket)
    assert got["frame"] and got["version"] == game.version
    assert asked == [] and kept == [None]
    await socket.disconnect()


async def test_a_page_gone_to_a_past_position_during_its_render_leaves_the_lines_new(clock, start_game, monkeypatch):
    """It does not show the frame that comes then (static/game.js): nothing it shows was seen."""
    import asyncio

    game, mover, seat = await waiting_seat(start_game)
    socket = await seat_page(game, seat)
    before = await database_sync_to_async(seen_version_of)(game, seat)
    real = own_views.frame

    async def frame_then_replay(*args):
        made = await real(*args)
        await socket.send_to(text_data="replay")
        await asyncio.sleep(0.2)  # the consumer hears it while the frame is on its way
        return made

    monkeypatch.setattr(own_views, "frame", frame_then_replay)
    await database_sync_to_async(move_now)(game, mover)
    await heard(socket)
    await socket.receive_nothing()
    assert await database_sync_to_async(seen_version_of)(game, seat) == before < game.version
    await socket.disconnect()


def test_a_rendering_thread_keeps_its_connection_gives_it_back_after_a_failure_and_after_a_while(
    start_game, monkeypatch
):
    """games/live/own_views.py `_on_kept_connection`: no checkout (and the pool's check of it) a call."""
    import threading

    from django.db import OperationalError, connection

    start_game(3)
    seen = []

    def query():
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        seen.append(connection.connection)

    def broken():
        query()
        raise OperationalError("the server closed the connection unexpectedly")

    kept, failing = own_views._on_kept_connection(query), own_views._on_kept_connection(broken)

    def in_a_thread(function):
        # A thread of its own, as a rendering thread: the test's connection is left alone.
        done = []
        thread = threading.Thread(target=lambda: done.append(run_then_look(function)))
        thread.start()
        thread.join()
        return done[0]

    def run_then_look(function):
        results = []
        for call in function:
            try:
                call()
            except OperationalError:
                pass
            results.append(connection.connection)
        own_views.forget_connection()
        return results

    after = in_a_thread([kept, kept, failing, kept])
    assert seen[0] is seen[1] and after[0] is after[1] is seen[0], "kept from one call to the next"
    assert after[2] is None, "given back after a failure"
    assert after[3] is seen[3] is not None, "one from the pool after (the same, if the pool found it sound)"
    monkeypatch.setattr(own_views, "KEEP_SECONDS", 0)
    after = in_a_thread([kept, kept])
    # Given back before the second call, which takes one anew (the same, if a pool found it sound).
    assert after == [seen[4], seen[5]], "given back after KEEP_SECONDS"
    if getattr(connection, "pool", None) is None:
        assert seen[5] is not seen[4]


async def test_a_render_whose_connection_broke_leaves_the_page_to_fetch_and_the_next_move_framed(
    clock, start_game, monkeypatch, caplog
):
    game, mover, seat = await waiting_seat(start_game)
    socket = await seat_page(game, seat)
    real = play_view.readers_game
    calls = []

    def once_broken(request, game_id):
        calls.append(game_id)
        if len(calls) == 1:
            # The kept connection itself breaks (as after a database restart): every later query on
            # it fails, unless it is given back.
            from django.db import connection

            connection.ensure_connection()
            connection.connection.close()
        return real(request, game_id)

    monkeypatch.setattr(play_view, "readers_game", once_broken)
    await database_sync_to_async(move_now)(game, mover)
    assert await heard(socket) == {"version": game.version}
    assert "could not be rendered" in caplog.text
    await database_sync_to_async(move_now)(game)
    got = await heard(socket)
    assert got["frame"] and got["version"] == game.version
    await socket.disconnect()


def test_every_kept_connection_is_given_back_on_demand(start_game):
    from concurrent.futures import wait

    from django.db import connection

    start_game(2)
    touch = own_views._on_kept_connection(lambda: connection.ensure_connection())
    # Both rendering threads and the marking thread take one.
    barrier = __import__("threading").Barrier(own_views.RENDERING_THREADS, timeout=5)
    wait([own_views._RENDERING.submit(lambda: (barrier.wait(), touch())) for _ in range(own_views.RENDERING_THREADS)])
    wait([own_views._MARKING.submit(touch)])
    assert len(own_views._holding) == own_views.RENDERING_THREADS + 1
    own_views.give_back_connections()
    assert not own_views.holding()


def test_a_kept_connection_left_idle_or_wanted_by_a_small_or_busy_pool_is_given_back(start_game, monkeypatch):
    import threading
    import types

    from django.db import connection

    start_game(2)
    given_back = []
    real_forget = own_views.forget_connection
    monkeypatch.setattr(own_views, "forget_connection", lambda: given_back.append(1) or real_forget())
    touch = own_views._on_kept_connection(lambda: connection.ensure_connection())

    def in_a_thread(*calls):
        thread = threading.Thread(target=lambda: [call() for call in calls] and own_views.forget_connection())
        thread.start()
        thread.join()

    in_a_thread(touch, touch)
    assert given_back == [1], "kept between the two calls, given back at the end only"
    given_back.clear()
    monkeypatch.setattr(own_views, "IDLE_SECONDS", -1)
    in_a_thread(touch, touch)
    assert given_back == [1, 1], "given back before the second call: idle too long"
    monkeypatch.setattr(own_views, "IDLE_SECONDS", 60)

    class Pool:
        def __init__(self, size, waiting):
            self.max_size, self.waiting = size, waiting

        def get_stats(self):
            return {"requests_waiting": self.waiting}

    for pool, needs_it in ((Pool(20, 0), False), (Pool(4, 0), True), (Pool(20, 1), True)):
        monkeypatch.setattr(own_views, "connection", types.SimpleNamespace(pool=pool))
        assert own_views._pool_needs_it() is needs_it, (pool.max_size, pool.waiting)
