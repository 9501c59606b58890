import pytest
from django.urls import reverse

from games import services
from games.models import Game
from tests.helpers import play, user_at

pytestmark = pytest.mark.django_db


def test_the_lobby_lists_open_games_my_games_and_finished_games(client, make_user, start_game):
    me, other = make_user("me"), make_user("other")
    open_game = services.create_game(other, num_players=4)
    private_game = services.create_game(other, num_players=4, private=True)
    mine = services.create_game(me, num_players=3)
    finished = start_game(2, short_game=True)
    play(finished)
    client.force_login(me)
    response = client.get(reverse("lobby"))
    assert response.status_code == 200
    assert list(response.context["open_games"]) == [open_game]
    assert private_game not in response.context["finished"]
    assert [row["game"] for row in response.context["my_games"]] == [mine]
    assert list(response.context["finished"]) == [Game.objects.get(pk=finished.pk)]


def test_my_games_put_those_waiting_for_my_move_first(client, start_game, make_user):
    waiting_for_me = start_game(3)
    seat = waiting_for_me.to_act[0]
    me = user_at(waiting_for_me, seat)
    older = services.create_game(me, num_players=4)
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
    assert response.status_code == 200
    assert set(response.context["form"].errors) == {"num_players", "time_per_move"}
    assert not Game.objects.exists()


def test_creating_needs_a_login(client):
    response = client.get(reverse("new_game"))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_join_leave_and_cancel_through_the_site(client, make_user):
    creator, player = make_user(), make_user()
    game = services.create_game(creator, num_players=3)
    client.force_login(player)
    client.post(reverse("join", args=[game.pk]))
    assert game.seats.filter(user=player).exists()
    client.post(reverse("leave", args=[game.pk]))
    assert not game.seats.filter(user=player).exists()
    response = client.post(reverse("cancel", args=[game.pk]), follow=True)
    assert b"Only the creator can cancel" in response.content
    client.force_login(creator)
    client.post(reverse("cancel", args=[game.pk]))
    game.refresh_from_db()
    assert game.status == Game.Status.CANCELLED


def test_the_last_join_starts_the_game(client, make_user):
    game = services.create_game(make_user(), num_players=2)
    client.force_login(make_user())
    response = client.post(reverse("join", args=[game.pk]), follow=True)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert response.context["view"]["players"][0]["colour"]


def test_a_private_game_is_joined_through_its_invitation_link(client, make_user):
    creator = make_user()
    game = services.create_game(creator, num_players=3, private=True)
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
    game = services.create_game(creator, num_players=3, private=True)
    client.force_login(creator)
    content = client.get(reverse("game", args=[game.pk])).content.decode()
    assert reverse("invitation", args=[game.pk, game.invite_token]) in content
