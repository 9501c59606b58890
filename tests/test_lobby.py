import importlib
import re
from datetime import timedelta

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games.clocks import time_left_text
from games.engine import new_game, view_for
from games.engine.board import COLOUR_LABELS
from games.models import Game
from games.play import lifecycle, saving
from tests.support.helpers import play, state_of, user_at

pytestmark = pytest.mark.django_db


def games_in(response, section):
    """The ids of the games a list of the lobby shows (its rows' games are plain rows, not Games)."""
    return [row["game"].pk for row in response.context[section]]


def test_the_lobby_lists_open_games_my_games_and_finished_games(client, make_user, start_game):
    me, other = make_user("me"), make_user("other")
    open_game = lifecycle.create_game(other, num_players=4)
    private_game = lifecycle.create_game(other, num_players=4, private=True)
    mine = lifecycle.create_game(me, num_players=3)
    finished = start_game(2, short_game=True)
    play(finished)
    client.force_login(me)
    response = client.get(reverse("lobby"))
    assert response.status_code == 200
    assert private_game.pk not in games_in(response, "open_games")
    assert games_in(response, "open_games") == [open_game.pk]
    assert private_game.pk not in games_in(response, "finished")
    assert games_in(response, "my_games") == [mine.pk]
    assert games_in(response, "finished") == [finished.pk]


def test_my_games_put_those_waiting_for_my_move_first(client, start_game, make_user):
    waiting_for_me = start_game(3)
    seat = waiting_for_me.to_act[0]
    me = user_at(waiting_for_me, seat)
    older = lifecycle.create_game(me, num_players=4)
    newer_not_my_turn = start_game(3)
    # Put `me` in a running game where someone else must act, created after the others.
    other_seat = next(s for s in range(3) if s not in newer_not_my_turn.to_act)
    seat_row = newer_not_my_turn.seats.get(index=other_seat)
    seat_row.user = me
    seat_row.save()
    client.force_login(me)
    rows = client.get(reverse("lobby")).context["my_games"]
    assert [row["game"].pk for row in rows][0] == waiting_for_me.pk
    assert rows[0]["your_move"] is True
    assert {row["game"].pk for row in rows[1:]} == {older.pk, newer_not_my_turn.pk}
    assert not any(row["your_move"] for row in rows[1:])
    assert b"Your move" in client.get(reverse("lobby")).content


def test_creating_a_game_with_every_option(client, make_user):
    client.force_login(make_user())
    response = client.post(
        reverse("new_game"),
        {
            "num_players": "5",
            "short_game": "True",
            "show_castillo": "on",
            "time_per_move": "604800",
            "rated": "on",
            "private": "on",
        },
    )
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == game.get_absolute_url()
    assert (game.num_players, game.short_game, game.veto, game.show_castillo) == (5, True, False, True)
    assert (game.time_per_move, game.rated, game.private) == (604800, True, True)


def test_the_create_form_refuses_options_that_do_not_exist(client, make_user):
    client.force_login(make_user())
    response = client.post(reverse("new_game"), {"num_players": "6", "short_game": "False", "time_per_move": "60"})
    assert response.status_code == 400
    assert set(response.context["form"].errors) == {"num_players", "time_per_move"}
    assert not Game.objects.exists()


def test_creating_needs_a_login(client):
    response = client.get(reverse("new_game"))
    assert response.status_code == 302 and reverse("account_login") in response["Location"]


def test_join_leave_and_cancel_through_the_site(client, make_user):
    creator, player = make_user(), make_user()
    game = lifecycle.create_game(creator, num_players=3)
    client.force_login(player)
    client.post(reverse("join", args=[game.pk]))
    assert game.seats.filter(user=player).exists()
    client.post(reverse("leave", args=[game.pk]))
    assert not game.seats.filter(user=player).exists()
    response = client.post(reverse("cancel", args=[game.pk]), {"confirm": "yes"}, follow=True)
    assert b"Only the creator can cancel" in response.content
    assert b"Only the creator can cancel" in client.get(reverse("cancel", args=[game.pk]), follow=True).content
    client.force_login(creator)
    client.post(reverse("cancel", args=[game.pk]), {"confirm": "yes"})
    game.refresh_from_db()
    assert game.status == Game.Status.CANCELLED


def test_cancelling_asks_first_and_only_the_confirmation_cancels(client, make_user):
    creator = make_user()
    game = lifecycle.create_game(creator, num_players=3)
    client.force_login(creator)
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    # The waiting page offers a link to the confirmation, and the same confirmation in a dialog.
    assert f'href="{reverse("cancel", args=[game.pk])}" data-dialog="cancel-dialog"' in page
    assert '<dialog id="cancel-dialog"' in page and 'name="confirm" value="yes"' in page
    asked = client.get(reverse("cancel", args=[game.pk]))
    assert asked.status_code == 200 and b"Cancel this game?" in asked.content
    assert b'name="confirm" value="yes"' in asked.content
    # A post without the confirmation (an old form, a forged one) asks again and changes nothing.
    for fields in ({}, {"confirm": "no"}, {"confirm": "yes\x00"}):
        response = client.post(reverse("cancel", args=[game.pk]), fields)
        assert response.status_code == 200 and b"Cancel this game?" in response.content
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN and game.seats.count() == 1
    client.post(reverse("cancel", args=[game.pk]), {"confirm": "yes"})
    game.refresh_from_db()
    assert game.status == Game.Status.CANCELLED
    # Once cancelled, the confirmation page says why it cannot be done again.
    response = client.get(reverse("cancel", args=[game.pk]), follow=True)
    assert b"Only a game that has not started can be cancelled." in response.content
    assert b'name="confirm"' not in response.content


def test_the_cancel_page_of_a_private_game_is_hidden_from_strangers(client, make_user):
    game = lifecycle.create_game(make_user(), num_players=3, private=True)
    client.force_login(make_user())
    assert client.get(reverse("cancel", args=[game.pk])).status_code == 404
    assert client.post(reverse("cancel", args=[game.pk]), {"confirm": "yes"}).status_code == 404
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN


def test_the_last_join_starts_the_game(client, make_user):
    game = lifecycle.create_game(make_user(), num_players=2)
    client.force_login(make_user())
    response = client.post(reverse("join", args=[game.pk]), follow=True)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert response.context["view"]["players"][0]["colour"]


def test_a_private_game_is_joined_through_its_invitation_link(client, make_user):
    creator = make_user()
    game = lifecycle.create_game(creator, num_players=3, private=True)
    guest = make_user()
    client.force_login(guest)
    assert client.get(reverse("game", args=[game.pk])).status_code == 404
    client.post(reverse("join", args=[game.pk]))
    assert not game.seats.filter(user=guest).exists()
    assert client.get(reverse("invitation", args=[game.pk, "wrong"])).status_code == 404
    response = client.get(reverse("invitation", args=[game.pk, game.invite_token]))
    assert response.status_code == 302
    assert client.get(reverse("game", args=[game.pk])).status_code == 200
    client.post(reverse("join", args=[game.pk]))
    assert game.seats.filter(user=guest).exists()


def test_the_creator_sees_the_invitation_link(client, make_user):
    creator = make_user()
    game = lifecycle.create_game(creator, num_players=3, private=True)
    client.force_login(creator)
    content = client.get(reverse("game", args=[game.pk])).content.decode()
    assert reverse("invitation", args=[game.pk, game.invite_token]) in content


def lobby_text(client):
    """The lobby as a reader sees it: tags dropped, whitespace collapsed."""
    html = client.get(reverse("lobby")).content.decode()
    return " ".join(re.sub(r"<[^>]+>", "", html).split())


def test_every_save_stores_a_public_summary_of_the_state(start_game):
    game = start_game(3, short_game=True)
    spectators = view_for(state_of(game), None)
    assert game.round == spectators["round"] == 1
    assert game.colours == [player["colour"] for player in spectators["players"]]
    assert sorted(seat for _, seat, _ in game.standings) == [0, 1, 2]
    play(game, moves=12)
    game.refresh_from_db()
    spectators = view_for(state_of(game), None)
    assert game.round == spectators["round"]
    scores = {player["seat"]: player["score"] for player in spectators["players"]}
    assert all(score == scores[seat] for _, seat, score in game.standings)
    play(game)
    game.refresh_from_db()
    spectators = view_for(state_of(game), None)
    assert [[place, seat] for place, seat, _ in game.standings] == spectators["ranking"]


def test_equal_scores_share_a_place_in_the_standings():
    state = new_game(num_players=4, seed=3)
    state.scores = [60, 84, 84, 12]
    assert saving.standings(state) == [[1, 1, 84], [1, 2, 84], [3, 0, 60], [4, 3, 12]]


def test_the_migration_summarises_games_saved_before_the_summary(start_game):
    game = start_game(3)
    play(game, moves=10)
    game.refresh_from_db()
    summary = (game.round, game.colours, game.standings)
    Game.objects.filter(pk=game.pk).update(round=None, colours=[], standings=[])
    migration = importlib.import_module("games.migrations.0002_game_summary")
    migration.summarise_stored_states(apps, None)
    game.refresh_from_db()
    assert (game.round, game.colours, game.standings) == summary


def test_finished_games_show_the_final_ranking_with_shared_places(client, make_user):
    anna, ben, carl = make_user("anna"), make_user("ben"), make_user("carl")
    game = lifecycle.create_game(anna, num_players=3, short_game=True)
    lifecycle.join_game(game, user=ben)
    lifecycle.join_game(game, user=carl)
    game.refresh_from_db()
    play(game)
    game.refresh_from_db()
    seat_of = {seat.user.username: seat.index for seat in game.seats.select_related("user")}
    # Force a tie for first: a real game rarely ends in one, and the lobby only reads the summary.
    tie = [[1, seat_of["anna"], 84], [1, seat_of["ben"], 84], [3, seat_of["carl"], 60]]
    Game.objects.filter(pk=game.pk).update(standings=tie)
    label = {name: COLOUR_LABELS[game.colours[seat]] for name, seat in seat_of.items()}
    text = lobby_text(client)
    assert (
        f"1. {label['anna']} anna 84, 1. {label['ben']} ben 84, 3. {label['carl']} carl 60" in text
    )
    assert f"Game {game.pk} 6 rounds" in text
    assert game.finished_at.strftime("%-d %b %Y") in text
    html = client.get(reverse("lobby")).content.decode()
    assert f'href="{game.get_absolute_url()}"' in html
    assert f'colour-{game.colours[seat_of["anna"]]}' in html


def test_a_finished_game_stays_browsable_for_spectators_and_players(client, start_game):
    game = start_game(2, short_game=True)
    play(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    spectator = client.get(reverse("game", args=[game.pk]))
    assert spectator.status_code == 200
    assert spectator.context["view"]["ranking"] and b"Final ranking" in spectator.content
    client.force_login(user_at(game, 0))
    player = client.get(reverse("game", args=[game.pk]))
    assert player.status_code == 200
    # It opens as the replay of its end, everything revealed (tests/replays), the player's seat marked.
    assert player.context["replay"]["revealed"] and b"Final ranking" in player.content
    assert player.context["own_seat"].index == 0 and b"(you)" in player.content
    assert not player.context["your_move"]


def test_my_games_show_the_round_or_the_seats_still_free(client, make_user, start_game):
    running = start_game(3, short_game=True)
    me = user_at(running, 0)
    waiting = lifecycle.create_game(me, num_players=4)
    lifecycle.join_game(waiting, user=make_user())
    client.force_login(me)
    text = lobby_text(client)
    assert f"Game {running.pk}" in text and "round 1 of 6" in text
    assert "waiting for 2 more players" in text


def test_my_games_list_the_players_with_their_colours(client, start_game):
    game = start_game(3)
    me = user_at(game, 1)
    client.force_login(me)
    text = lobby_text(client)
    names = [
        f"{COLOUR_LABELS[game.colours[seat.index]]} {seat.user.username}"
        for seat in game.seats.select_related("user")
    ]
    assert ", ".join(names) in text


def test_the_turn_column_says_whose_move_it_is_and_how_long_is_left(client, start_game):
    game = start_game(3)
    acting = game.to_act[0]
    waiting = next(seat for seat in range(3) if seat not in game.to_act)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() + timedelta(hours=5, minutes=30, seconds=30))
    client.force_login(user_at(game, acting))
    assert "Your move · 5 h 30 min left" in lobby_text(client)
    client.force_login(user_at(game, waiting))
    assert f"{user_at(game, acting).username} to move · 5 h 30 min left" in lobby_text(client)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(minutes=5))
    assert f"{user_at(game, acting).username} to move · time is up" in lobby_text(client)


@pytest.mark.parametrize(
    "left, text",
    [
        (timedelta(hours=5, minutes=59), "5 h 59 min left"),
        (timedelta(minutes=30, seconds=10), "30 min 10 s left"),
        (timedelta(seconds=20), "0 min 20 s left"),
        (timedelta(days=3, hours=2), "3 d 2 h left"),
        (timedelta(hours=47), "1 d 23 h left"),
        (timedelta(0), "time is up"),
        (-timedelta(hours=2), "time is up"),
    ],
)
def test_the_lobby_says_the_time_left_as_the_game_pages_clock_does(left, text, client, start_game, monkeypatch):
    """One wording for the time left on the whole site: the lobby's "my games" shows the same
    countdown element as the game page (games/partials/countdown.html), which static/clocks.js
    counts down in the same words (games.clocks.time_left_text, tests/test_clock_pages.py)."""
    game = start_game(3)
    now = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: now)
    Game.objects.filter(pk=game.pk).update(deadline=now + left)
    client.force_login(user_at(game, game.to_act[0]))
    lobby = client.get(reverse("lobby")).content.decode()
    game_page = client.get(reverse("game", args=[game.pk])).content.decode()
    countdown = re.compile(r'<time class="countdown" datetime="[^"]*" data-left="(\d+)">([^<]*)</time>')
    [(seconds, said)] = countdown.findall(lobby)
    assert said == text == time_left_text(int(seconds))
    assert {said for _, said in countdown.findall(game_page)} == {text}


def test_open_games_show_who_has_joined_and_the_seats_taken(client, make_user):
    anna, ben = make_user("anna"), make_user("ben")
    game = lifecycle.create_game(anna, num_players=4, short_game=True)
    lifecycle.join_game(game, user=ben)
    client.force_login(make_user())
    text = lobby_text(client)
    assert f"Game {game.pk} anna, ben not rated yet 2 / 4 6 rounds" in text
    html = client.get(reverse("lobby")).content.decode()
    assert f'action="{reverse("join", args=[game.pk])}"' in html


def make_games(make_user, start_game, me, count):
    """`count` games of each kind the lobby lists, `me` seated in the running and open ones."""
    for _ in range(count):
        running = start_game(3)
        seat = running.seats.get(index=running.to_act[0])
        seat.user = me
        seat.save()
        mine = lifecycle.create_game(make_user(), num_players=3)
        lifecycle.join_game(mine, user=me)
        lifecycle.join_game(lifecycle.create_game(make_user(), num_players=4), user=make_user())
        finished = start_game(2, short_game=True)
        play(finished)


def test_the_lobby_takes_the_same_few_queries_however_many_games(
    client, make_user, start_game, django_assert_max_num_queries
):
    me = make_user()
    client.force_login(me)
    make_games(make_user, start_game, me, 1)
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("lobby"))
    make_games(make_user, start_game, me, 3)
    with django_assert_max_num_queries(len(few)) as many:
        response = client.get(reverse("lobby"))
    assert len(response.context["my_games"]) == 8
    assert len(response.context["open_games"]) == 4
    assert len(response.context["finished"]) == 4
    # A list needs no state: loading and decoding every game's would grow with the games.
    assert not any('"state"' in query["sql"] for query in many.captured_queries)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's count of the steps its statements take")
def test_my_games_cost_the_same_however_many_games_the_player_has_finished(start_game):
    """The player's games in play are read from the games in play, each asked whether the player
    sits in it: from the player's seats, SQLite (no statistics to plan by) went through every
    seat of every finished game of the player (bench/README.md, "The lobby on SQLite")."""
    from games.reading import selectors
    from tests.support.archive_games import finished_game
    from tests.support.sqlite_steps import sqlite_steps

    game = start_game(2)
    me, other = user_at(game, 0), user_at(game, 1)

    def steps():
        """The virtual machine's steps (in tens) of SQLite for the player's first page, warm."""
        selectors.my_games(me)
        page, counted = sqlite_steps(lambda: selectors.my_games(me))
        assert [row["game"].pk for row in page.rows] == [game.pk]
        return counted

    few = steps()
    for _ in range(60):
        finished_game([me, other])
    assert steps() <= few + 5


def test_my_games_read_the_same_rows_from_the_games_as_from_the_seats(start_game, make_user, monkeypatch):
    """SQLite's form of the player's games in play (from the games, each asked for the player's
    seat) and PostgreSQL's (from the player's seats) give the same rows in the same order, on
    either database: the seat's index of an open game (None), ties on the creation time (by id),
    the games of others, the finished and cancelled left out; and so the same page."""
    from games.reading import selectors
    from tests.support.archive_games import finished_game

    waiting = start_game(3)
    me = user_at(waiting, waiting.to_act[0])
    other = make_user("other")
    not_my_move = start_game(3)
    seat = not_my_move.seats.get(index=next(i for i in range(3) if i not in not_my_move.to_act))
    seat.user = me
    seat.save()
    mine_open = lifecycle.create_game(me, num_players=4)
    joined_open = lifecycle.create_game(other, num_players=4)
    lifecycle.join_game(joined_open, user=me, token=joined_open.invite_token)
    lifecycle.create_game(other, num_players=4)  # not mine
    start_game(2)  # not mine
    cancelled = lifecycle.create_game(me, num_players=3)
    Game.objects.filter(pk=cancelled.pk).update(status=Game.Status.CANCELLED)
    finished_game([me, other])
    # The same creation time for three of them: newest first is then the highest id first.
    Game.objects.filter(pk__in=[waiting.pk, mine_open.pk, joined_open.pk]).update(created_at=timezone.now())

    for user in (me, other):
        from_games = list(selectors._playing_from_games(user))
        assert from_games == list(selectors._playing_from_seats(user))
    assert [row[0] for row in selectors._playing_from_games(me)] == [
        joined_open.pk, mine_open.pk, waiting.pk, not_my_move.pk,
    ]
    assert [row[1] for row in selectors._playing_from_games(me)][:2] == [None, None]

    pages = []
    for form in (selectors._playing_from_games, selectors._playing_from_seats):
        with monkeypatch.context() as patch:
            patch.setattr(selectors, "_playing_from_games", form)
            patch.setattr(selectors, "_playing_from_seats", form)
            page = selectors.my_games(me)
        pages.append(([row["game"].pk for row in page.rows], page.waiting))
    assert pages[0] == pages[1] == ([waiting.pk, joined_open.pk, mine_open.pk, not_my_move.pk], 1)
