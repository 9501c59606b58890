"""Following and blocking from a profile: one POST with its CSRF token; the follows and blocks
are the account's own and go with it when it is deleted."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts import deletion
from accounts.models import Block, Follow
from games.computer import players as computer
from tests.support.helpers import logged_in

pytestmark = pytest.mark.django_db


def relation(client, player, action):
    return client.post(reverse("player_relation", args=[player.pk, action]))


def test_follow_and_unfollow_from_the_profile(make_user):
    ana, bea = make_user("ana"), make_user("bea")
    client = logged_in(ana)
    page = client.get(reverse("profile", args=["bea"])).content.decode()
    assert reverse("player_relation", args=[bea.pk, "follow"]) in page
    response = relation(client, bea, "follow")
    assert response.status_code == 302 and response["Location"] == bea.get_absolute_url()
    assert Follow.objects.filter(follower=ana, followed=bea).exists()
    # Twice is once.
    relation(client, bea, "follow")
    assert Follow.objects.filter(follower=ana, followed=bea).count() == 1
    page = client.get(reverse("profile", args=["bea"])).content.decode()
    assert reverse("player_relation", args=[bea.pk, "unfollow"]) in page
    relation(client, bea, "unfollow")
    assert not Follow.objects.exists()


def test_a_follow_needs_a_post_with_its_csrf_token_and_a_log_in(make_user):
    ana, bea = make_user("ana"), make_user("bea")
    url = reverse("player_relation", args=[bea.pk, "follow"])
    assert logged_in(ana).get(url).status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(ana)
    assert strict.post(url).status_code == 403
    anonymous = Client().post(url)
    assert anonymous.status_code == 302 and reverse("account_login") in anonymous["Location"]
    assert not Follow.objects.exists()


def test_nobody_follows_or_blocks_themselves_a_computer_or_a_deleted_player(make_user):
    ana, gone = make_user("ana"), make_user("gone")
    deletion.delete_account(gone)
    client = logged_in(ana)
    response = relation(client, ana, "follow")
    assert response.status_code == 302
    assert [str(m) for m in response.wsgi_request._messages] == ["That is you."]
    assert relation(client, gone, "follow").status_code == 404
    assert relation(client, gone, "block").status_code == 404
    bot = computer.computer_user("greedy")
    assert relation(client, bot, "block").status_code == 404
    assert relation(client, make_user("bea"), "befriend").status_code == 404
    assert not Follow.objects.exists() and not Block.objects.exists()


def test_block_and_unblock_from_the_profile(make_user):
    ana, bea = make_user("ana"), make_user("bea")
    client = logged_in(ana)
    relation(client, bea, "follow")
    relation(client, bea, "block")
    assert Block.objects.filter(blocker=ana, blocked=bea).exists()
    # Blocking ends one's own follow of them.
    assert not Follow.objects.filter(follower=ana).exists()
    page = client.get(reverse("profile", args=["bea"])).content.decode()
    assert reverse("player_relation", args=[bea.pk, "unblock"]) in page
    assert reverse("player_relation", args=[bea.pk, "follow"]) not in page
    relation(client, bea, "unblock")
    assert not Block.objects.exists()


def test_the_blocked_player_sees_nothing_of_the_block_on_the_profile(make_user):
    ana, bea, cid = make_user("ana"), make_user("bea"), make_user("cid")
    relation(logged_in(ana), bea, "block")

    def buttons(user):
        page = logged_in(user).get(reverse("profile", args=["ana"])).content.decode()
        part = page[page.index('<div class="relations">'):]
        part = part[: part.index("</div>")]
        return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", part)

    assert buttons(bea) == buttons(cid)


def test_deleting_an_account_removes_its_follows_and_blocks_both_ways(make_user):
    ana, bea, cid = make_user("ana"), make_user("bea"), make_user("cid")
    Follow.objects.create(follower=ana, followed=bea)
    Follow.objects.create(follower=bea, followed=ana)
    Block.objects.create(blocker=ana, blocked=cid)
    Block.objects.create(blocker=cid, blocked=ana)
    Follow.objects.create(follower=bea, followed=cid)
    deletion.delete_account(ana)
    assert list(Follow.objects.values_list("follower__username", "followed__username")) == [("bea", "cid")]
    assert not Block.objects.exists()
