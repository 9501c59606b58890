"""What the pages show of clocks and turns: the countdown, the tab title, the favicon, the lobby."""

import re

import pytest
from django.urls import reverse

from games.clocks import time_left_text
from games.play import lifecycle
from tests.support.helpers import HTMX, logged_in, play, user_at

pytestmark = pytest.mark.django_db

YOUR_MOVE_TITLE = "<title>● Your move – "


def countdowns(html):
    return re.findall(r'<time class="countdown" datetime="([^"]+)" data-left="(\d+)">([^<]+)</time>', html)


def test_the_game_page_counts_down_the_deadline_in_the_players_time_zone(clock, start_game):
    game = start_game(3)
    seat = game.to_act[0]
    user = user_at(game, seat)
    user.time_zone = "Asia/Tokyo"
    user.save(update_fields=["time_zone"])
    html = logged_in(user).get(reverse("game", args=[game.pk])).content.decode()
    # One deadline (noon UTC on 2 March, a day per move), said above the board and by the name
    # of the seat to act; the script counts down from the seconds left.
    assert countdowns(html) == [("2026-03-02T21:00:00+09:00", "86400", "1 d 0 h left")] * 2
    assert "Your deadline: Mon 2 Mar, 21:00 JST" in html
    player = html.split(f'data-seat="{seat}"')[1].split("</div>")[0]
    assert '<span class="to-act">to act</span> <time class="countdown"' in player
    assert 'src="/static/clocks.js"' in html


def test_the_countdown_comes_with_every_swapped_in_play_area(clock, start_game):
    game = start_game(3)
    html = logged_in(user_at(game, game.to_act[0])).get(
        reverse("game_partial", args=[game.pk, "play"]), **HTMX
    ).content.decode()
    assert len(countdowns(html)) == 2
    assert 'data-your-move="1"' in html


def test_a_spectator_sees_the_deadline_but_not_as_his_own(clock, client, start_game):
    game = start_game(3)
    html = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "Deadline: Mon 2 Mar, 12:00 UTC" in html and "Your deadline" not in html
    assert len(countdowns(html)) == 2


def test_a_finished_or_open_game_has_no_countdown(start_game, make_user):
    game = start_game(2)
    play(game)
    html = logged_in(user_at(game, 0)).get(reverse("game", args=[game.pk])).content.decode()
    assert "The game is over" in html and not countdowns(html) and 'class="clock"' not in html
    waiting = lifecycle.create_game(make_user(), num_players=3)
    assert not countdowns(logged_in(waiting.creator).get(reverse("game", args=[waiting.pk])).content.decode())


@pytest.mark.parametrize(
    "seconds, text",
    [(0, "time is up"), (-5, "time is up"), (59, "0 min 59 s left"), (3600 + 5 * 60, "1 h 05 min left"),
     (2 * 86400 + 3 * 3600 + 59, "2 d 3 h left")],
)
def test_the_time_left_is_said_as_the_script_says_it(seconds, text):
    assert time_left_text(seconds) == text


def test_the_title_and_favicon_say_when_it_is_your_move_on_the_game_page(start_game):
    game = start_game(3)
    mover, waiter = user_at(game, game.to_act[0]), next(
        user_at(game, seat) for seat in range(3) if seat not in game.to_act
    )
    html = logged_in(mover).get(reverse("game", args=[game.pk])).content.decode()
    assert f"{YOUR_MOVE_TITLE}Game {game.pk} · El Grande</title>" in html
    assert 'id="favicon" href="/static/favicon-your-move.svg"' in html
    html = logged_in(waiter).get(reverse("game", args=[game.pk])).content.decode()
    assert f"<title>Game {game.pk} · El Grande</title>" in html
    assert 'id="favicon" href="/static/favicon.svg"' in html
    # Both icons are named on the link, for static/clocks.js to switch after a swap.
    assert 'data-icon-idle="/static/favicon.svg" data-icon-your-move="/static/favicon-your-move.svg"' in html


def test_the_title_and_favicon_say_when_it_is_your_move_in_the_lobby(start_game):
    game = start_game(3)
    mover, waiter = user_at(game, game.to_act[0]), next(
        user_at(game, seat) for seat in range(3) if seat not in game.to_act
    )
    html = logged_in(mover).get(reverse("lobby")).content.decode()
    assert f"{YOUR_MOVE_TITLE}El Grande</title>" in html and 'href="/static/favicon-your-move.svg"' in html
    my_games = '<section id="my-games" data-ws-path="/ws/lobby/" data-url="/lobby/my-games/" data-your-move="1">'
    assert my_games in html
    html = logged_in(waiter).get(reverse("lobby")).content.decode()
    assert "<title>El Grande</title>" in html and 'id="favicon" href="/static/favicon.svg"' in html
    assert 'data-your-move="0"' in html and 'src="/static/lobby.js"' in html


def test_the_lobby_fetches_my_games_alone_with_its_own_session(client, start_game):
    game = start_game(3)
    mover = user_at(game, game.to_act[0])
    html = logged_in(mover).get(reverse("my_games")).content.decode()
    assert html.lstrip().startswith('<section id="my-games"') and 'data-your-move="1"' in html
    assert f'href="/games/{game.pk}/"' in html and "<title>" not in html
    response = client.get(reverse("my_games"))
    assert response.status_code == 403 and b"Log in" in response.content
    assert 'id="my-games"' not in client.get(reverse("lobby")).content.decode()
