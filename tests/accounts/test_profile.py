"""A player's profile: member since, games in play, finished games with places and scores."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.infra import finished_generation
from games.models import Game
from games.play import lifecycle
from tests.support.helpers import logged_in, play, user_at

pytestmark = pytest.mark.django_db


def finished_game(start_game, **options):
    game = start_game(2, short_game=True, **options)
    play(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


def test_the_profile_shows_games_in_play_and_finished_ones_with_place_and_score(client, start_game):
    game = finished_game(start_game)
    running = start_game(3)
    for place, seat, score in game.standings:
        player = user_at(game, seat)
        response = client.get(reverse("profile", args=[player.username]))
        assert response.status_code == 200
        [row] = response.context["finished_rows"]
        assert row["game"].pk == game.pk
        assert (row["own"]["place"], row["own"]["score"]) == (place, score)
        text = response.content.decode()
        assert f"{place} of 2, <strong>{score}</strong> points" in text
    player = user_at(running, 0)
    response = client.get(reverse("profile", args=[player.username]))
    assert [row["game"].pk for row in response.context["in_play"]] == [running.pk]
    assert response.context["finished_rows"] == []
    assert "Member since" in response.content.decode()


def test_private_games_show_only_to_those_who_sit_in_them(start_game, make_user):
    game = start_game(3, private=True)
    player, fellow = user_at(game, 0), user_at(game, 1)
    url = reverse("profile", args=[player.username])
    assert logged_in(make_user()).get(url).context["in_play"] == []
    assert [row["game"].pk for row in logged_in(fellow).get(url).context["in_play"]] == [game.pk]
    assert [row["game"].pk for row in logged_in(player).get(url).context["in_play"]] == [game.pk]


def test_a_waiting_or_cancelled_game_is_neither_in_play_nor_finished(client, make_user):
    player = make_user("felipe")
    lifecycle.create_game(player, num_players=3)
    lifecycle.cancel_game(lifecycle.create_game(player, num_players=3), user=player)
    response = client.get(reverse("profile", args=["felipe"]))
    assert response.context["in_play"] == [] and response.context["finished_rows"] == []


def test_an_unknown_player_has_no_profile(client, db):
    assert client.get(reverse("profile", args=["nobody"])).status_code == 404


def test_the_profile_takes_as_many_queries_for_many_games_as_for_one(client, start_game, make_user):
    player = make_user("felipe")

    def queries():
        # Of a page read and rendered, not of one kept from an earlier request.
        finished_generation.changed()
        with CaptureQueriesContext(connection) as captured:
            assert client.get(reverse("profile", args=["felipe"])).status_code == 200
        return len(captured)

    def give_player_a_seat(game):
        # The archive's row of a finished game's seat names its player too.
        game.seats.filter(index=0).update(user=player)
        game.results.filter(seat=0).update(user=player)
        # update() sends no signal: retire the kept lists as a finished game's change does.
        finished_generation.changed()

    give_player_a_seat(finished_game(start_game))
    give_player_a_seat(start_game(3))
    few = queries()
    for _ in range(3):
        give_player_a_seat(finished_game(start_game))
        give_player_a_seat(start_game(4))
    response = client.get(reverse("profile", args=["felipe"]))
    assert (len(response.context["in_play"]), len(response.context["finished_rows"])) == (4, 4)
    assert queries() == few


def test_finished_games_come_a_page_at_a_time(client, start_game, make_user, monkeypatch):
    from accounts import profile

    monkeypatch.setattr(profile, "FINISHED_PER_PAGE", 2)
    games = [finished_game(start_game) for _ in range(3)]
    player = make_user("felipe")
    for game in games:
        game.seats.filter(index=0).update(user=player)
        game.results.filter(seat=0).update(user=player)
    first = client.get(reverse("profile", args=["felipe"]))
    older = first.context["finished"].older
    assert older is not None and first.context["finished"].newer is None
    assert f'href="?after={older.token()}#finished"' in first.content.decode()
    second = client.get(reverse("profile", args=["felipe"]), {"after": older.token()})
    shown = [row["game"].pk for row in first.context["finished_rows"] + second.context["finished_rows"]]
    assert shown == sorted((game.pk for game in games), reverse=True)
    assert second.context["finished"].older is None
    back = client.get(reverse("profile", args=["felipe"]), {"before": second.context["finished"].newer.token()})
    assert [row["game"].pk for row in back.context["finished_rows"]] == shown[:2]


def test_games_in_play_come_a_page_at_a_time(client, start_game, make_user, monkeypatch):
    from accounts import profile

    monkeypatch.setattr(profile, "IN_PLAY_PER_PAGE", 2)
    player = make_user("felipe")
    games = [start_game(2) for _ in range(3)]
    for game in games:
        game.seats.filter(index=0).update(user=player)
    first = client.get(reverse("profile", args=["felipe"]))
    assert len(first.context["in_play"]) == 2
    older = first.context["in_play_page"].older.token()
    second = client.get(reverse("profile", args=["felipe"]), {"playing_after": older})
    shown = [row["game"].pk for row in first.context["in_play"] + second.context["in_play"]]
    assert shown == sorted((game.pk for game in games), reverse=True)


@pytest.mark.parametrize("query", [{"after": "x"}, {"playing_before": "1-2\x00"}, {"after": "1-2", "before": "1-2"}])
def test_a_damaged_page_link_of_a_profile_is_refused(client, make_user, query):
    make_user("felipe")
    response = client.get(reverse("profile", args=["felipe"]), query)
    assert response.status_code == 400
    assert "page" in response.content.decode()


def test_a_name_with_a_slash_still_links_to_its_profile(client, make_user):
    # Sign-up refuses such names, but the admin or a shell can make them, and a page naming the
    # player must not fail because its profile link cannot be built.
    user = make_user("a/b")
    assert user.get_absolute_url() == "/players/a/b/"
    assert client.get(user.get_absolute_url()).status_code == 200
