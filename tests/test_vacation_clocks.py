"""Vacations stop a player's clocks in slow games that allow them (games/clocks.py)."""

import json
import re
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts import vacations
from games import clocks, deadlines
from games.engine import apply_move, legal_moves, to_act
from games.models import Game, Move, Notification
from games.play import lifecycle, moving
from tests.support.helpers import logged_in, state_of, user_at

pytestmark = pytest.mark.django_db

MADRID = ZoneInfo("Europe/Madrid")
DAY = timedelta(days=1)


def in_madrid(user):
    user.time_zone = "Europe/Madrid"
    user.save(update_fields=["time_zone"])
    return user


def first_move_and_next(game):
    """The first seat to act, its move, and the seat that must act after it."""
    state = state_of(game)
    seat = to_act(state)[0]
    move = legal_moves(state, seat)[0]
    return seat, move, to_act(apply_move(state, seat, move))[0]


def test_a_decision_that_starts_during_a_vacation_gets_its_full_time_after_the_vacation(clock, start_game):
    game = start_game(3)
    seat, move, after = first_move_and_next(game)
    away = in_madrid(user_at(game, after))
    vacations.add(away, date(2026, 3, 1), date(2026, 3, 3), now=clock.now)
    moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
    game.refresh_from_db()
    assert game.to_act == [after]
    # The vacation ends at midnight after 3 March in Madrid; then a whole day per move.
    assert game.deadline == datetime(2026, 3, 4, tzinfo=MADRID) + DAY


def test_the_sweep_does_not_play_for_a_player_whose_vacation_began_before_his_deadline(clock, start_game):
    game = start_game(3)
    seat = game.to_act[0]
    deadline = game.deadline
    assert deadline == clock.now + DAY
    away = in_madrid(user_at(game, seat))
    vacations.add(away, date(2026, 3, 2), date(2026, 3, 4), now=clock.now)
    # He had until noon UTC on 2 March; his vacation begins at midnight in Madrid (23:00 UTC on
    # 1 March), so 13 hours are left, counted from the end of the vacation.
    started = datetime(2026, 3, 2, tzinfo=MADRID)
    moved = datetime(2026, 3, 5, tzinfo=MADRID) + (deadline - started)
    clock.now = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
    # Before the sweep moves it, the page already counts down to the moved deadline.
    html = logged_in(user_at(game, (seat + 1) % 3)).get(reverse("game", args=[game.pk])).content.decode()
    assert f'data-left="{int((moved - clock.now).total_seconds())}"' in html
    clock.now = deadline + timedelta(seconds=5)
    version = game.version
    assert deadlines.sweep() == 1
    game.refresh_from_db()
    assert not Move.objects.filter(game=game).exists()
    assert game.to_act == [seat] and game.version == version + 1
    assert game.deadline == moved
    clock.now = game.deadline - timedelta(seconds=1)
    assert deadlines.sweep() == 0
    clock.now = game.deadline + timedelta(seconds=1)
    assert deadlines.sweep() == 1
    assert Move.objects.get(game=game).automatic


def test_the_lobby_counts_down_to_the_deadline_a_vacation_moved_as_the_game_page_does(clock, start_game):
    # Past the stored deadline (not yet swept), the lobby said time was up while the game page
    # counted down to the deadline the vacation moved.
    game = start_game(3)
    seat = game.to_act[0]
    deadline = game.deadline
    away = in_madrid(user_at(game, seat))
    vacations.add(away, date(2026, 3, 2), date(2026, 3, 4), now=clock.now)
    moved = datetime(2026, 3, 5, tzinfo=MADRID) + (deadline - datetime(2026, 3, 2, tzinfo=MADRID))
    clock.now = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
    for viewer in (user_at(game, (seat + 1) % 3), away):
        client = logged_in(viewer)
        lobby = client.get(reverse("my_games")).content.decode()
        page = client.get(reverse("game", args=[game.pk])).content.decode()
        left = f'data-left="{int((moved - clock.now).total_seconds())}"'
        assert left in lobby and left in page
    # Where no vacation stops the clock, the stored deadline.
    other = start_game(3)
    html = logged_in(user_at(other, 0)).get(reverse("my_games")).content.decode()
    assert f'data-left="{int((other.deadline - clock.now).total_seconds())}"' in html


def test_the_lobby_asks_for_vacations_in_one_query_for_its_page_and_none_without_them(clock, make_user):
    def lobby_queries(vacations_allowed, on_vacation):
        users = [make_user() for _ in range(3)]
        for _ in range(4):
            game = lifecycle.create_game(users[0], num_players=3, vacations_allowed=vacations_allowed)
            for user in users[1:]:
                lifecycle.join_game(game, user=user, token=game.invite_token)
        if on_vacation:
            for user in users:
                vacations.add(user, date(2026, 3, 1), date(2026, 3, 3), now=clock.now)
        client = logged_in(users[0])
        client.get(reverse("my_games"))
        with CaptureQueriesContext(connection) as queries:
            html = client.get(reverse("my_games")).content.decode()
        assert html.count('class="time-left"') == 4
        return len(queries)

    without = lobby_queries(vacations_allowed=False, on_vacation=True)
    assert lobby_queries(vacations_allowed=True, on_vacation=False) == without + 1
    assert lobby_queries(vacations_allowed=True, on_vacation=True) == without + 1


def test_a_vacation_that_begins_after_the_deadline_passed_does_not_stop_it(clock, start_game):
    game = start_game(3)
    seat = game.to_act[0]
    vacations.add(user_at(game, seat), date(2026, 3, 3), date(2026, 3, 4), now=clock.now)
    # The sweep comes only now (the site was down): the vacation came too late.
    clock.now = datetime(2026, 3, 3, 12, 0, tzinfo=UTC)
    assert deadlines.sweep() == 1
    assert Move.objects.get(game=game).seat.index == seat


@pytest.mark.parametrize(
    "options", [{"time_per_move": 300}, {"vacations_allowed": False}], ids=["live game", "vacations disallowed"]
)
def test_a_vacation_does_not_stop_the_clocks_of_a_live_game_or_one_that_disallows_vacations(clock, start_game, options):
    game = start_game(3, **options)
    seat, move, after = first_move_and_next(game)
    vacations.add(user_at(game, after), date(2026, 3, 1), date(2026, 3, 10), now=clock.now)
    moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
    game.refresh_from_db()
    assert game.deadline == clock.now + timedelta(seconds=game.time_per_move)
    clock.now = game.deadline + timedelta(seconds=1)
    assert deadlines.sweep() == 1
    assert Move.objects.filter(game=game, automatic=True, seat__index=after).exists()


def test_several_seats_to_act_wait_for_the_latest_vacation(clock, game_at):
    game = game_at(lambda state: len(to_act(state)) >= 2, num_players=4)
    first, second = game.to_act[:2]
    vacations.add(user_at(game, first), date(2026, 3, 1), date(2026, 3, 2), now=clock.now)
    vacations.add(user_at(game, second), date(2026, 3, 1), date(2026, 3, 5), now=clock.now)
    clock.now = game.deadline + timedelta(seconds=1)
    waiting = list(game.to_act)
    assert deadlines.sweep() == 1
    game.refresh_from_db()
    assert game.to_act == waiting and not Move.objects.filter(game=game, automatic=True).exists()
    # Each had the whole day left (their vacations cover the day the decision began).
    assert game.deadline == datetime(2026, 3, 6, tzinfo=UTC) + DAY
    away = clocks.vacation_spans([user_at(game, first), user_at(game, second)], clock.now)
    assert clocks.new_deadline(game, list(away.values()), clock.now) == game.deadline


def test_vacations_without_a_gap_count_as_one(clock, make_user):
    user = in_madrid(make_user())
    vacations.add(user, date(2026, 3, 1), date(2026, 3, 2), now=clock.now)
    vacations.add(user, date(2026, 3, 3), date(2026, 3, 4), now=clock.now)
    vacations.add(user, date(2026, 3, 9), date(2026, 3, 9), now=clock.now)
    clock.now = datetime(2026, 3, 4, 12, tzinfo=UTC)
    assert clocks.vacation_spans([user], clock.now) == {
        user.pk: (datetime(2026, 3, 1, tzinfo=MADRID), datetime(2026, 3, 5, tzinfo=MADRID))
    }
    assert clocks.vacation_spans([user], datetime(2026, 3, 6, 12, tzinfo=UTC)) == {}


def test_opponents_see_on_vacation_until_in_their_own_time_zone(clock, start_game):
    game = start_game(3)
    away = in_madrid(user_at(game, 0))
    vacations.add(away, date(2026, 3, 1), date(2026, 3, 3), now=clock.now)
    viewer = user_at(game, 1)
    html = logged_in(viewer).get(reverse("game", args=[game.pk])).content.decode()
    player = html.split('data-seat="0"')[1].split("</div>")[0]
    assert '<span class="badge vacation">on vacation until 3 March</span>' in player
    assert html.count("on vacation until") == 1
    # Madrid's last vacation moment is 22:59 UTC on 3 March: still the 3rd in UTC, the 4th in Tokyo.
    viewer.time_zone = "Asia/Tokyo"
    viewer.save(update_fields=["time_zone"])
    html = logged_in(viewer).get(reverse("game", args=[game.pk])).content.decode()
    assert "on vacation until 4 March" in html


def test_no_vacation_is_shown_where_it_does_not_stop_the_clock(clock, start_game):
    game = start_game(3, time_per_move=300)
    vacations.add(user_at(game, 0), date(2026, 3, 1), date(2026, 3, 3), now=clock.now)
    html = logged_in(user_at(game, 1)).get(reverse("game", args=[game.pk])).content.decode()
    assert "on vacation" not in html


def test_the_creator_can_disallow_vacations_on_the_new_game_form(make_user):
    client = logged_in(make_user())
    form = client.get(reverse("new_game")).content.decode()
    [checkbox] = re.findall(r'<input type="checkbox" name="vacations_allowed"[^>]*>', form)
    assert "checked" in checkbox
    data = {"num_players": 3, "short_game": "False", "veto": "on", "time_per_move": 86400}
    client.post(reverse("new_game"), data)
    assert Game.objects.get().vacations_allowed is False
    client.post(reverse("new_game"), {**data, "vacations_allowed": "on"})
    games = Game.objects.order_by("pk")
    assert games.last().vacations_allowed is True
    assert "no vacations" in client.get(reverse("game", args=[games.first().pk])).content.decode()


def test_a_vacation_that_began_today_only_in_the_players_own_time_zone_counts(clock, start_game):
    # At noon UTC on 1 March it is already 2 March, 02:00, on Kiritimati (UTC+14).
    game = start_game(3)
    seat, move, after = first_move_and_next(game)
    away = user_at(game, after)
    away.time_zone = "Pacific/Kiritimati"
    away.save(update_fields=["time_zone"])
    vacations.add(away, date(2026, 3, 2), date(2026, 3, 2), now=clock.now)
    moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
    game.refresh_from_db()
    assert game.deadline == datetime(2026, 3, 3, tzinfo=ZoneInfo("Pacific/Kiritimati")) + DAY


def test_a_move_asks_for_vacations_only_when_a_player_may_be_on_one(clock, start_game):
    game = start_game(3)
    seat, move, after = first_move_and_next(game)
    vacations.add(user_at(game, after), date(2026, 3, 20), date(2026, 3, 22), now=clock.now)
    mover = user_at(game, seat)
    with CaptureQueriesContext(connection) as without:
        moving.submit_move(game, user=mover, move=move, expected_version=game.version)
    assert not any('"accounts_vacation"' in q["sql"] and "EXISTS" not in q["sql"] for q in without.captured_queries)


def _vacation_queries(queries):
    """The queries that read the vacations themselves (not the seats' EXISTS hint)."""
    return [q["sql"] for q in queries if '"accounts_vacation"' in q["sql"] and "EXISTS" not in q["sql"]]


def test_the_play_partial_and_a_moves_answer_ask_for_vacations_only_when_a_player_may_be_on_one(
    clock, start_game
):
    game = start_game(3)
    seat, move, after = first_move_and_next(game)
    # A vacation far ahead: nobody may be away now, so no page asks about vacations.
    vacations.add(user_at(game, after), date(2026, 3, 20), date(2026, 3, 22), now=clock.now)
    viewer = logged_in(user_at(game, after))
    play = reverse("game_partial", args=[game.pk, "play"])
    with CaptureQueriesContext(connection) as fetched:
        assert viewer.get(play).status_code == 200
    body = {"move": json.dumps(move), "expected_version": game.version}
    with CaptureQueriesContext(connection) as moved:
        response = logged_in(user_at(game, seat)).post(reverse("move", args=[game.pk]), body, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert 'id="play"' in response.content.decode()
    assert _vacation_queries(fetched.captured_queries) == []
    assert _vacation_queries(moved.captured_queries) == []
    # One on vacation now: asked about, and shown on the partial as on the page.
    vacations.add(user_at(game, seat), date(2026, 3, 1), date(2026, 3, 3), now=clock.now)
    with CaptureQueriesContext(connection) as fetched:
        html = viewer.get(play).content.decode()
    assert len(_vacation_queries(fetched.captured_queries)) == 1
    player = html.split(f'data-seat="{seat}"')[1].split("</div>")[0]
    assert '<span class="badge vacation">on vacation until 3 March</span>' in player


def test_the_daily_digest_says_the_deadline_a_vacation_moved_as_the_page_does(clock, start_game, queued_mail):
    from games.mail import digests

    game = start_game(3)
    seat = game.to_act[0]
    away = in_madrid(user_at(game, seat))
    away.digest = "daily"
    away.save(update_fields=["digest"])
    vacations.add(away, date(2026, 3, 2), date(2026, 3, 4), now=clock.now)
    # 07:30 in Madrid on 2 March: his vacation has begun; his page counts down to 13:00 on 5 March
    # (the 13 hours he had left when it began, after its end), not to 13:00 on 2 March.
    clock.now = datetime(2026, 3, 2, 6, 30, tzinfo=UTC)
    assert digests.send_digests(clock.now) == 1
    text = Notification.objects.get(kind="digest", user=away).text
    assert "5 March, 13:00" in text and "2 March, 13:00" not in text
