"""A blocked player cannot invite the blocker, join a game the blocker sits in, or be read by the
blocker at a table; and is never told: each refusal is the very answer an unavailable target gets."""

import pytest
from django.urls import reverse

from accounts.models import Block
from games.models import Game, Notification
from games.play import lifecycle
from games.play.errors import Conflict
from tests.support.chat import post_chat
from tests.support.helpers import logged_in, user_at

pytestmark = pytest.mark.django_db


def messages_of(response):
    return [str(message) for message in response.wsgi_request._messages]


def test_a_blocked_player_cannot_join_the_blockers_game_and_is_answered_as_for_a_game_no_longer_open(make_user):
    ana, bea = make_user("ana"), make_user("bea")
    Block.objects.create(blocker=ana, blocked=bea)
    blocked_game = lifecycle.create_game(ana, num_players=3)
    cancelled = lifecycle.create_game(make_user(), num_players=3)
    lifecycle.cancel_game(cancelled, user=cancelled.creator)
    refused = logged_in(bea).post(reverse("join", args=[blocked_game.pk]))
    unavailable = logged_in(bea).post(reverse("join", args=[cancelled.pk]))

    assert refused.status_code == unavailable.status_code == 302
    assert refused["Location"] == blocked_game.get_absolute_url()
    assert messages_of(refused) == messages_of(unavailable) == ["This game is no longer open for players."]
    assert not blocked_game.seats.filter(user=bea).exists()
    assert Game.objects.get(pk=blocked_game.pk).version == blocked_game.version


def test_a_blocked_player_cannot_join_a_game_where_the_blocker_has_a_seat_that_another_created(make_user):
    ana, bea, cid = make_user("ana"), make_user("bea"), make_user("cid")
    game = lifecycle.create_game(cid, num_players=4)
    lifecycle.join_game(game, user=ana)
    Block.objects.create(blocker=ana, blocked=bea)
    with pytest.raises(Conflict, match="no longer open"):
        lifecycle.join_game(game, user=bea)
    # Anyone else still joins.
    lifecycle.join_game(game, user=make_user())


def test_a_private_game_of_the_blocker_refuses_the_blocked_player_even_with_its_link(make_user):
    ana, bea = make_user("ana"), make_user("bea")
    Block.objects.create(blocker=ana, blocked=bea)
    game = lifecycle.create_game(ana, num_players=3, private=True)
    client = logged_in(bea)
    client.get(reverse("invitation", args=[game.pk, game.invite_token]))
    response = client.post(reverse("join", args=[game.pk]))
    assert messages_of(response) == ["This game is no longer open for players."]
    assert not game.seats.filter(user=bea).exists()


def test_inviting_a_player_who_blocks_you_sends_nothing_and_answers_as_for_one_who_takes_no_invitations(make_user):
    ana, bea, quiet = make_user("ana"), make_user("bea"), make_user("quiet")
    quiet.notify_invitation = False
    quiet.save()
    Block.objects.create(blocker=ana, blocked=bea)
    game = lifecycle.create_game(bea, num_players=3, private=True)
    refused = logged_in(bea).post(reverse("invite", args=[game.pk]), {"who": "ana"})
    unavailable = logged_in(bea).post(reverse("invite", args=[game.pk]), {"who": "quiet"})

    assert refused.status_code == unavailable.status_code == 302
    assert [m.replace("ana", "X") for m in messages_of(refused)] == [
        m.replace("quiet", "X") for m in messages_of(unavailable)
    ]
    assert not Notification.objects.filter(kind="invitation").exists()
    # The blocker still invites the blocked player.
    own = lifecycle.create_game(ana, num_players=3, private=True)
    logged_in(ana).post(reverse("invite", args=[own.pk]), {"who": "bea"})
    assert Notification.objects.filter(kind="invitation", user=bea).exists()


def test_the_blocker_does_not_read_the_blocked_players_table_talk_and_the_others_do(start_game):
    game = start_game(3)
    ana, bea, cid = (user_at(game, seat) for seat in range(3))
    Block.objects.create(blocker=ana, blocked=bea)
    assert post_chat(logged_in(bea), game, "hola a todos").status_code == 200
    post_chat(logged_in(cid), game, "buenas")

    def read(user):
        return logged_in(user).get(reverse("chat", args=[game.pk])).content.decode()

    assert "hola a todos" not in read(ana) and "buenas" in read(ana)
    assert "hola a todos" in read(cid)
    # The blocked player reads their own line, as always: nothing tells them.
    assert "hola a todos" in read(bea)


def test_the_lobby_leaves_out_the_open_games_of_a_blocker_and_of_those_one_blocks(client, make_user):
    ana, bea, cid = make_user("ana"), make_user("bea"), make_user("cid")
    Block.objects.create(blocker=ana, blocked=bea)
    anas = lifecycle.create_game(ana, num_players=3)
    beas = lifecycle.create_game(bea, num_players=3)
    cids = lifecycle.create_game(cid, num_players=3)

    def open_games(user):
        response = logged_in(user).get(reverse("lobby"))
        return [row["game"].pk for row in response.context["open_games"]]

    assert open_games(bea) == [cids.pk]
    assert open_games(ana) == [cids.pk]
    assert set(open_games(cid)) == {anas.pk, beas.pk}
