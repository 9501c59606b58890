import json
import random
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.html import strip_tags
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import random_move, to_act, view_for, visible_events
from games.mail import decisions
from games.models import Game, Move
from games.play import expiry, lifecycle, moving
from games.play.answers_ahead import veto_question
from games.words.log_text import Names, event_html
from games.words.texts import fill_view
from tests.support.examples import examples
from tests.support.games import post_move
from tests.support.helpers import HTMX, find_position, logged_in, play, snapshot, state_of, user_at

pytestmark = pytest.mark.django_db


def test_a_spectator_logged_out_sees_the_spectators_view_of_a_public_game(client, start_game):
    game = start_game(3)
    play(game, moves=5)
    response = client.get(reverse("game", args=[game.pk]))
    assert response.status_code == 200
    view, expected = response.context["view"], fill_view(view_for(state_of(game), None))
    assert {k: v for k, v in view.items() if k != "players"} == {k: v for k, v in expected.items() if k != "players"}
    # The page adds each seat's user, its name and public marks (autopilot, vacation, computer
    # player) to the engine's players; all else must be the engine's.
    added = {"user", "name", "autopilot", "vacation_until", "computer"}
    assert [{k: v for k, v in player.items() if k not in added} for player in view["players"]] == expected["players"]
    assert [player["user"] for player in view["players"]] == [user_at(game, seat) for seat in range(3)]
    assert [player["name"] for player in view["players"]] == [user_at(game, seat).username for seat in range(3)]
    assert response.context["view"]["seat"] is None
    assert b"Your power cards" not in response.content
    assert b"/ws/games/%d/" % game.pk in response.content


def test_a_private_game_is_hidden_from_strangers(client, start_game, make_user):
    game = start_game(3, private=True)
    assert client.get(reverse("game", args=[game.pk])).status_code == 404
    assert client.get(reverse("game_partial", args=[game.pk, "play"])).status_code == 404
    assert logged_in(make_user()).get(reverse("game", args=[game.pk])).status_code == 404
    assert logged_in(user_at(game, 1)).get(reverse("game", args=[game.pk])).status_code == 200


def test_each_player_sees_their_own_seats_view(start_game):
    game = start_game(3)
    play(game, moves=4)
    state = state_of(game)
    for seat in range(3):
        response = logged_in(user_at(game, seat)).get(reverse("game", args=[game.pk]))
        view = response.context["view"]
        assert view["seat"] == seat
        assert {k: v for k, v in view.items() if k != "players"} == {
            k: v for k, v in fill_view(view_for(state, seat)).items() if k != "players"
        }
        assert response.context["your_move"] == (seat in to_act(state))


@pytest.mark.parametrize("name", ["play", "board", "decision", "log"])
def test_the_partials_render_the_requesters_view(start_game, name):
    game = start_game(3)
    seat = game.to_act[0]
    response = logged_in(user_at(game, seat)).get(reverse("game_partial", args=[game.pk, name]), **HTMX)
    assert response.status_code == 200
    assert response.context["view"]["seat"] == seat
    assert b"<html" not in response.content


def test_an_unknown_partial_is_not_found(client, start_game):
    game = start_game(3)
    assert client.get(reverse("game_partial", args=[game.pk, "hands"])).status_code == 404


def test_the_play_area_marks_your_move_and_carries_the_version(start_game):
    game = start_game(3)
    seat = game.to_act[0]
    waiting = next(s for s in range(3) if s != seat)
    mine = logged_in(user_at(game, seat)).get(reverse("game_partial", args=[game.pk, "play"])).content.decode()
    theirs = logged_in(user_at(game, waiting)).get(reverse("game_partial", args=[game.pk, "play"])).content.decode()
    assert f'data-version="{game.version}"' in mine
    assert 'data-your-move="1"' in mine and 'data-your-move="0"' in theirs


def test_no_page_shows_a_private_log_entry_or_hand_to_another_seat(start_game):
    def someone_just_retook_a_hidden_card(state):
        return any(event.get("private") for event in state.events)

    # Events are not part of the stored state: find the move that made one, then play up to it.
    seed, history = find_position(someone_just_retook_a_hidden_card, 3)
    game = start_game(3, seed=seed)
    for seat, move in history:
        moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
        game.refresh_from_db()
    state = state_of(game)
    secret = Move.objects.filter(game=game).order_by("version").last().events
    secret = next(event for event in secret if event.get("private"))
    owner = secret["seat"]
    text = strip_tags(event_html(secret, Names.for_game(game, game.seats.all())))
    assert str(secret["card"]) in text
    owner_page = logged_in(user_at(game, owner)).get(reverse("game", args=[game.pk])).content.decode()
    assert text in strip_tags(owner_page)
    for seat in range(3):
        if seat == owner:
            continue
        client = logged_in(user_at(game, seat))
        for url in [reverse("game", args=[game.pk])] + [
            reverse("game_partial", args=[game.pk, name]) for name in ("play", "board", "decision", "log")
        ] + [reverse("game_partial", args=[game.pk, "log"]) + "?all=1"]:
            response = client.get(url)
            assert text not in strip_tags(response.content.decode())
            assert response.context["view"]["hand"] == sorted(state.hands[seat])
    for url in (reverse("game", args=[game.pk]), reverse("game_partial", args=[game.pk, "log"]) + "?all=1"):
        assert text not in strip_tags(Client().get(url).content.decode())


def test_the_game_page_query_count_does_not_grow_with_the_moves(start_game):
    game = start_game(3)
    client = logged_in(user_at(game, 0))
    url = reverse("game", args=[game.pk])
    client.get(url)

    def queries():
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured)

    at_start = queries()
    play(game, moves=60)
    assert Move.objects.filter(game=game).count() == 60
    # A new version is rendered (games/reading/view_cache.py): the game's large columns, the recent moves,
    # and one UPDATE when there is something new in the log: the version its reader has now seen; and
    # the page's frame (games/web/views.py _frame): the moves since the reader's last, for the turn report.
    assert queries() == at_start + 4
    # Both rendered once more, unmarked (the seen version is in their keys), then served from the cache.
    assert queries() == at_start + 3
    assert queries() == at_start
    # From the cache: the session's user, the game with its seats and their players in one SELECT
    # (games/reading/page_game.py) and the chat's messages; no vacations, as no player may be away (the
    # seats' `maybe_away`).
    assert at_start == 3


# Seed 41's move opens a veto question (the seats' answers given ahead are read again), seed 1's
# does not: both counts are pinned, whichever the random game would have come to.
@pytest.mark.parametrize("seed, opens_a_veto_question", [(1, False), (41, True)])
def test_a_move_post_loads_the_game_once_in_a_fixed_number_of_queries(start_game, seed, opens_a_veto_question):
    game = start_game(3, seed=seed)
    game.refresh_from_db()
    play(game, moves=20)
    game.refresh_from_db()
    seat = game.to_act[0]
    before = list(game.to_act)
    client = logged_in(user_at(game, seat))
    client.get(reverse("game", args=[game.pk]))
    move = random_move(state_of(game), seat, random.Random(1))
    with CaptureQueriesContext(connection) as captured:
        response = post_move(client, game, move)
    assert response.status_code == 200
    game.refresh_from_db()
    assert f'data-version="{game.version}"' in response.content.decode()
    sql = [query["sql"] for query in captured.captured_queries]
    # The session's user; the transaction (its savepoint in a test's): the game, its large columns
    # and its seats, loaded once with the game's row locked, the move inserted, the game updated, the row that keeps
    # the mails it calls for from being lost (when it brings somebody a new decision), the
    # release; the render of the play area from the saved game: the log's recent moves, the
    # version the mover has now seen. No vacations: nobody may be on one (the seats' hint, asked
    # with them). (The mails are decided after the commit, which a test's transaction never makes.)
    calls_for_mail = decisions.to_decide(game, state_of(game), before) is not None
    # A move that opens a veto question reads the seats' answers given ahead once more, under the
    # lock (games/play/answers_ahead.py `read_answers_ahead`).
    asks_veto = veto_question(state_of(game))
    assert asks_veto is opens_a_veto_question
    assert len(sql) == 8 + calls_for_mail + asks_veto, sql
    assert not any(query.startswith('SELECT "accounts_vacation"') for query in sql)
    read_again = 'SELECT "games_seat"."id" AS "pk", "games_seat"."answers_ahead" AS "answers_ahead" FROM'
    assert sum(query.startswith(read_again) for query in sql) == asks_veto
    assert sum(' INSERT INTO "games_mailtodecide"' in query for query in sql) == calls_for_mail
    # The game with its large columns, its seats and their players in one SELECT.
    assert sum(query.startswith('SELECT "games_game"."id"') for query in sql) == 1
    assert sum(
        query.startswith('SELECT "games_game"."id"') and 'JOIN "games_seat"' in query
        and '"games_game"."state"' in query and '"games_game"."first_events"' in query
        for query in sql
    ) == 1
    assert not any(query.startswith('SELECT "games_game"."state"') for query in sql)
    # Its row locked by that SELECT, not by one of its own (SQLite's transactions lock the file).
    locking = [query for query in sql if "FOR UPDATE" in query]
    if connection.features.has_select_for_update:
        assert len(locking) == 1 and locking[0].startswith('SELECT "games_game"."id"')
        assert 'JOIN "games_seat"' in locking[0]
    else:
        assert locking == []
    assert not any(query.startswith('SELECT "games_game"."version"') for query in sql)
    assert sum(query.startswith('SELECT "games_seat"') for query in sql) == asks_veto


def test_a_move_posted_with_htmx_returns_the_new_play_area(start_game):
    game = start_game(3)
    seat = game.to_act[0]
    response = post_move(logged_in(user_at(game, seat)), game, {"type": "bid", "card": 9})
    assert response.status_code == 200
    game.refresh_from_db()
    assert f'data-version="{game.version}"'.encode() in response.content
    assert Move.objects.get(game=game).move == {"type": "bid", "card": 9}


def test_a_move_posted_without_htmx_redirects_to_the_game(start_game):
    game = start_game(3)
    response = post_move(logged_in(user_at(game, game.to_act[0])), game, {"type": "bid", "card": 9}, htmx=False)
    assert response.status_code == 302 and response["Location"] == game.get_absolute_url()


def test_a_stale_post_is_refused_with_a_clear_message_and_changes_nothing(start_game):
    game = start_game(3)
    seat = game.to_act[0]
    client = logged_in(user_at(game, seat))
    old_version = game.version
    assert post_move(client, game, {"type": "bid", "card": 9}).status_code == 200
    before = snapshot(game)
    response = post_move(client, game, {"type": "bid", "card": 8}, version=old_version)
    assert response.status_code == 409
    assert b"moved on" in response.content
    assert response["HX-Retarget"] == "#move-error"
    assert snapshot(game) == before


def reach_phase(game, phase):
    return play(game, until=lambda state: state.phase == phase)


@pytest.mark.parametrize(
    "phase, move",
    [
        ("bid", {"type": "bid", "card": 14}),
        ("bid", {"type": "bid", "card": 0}),
        ("bid", {"type": "bid", "card": "thirteen"}),
        ("court", {"type": "court", "count": -2}),
        ("court", {"type": "court", "count": 99}),
        ("action", {"type": "place", "to": {"atlantis": 1}}),
        ("action", {"type": "place", "to": {"aragon": -1}}),
        ("action", {"type": "place", "to": {"castillo": 99}}),
        ("card", {"type": "take_card", "card": "no_such_card"}),
    ],
)
def test_forged_moves_get_a_400_with_a_reason_and_change_nothing(start_game, phase, move):
    game = start_game(3)
    reach_phase(game, phase)
    game.refresh_from_db()
    client = logged_in(user_at(game, game.to_act[0]))
    before = snapshot(game)
    response = post_move(client, game, move)
    assert response.status_code == 400
    assert b"error-fragment" in response.content
    assert snapshot(game) == before


@pytest.mark.parametrize(
    "fields",
    [
        {"move": "{not json", "expected_version": "1"},
        {"move": "", "expected_version": "1"},
        {"move": '{"type": "bid", "card": 9}'},
        {"move": '{"type": "bid", "card": 9}', "expected_version": "-1"},
        {"move": '{"type": "bid", "card": 9}', "expected_version": "one"},
        {"move": '[1, 2]', "expected_version": "{version}"},
        {"move": '{"type": "bid", "card": 9}', "expected_version": "{version}", "seat": "x"},
    ],
)
def test_malformed_posts_get_a_400_and_change_nothing(start_game, fields):
    game = start_game(3)
    client = logged_in(user_at(game, game.to_act[0]))
    before = snapshot(game)
    data = {key: value.replace("{version}", str(game.version)) for key, value in fields.items()}
    response = client.post(reverse("move", args=[game.pk]), data, **HTMX)
    assert response.status_code == 400
    assert snapshot(game) == before


def test_a_move_for_another_seat_is_forbidden(start_game):
    game = start_game(3)
    seat = game.to_act[0]
    before = snapshot(game)
    response = post_move(logged_in(user_at(game, seat)), game, {"type": "bid", "card": 9}, seat=(seat + 1) % 3)
    assert response.status_code == 403
    assert b"your own seat" in response.content
    assert snapshot(game) == before


def test_a_move_out_of_turn_is_refused(start_game):
    game = start_game(3)
    waiting = next(s for s in range(3) if s not in game.to_act)
    before = snapshot(game)
    response = post_move(logged_in(user_at(game, waiting)), game, {"type": "bid", "card": 9}, htmx=False)
    assert response.status_code == 409
    assert b"not your turn" in response.content
    assert snapshot(game) == before


def test_strangers_and_logged_out_visitors_cannot_move(client, start_game, make_user):
    game = start_game(3)
    before = snapshot(game)
    assert post_move(client, game, {"type": "bid", "card": 9}).status_code == 403
    assert post_move(logged_in(make_user()), game, {"type": "bid", "card": 9}).status_code == 403
    assert snapshot(game) == before


def test_a_move_after_the_end_is_refused(start_game):
    game = start_game(2, short_game=True)
    play(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    before = snapshot(game)
    response = post_move(logged_in(user_at(game, 0)), game, {"type": "bid", "card": 1})
    assert response.status_code == 409
    assert b"over" in response.content
    assert snapshot(game) == before


def test_moves_to_a_game_not_started_or_missing_are_refused(client, make_user):
    creator = make_user()
    game = lifecycle.create_game(creator, num_players=3)
    response = post_move(logged_in(creator), game, {"type": "bid", "card": 9})
    assert response.status_code == 409
    assert client.post(reverse("move", args=[9999]), {"move": "{}", "expected_version": 0}).status_code == 404


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 20) | st.sampled_from(["bid", "aragon", "castillo", "", "court"]),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(
        st.sampled_from(["type", "card", "to", "count", "region", "plan", "from", "cut", "from_regions"]),
        children, max_size=4,
    ),
    max_leaves=8,
)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(move=json_values, move_type=st.sampled_from(
    ["bid", "court", "take_card", "place", "special", "decline", "allow", "veto", "choose_region", "share"]
))
def test_no_forged_move_causes_a_server_error(start_game, caplog, move, move_type):
    # The engine's own fuzz test (tests/engine/test_forged_moves.py) covers every phase; here the
    # whole path from the form to the services must answer 200 or 400, and never because the
    # services' safety net caught an engine crash.
    game = Game.objects.filter(status=Game.Status.ACTIVE).first() or start_game(3)
    if isinstance(move, dict):
        move = {**move, "type": move_type}
    game.refresh_from_db()
    client = logged_in(user_at(game, game.to_act[0]))
    response = post_move(client, game, move)
    assert response.status_code in (200, 400)
    assert "engine failed" not in caplog.text


def test_posts_without_a_csrf_token_are_refused(start_game, make_user):
    game = start_game(3)
    user = user_at(game, game.to_act[0])
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    before = snapshot(game)
    response = post_move(client, game, {"type": "bid", "card": 9})
    assert response.status_code == 403
    assert snapshot(game) == before
    assert client.post(reverse("new_game"), {"num_players": "3", "short_game": "False",
                                             "time_per_move": "120"}).status_code == 403
    assert not Game.objects.filter(creator=user).exclude(pk=game.pk).exists()

    client.get(reverse("game", args=[game.pk]))
    token = client.cookies["csrftoken"].value
    response = post_move(client, game, {"type": "bid", "card": 9}, csrfmiddlewaretoken=token)
    assert response.status_code == 200
    assert snapshot(game) != before


def test_every_form_on_the_pages_carries_a_csrf_token(start_game, make_user):
    creator = make_user()
    lifecycle.create_game(creator, num_players=3)
    game = start_game(3)
    pages = [
        (logged_in(creator), reverse("lobby")),
        (logged_in(creator), reverse("new_game")),
        (logged_in(user_at(game, game.to_act[0])), reverse("game", args=[game.pk])),
        (logged_in(make_user()), reverse("lobby")),
    ]
    for client, url in pages:
        content = client.get(url).content.decode()
        forms = content.count('method="post"')
        assert forms and content.count('name="csrfmiddlewaretoken"') == forms


def test_random_play_through_the_endpoint_reaches_the_end(start_game):
    game = start_game(2, short_game=True)
    clients = {seat: logged_in(user_at(game, seat)) for seat in range(2)}
    rng = random.Random(4)
    state = state_of(game)
    while not state.is_over:
        seat = to_act(state)[0]
        response = post_move(clients[seat], game, random_move(state, seat, rng))
        assert response.status_code == 200, response.content
        state = state_of(game)
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED


def test_the_page_shows_the_log_of_this_round_and_the_last_with_the_whole_log_one_click_away(game_at):
    game = game_at(lambda state: state.round >= 3, num_players=3)
    seat = 0
    names = Names.for_game(game, game.seats.all())
    events = list(game.first_events)
    for move in Move.objects.filter(game=game).order_by("version"):
        events += visible_events(move.events, seat)
    current = state_of(game).round
    older = [event_html(e, names) for e in events if e["round"] < current - 1]
    recent = [event_html(e, names) for e in events if e["round"] >= current - 1]
    assert older and recent
    client = logged_in(user_at(game, seat))
    response = client.get(reverse("game", args=[game.pk]))
    page = response.content.decode()
    assert [entry["html"] for entry in response.context["log_entries"]] == recent
    assert all(html in page for html in recent)
    assert "Round 1 begins" not in page
    assert "Show the whole log" in page
    whole = client.get(reverse("game_partial", args=[game.pk, "log"]) + "?all=1", **HTMX)
    assert whole.status_code == 200
    assert [entry["html"] for entry in whole.context["log_entries"]] == older + recent
    assert "Round 1 begins" in whole.content.decode()
    assert "Show the whole log" not in whole.content.decode()


def test_the_log_names_players_by_user_name_and_colour_and_areas_by_name(game_at):
    game = game_at(lambda state: state.round >= 2, num_players=3)
    seat = next(s for s in game.seats.all() if s.index == 0)
    html = logged_in(seat.user).get(reverse("game_partial", args=[game.pk, "log"]), **HTMX).content.decode()
    log = strip_tags(html)
    assert f"{seat.user.username} ({game.colours[0]})" in log
    assert not re.search(r"\b(seville|old_castile|new_castile|galicia|aragon|valencia|granada|catalonia|basque)\b", log)


def test_a_move_made_when_time_ran_out_is_marked_in_the_log(start_game):
    game = start_game(3)
    late = game.to_act[0]
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    assert expiry.apply_default_moves(game.pk, version=game.version)
    user = user_at(game, late)
    log = strip_tags(Client().get(reverse("game_partial", args=[game.pk, "log"])).content.decode())
    marker = f"Time ran out: the site chose for {user.username} ({game.colours[late]})."
    assert marker in log
    bid = f"{user.username} ({game.colours[late]}) plays power card"
    # The log is drawn newest first: the marker comes just before the move's events, so below them.
    assert log.index(bid) < log.index(marker)


def test_a_player_name_is_escaped_in_the_log(start_game):
    game = start_game(2)
    user = user_at(game, 0)
    user.username = "<b>bold</b>"
    user.save()
    html = Client().get(reverse("game_partial", args=[game.pk, "log"])).content.decode()
    assert "<b>bold</b>" not in html and "&lt;b&gt;bold&lt;/b&gt;" in html


def test_no_page_or_partial_shows_the_seed_that_fixes_the_face_down_stacks(start_game, client):
    game = start_game(3)
    play(game, moves=6)
    seed = str(game.seed)
    pages = [client.get(reverse("game", args=[game.pk]))]
    for seat in range(3):
        player = logged_in(user_at(game, seat))
        pages.append(player.get(reverse("game", args=[game.pk])))
        pages += [
            player.get(reverse("game_partial", args=[game.pk, name]), **HTMX) for name in ("play", "board", "log")
        ]
    pages.append(client.get(reverse("lobby")))
    for response in pages:
        assert response.status_code == 200
        assert seed not in response.content.decode()


@pytest.mark.parametrize("name", ["play", "board", "decision", "log"])
def test_every_partial_of_a_game_not_started_or_cancelled_renders(client, make_user, name):
    waiting = lifecycle.create_game(make_user(), num_players=3)
    creator = make_user()
    cancelled = lifecycle.cancel_game(lifecycle.create_game(creator, num_players=3), user=creator)
    for game in (waiting, cancelled):
        response = client.get(reverse("game_partial", args=[game.pk, name]), **HTMX)
        assert response.status_code == 200
        assert response.context["view"] is None


@pytest.mark.parametrize(
    "fields",
    [
        {"move": '{"type": "bid", "card": ' + "1" * 5000 + "}"},
        {"move": "[" * 200000},
        {"move": "[" * 960 + "]" * 960},
        {"move": '{"type": "bid", "card": 9, "junk": NaN}'},
        {"move": '{"type": "bid", "card": 9, "junk": 1e999}'},
        {"move": json.dumps({"type": "bid", "card": 9, "blob": "x" * 5000})},
        {"move_form": "special", "plan-²-from": "aragon"},
        {"move_form": "special", "order-²": "red"},
    ],
)
def test_malformed_or_oversized_posts_are_refused_and_change_nothing(start_game, fields):
    game = start_game(3)
    client = logged_in(user_at(game, game.to_act[0]))
    before = snapshot(game)
    response = client.post(reverse("move", args=[game.pk]), {**fields, "expected_version": game.version}, **HTMX)
    assert response.status_code == 400
    assert snapshot(game) == before

