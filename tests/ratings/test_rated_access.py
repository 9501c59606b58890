"""Only verified accounts play rated games: creating and joining one are refused otherwise, with
a message that says why and what to do, and nothing changes. (The plain create and join paths
are tested in tests/accounts/test_rated_games.py.)"""

import pytest
from django.urls import reverse

from games.models import Game
from games.play import lifecycle
from games.play.errors import NotAllowed
from tests.support.helpers import logged_in
from tests.support.rated_games import open_rated

pytestmark = pytest.mark.django_db
REFUSAL = (
    "Rated games are for players with a verified email address: follow the link we mailed you, or send a new one "
    "from your settings."
)


def test_an_invitation_to_a_private_rated_game_does_not_let_an_unverified_player_in(make_user):
    game = lifecycle.create_game(make_user(), num_players=3, rated=True, private=True)
    version = game.version
    client = logged_in(make_user(verified=False))
    client.get(reverse("invitation", args=[game.pk, game.invite_token]))
    page = client.post(reverse("join", args=[game.pk]), follow=True).content.decode()
    assert REFUSAL in page
    game.refresh_from_db()
    assert (game.seats.count(), game.version, game.status) == (1, version, Game.Status.OPEN)


def test_the_service_refuses_both_with_the_same_message(make_user):
    unverified = make_user(verified=False)
    with pytest.raises(NotAllowed) as refused_create:
        lifecycle.create_game(unverified, num_players=2, rated=True)
    game = lifecycle.create_game(make_user(), num_players=2, rated=True)
    with pytest.raises(NotAllowed) as refused_join:
        lifecycle.join_game(game, user=unverified)
    assert refused_create.value.message == refused_join.value.message == REFUSAL
    assert refused_join.value.status == 403


def test_verified_players_fill_a_rated_game_and_it_starts(make_user):
    game = open_rated([make_user() for _ in range(4)])
    assert game.status == Game.Status.ACTIVE and game.rated


def test_the_new_game_form_says_what_rated_means(make_user):
    page = logged_in(make_user()).get(reverse("new_game")).content.decode()
    assert "not computed yet" not in page
    assert "The result changes the players' ratings on the ladders." in page
