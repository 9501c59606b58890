"""The lobby's friends list: the players one follows, who of them is online now (a socket of
theirs, on the lobby or a game, seen in the last few minutes), and their open games that one may
see, never a private game one is not in."""

import time

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.urls import reverse

from accounts.models import Block, Follow
from elgrande_site.asgi import application
from games.infra import presence
from games.play import lifecycle
from tests.support.helpers import HOST, ORIGIN, logged_in
from tests.support.sockets import session_cookie


def friends_in(user):
    response = logged_in(user).get(reverse("lobby"))
    assert response.status_code == 200
    return response, {row["user"].username: row for row in response.context["friends"]}


@pytest.mark.django_db
def test_the_friends_list_shows_who_is_online_and_their_open_games_but_no_private_game(make_user):
    me, ana, bea, cid = make_user("me"), make_user("ana"), make_user("bea"), make_user("cid")
    for friend in (ana, bea):
        Follow.objects.create(follower=me, followed=friend)
    public = lifecycle.create_game(ana, num_players=3)
    private = lifecycle.create_game(ana, num_players=3, private=True)
    mine_too = lifecycle.create_game(bea, num_players=4, private=True)
    lifecycle.join_game(mine_too, user=me, token=mine_too.invite_token)
    lifecycle.create_game(cid, num_players=3)
    from django.core.cache import cache

    cache.set(presence.online_key(ana.pk), time.time(), timeout=presence.ONLINE_SECONDS)
    cache.set(presence.online_key(bea.pk), time.time() - presence.ONLINE_SECONDS - 5, timeout=60)

    response, rows = friends_in(me)
    assert list(rows) == ["ana", "bea"]  # online first
    assert rows["ana"]["online"] and not rows["bea"]["online"]
    assert rows["ana"]["games"] == [public]
    assert rows["bea"]["games"] == [mine_too]
    page = response.content.decode()
    assert reverse("game", args=[public.pk]) in page
    assert reverse("game", args=[private.pk]) not in page
    assert "online now" in page
    # Nobody else's list, and no follow of mine, shows them.
    assert friends_in(cid)[1] == {}


@pytest.mark.django_db
def test_a_friend_who_blocks_you_is_shown_away_and_without_games(make_user):
    from django.core.cache import cache

    me, ana = make_user("me"), make_user("ana")
    Follow.objects.create(follower=me, followed=ana)
    lifecycle.create_game(ana, num_players=3)
    cache.set(presence.online_key(ana.pk), time.time(), timeout=presence.ONLINE_SECONDS)
    assert friends_in(me)[1]["ana"]["online"]
    Block.objects.create(blocker=ana, blocked=me)
    row = friends_in(me)[1]["ana"]
    assert not row["online"] and row["games"] == []


@pytest.mark.django_db
def test_the_friends_list_costs_the_same_queries_for_one_friend_or_many(make_user, django_assert_max_num_queries):
    from games.web.finding import friends_of

    me = make_user("me")
    for number in range(8):
        friend = make_user(f"f{number}")
        Follow.objects.create(follower=me, followed=friend)
        lifecycle.create_game(friend, num_players=3)
    with django_assert_max_num_queries(4):
        rows = friends_of(me)
    assert len(rows) == 8 and all(len(row["games"]) == 1 for row in rows)


async def socket(path, user):
    cookie = await database_sync_to_async(session_cookie)(user)
    communicator = WebsocketCommunicator(application, path, headers=[HOST, ORIGIN, cookie])
    connected, _ = await communicator.connect()
    assert connected
    return communicator


@pytest.mark.django_db(transaction=True)
async def test_an_open_lobby_or_game_socket_puts_the_player_online(make_user):
    ana, bea, cid = [await database_sync_to_async(make_user)(name) for name in ("ana", "bea", "cid")]
    game = await database_sync_to_async(lifecycle.create_game)(cid, num_players=3)
    assert await database_sync_to_async(presence.online)([ana.pk, bea.pk, cid.pk]) == set()
    lobby = await socket("/ws/lobby/", ana)
    watching = await socket(f"/ws/games/{game.pk}/", bea)
    await lobby.receive_nothing(timeout=0.2)
    assert await database_sync_to_async(presence.online)([ana.pk, bea.pk, cid.pk]) == {ana.pk, bea.pk}
    await lobby.disconnect()
    await watching.disconnect()


@pytest.mark.django_db
def test_a_friends_open_game_shows_its_seats_taken(make_user):
    me, ana, bea = make_user("me"), make_user("ana"), make_user("bea")
    Follow.objects.create(follower=me, followed=ana)
    game = lifecycle.create_game(ana, num_players=4)
    lifecycle.join_game(game, user=bea)
    page = friends_in(me)[0].content.decode()
    friends = page[page.index('<section id="friends">'):]
    assert f'Game {game.pk}</a> <span class="note">(2 / 4)</span>' in friends[: friends.index("</section>")]
