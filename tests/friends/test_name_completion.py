"""Inviting by name completes the name as one types: names only, of the active people's accounts
that take invitations, a handful, counted against a limit."""

import re

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.urls import reverse

from accounts import deletion, friends
from accounts.models import Block
from games.computer import players as computer
from games.play import lifecycle
from tests.support.helpers import HTMX, logged_in

pytestmark = pytest.mark.django_db


def names(client, typed):
    response = client.get(reverse("player_search"), {"who": typed}, **HTMX)
    assert response.status_code == 200
    page = response.content.decode()
    # Names alone: no address, ever.
    assert "@" not in page
    assert re.sub(r'<option value="[^"<>]*"></option>', "", page).strip() == ""
    return re.findall(r'<option value="([^"<>]*)"></option>', page)


def test_the_names_that_begin_with_what_was_typed_and_never_an_address(make_user):
    me = make_user("carmen")
    for name in ("diego", "Dina", "dolores", "ana"):
        make_user(name)
    assert names(logged_in(me), "d") == []  # one letter is not enough
    assert names(logged_in(me), "DI") == ["diego", "Dina"]
    assert names(logged_in(me), "do") == ["dolores"]


def test_no_one_who_takes_no_invitations_is_offered(make_user):
    me = make_user("carmen")
    make_user("pablo_ok")
    make_user("pablo_unconfirmed", verified=False)
    off = make_user("pablo_off")
    off.notify_invitation = False
    off.save()
    inactive = make_user("pablo_inactive")
    inactive.is_active = False
    inactive.save()
    deletion.delete_account(make_user("pablo_deleted"))
    blocker = make_user("pablo_blocks")
    Block.objects.create(blocker=blocker, blocked=me)
    blocked = make_user("pablo_blocked")
    Block.objects.create(blocker=me, blocked=blocked)
    assert names(logged_in(me), "pablo") == ["pablo_blocked", "pablo_ok"]
    computer.computer_user("greedy")
    assert names(logged_in(me), "Computer") == []
    # A changed address that was not confirmed takes no invitations either.
    moved = make_user("pablo_moved")
    moved.email = "new@example.org"
    moved.save()
    EmailAddress.objects.create(user=moved, email="new@example.org", verified=False)
    assert "pablo_moved" not in names(logged_in(me), "pablo")


def test_a_handful_of_names_at_most(make_user):
    me = make_user("carmen")
    for number in range(12):
        make_user(f"rosa{number:02}")
    assert len(names(logged_in(me), "rosa")) == friends.SEARCH_RESULTS


def test_searching_needs_a_log_in_and_is_limited(make_user, settings):
    assert Client().get(reverse("player_search"), {"who": "ana"}).status_code == 302
    me = make_user("carmen")
    make_user("diego")
    client = logged_in(me)
    for _ in range(friends.SEARCH_LIMIT):
        assert "diego" in names(client, "di")
    response = client.get(reverse("player_search"), {"who": "di"}, **HTMX)
    assert response.status_code == 429
    assert response["HX-Reswap"] == "none"
    assert "Too many searches" in response.content.decode()


def test_bad_input_finds_nothing_and_breaks_nothing(make_user):
    me = make_user("carmen")
    for typed in ("di\x00", "d" * 10000, "%", "_a"):
        assert names(logged_in(me), typed) == []


def test_the_invitation_form_asks_for_names_as_one_types(make_user):
    me = make_user("carmen")
    game = lifecycle.create_game(me, num_players=3, private=True)
    page = logged_in(me).get(reverse("game", args=[game.pk])).content.decode()
    assert f'hx-get="{reverse("player_search")}"' in page
    assert 'list="invitee-names"' in page and '<datalist id="invitee-names">' in page
