"""A block between two entrants refuses no tournament seat: both asked to be seated by the
tournament, and a refused seat stopped the round (the organiser's start answered a server error,
and the sweep's start failed every interval, holding up the tournaments after it)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts import friends
from games.models import Game
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def entered(make_user, closes_in):
    organiser = make_user("organiser")
    tournament = services.create_tournament(
        organiser, name="Cup", signup_closes_at=timezone.now() + timedelta(days=3), table_size=3
    )
    players = [make_user() for _ in range(3)]
    for player in players:
        services.sign_up(tournament, player)
    # Each of the others blocks the first, and the first blocks them: whoever is seated first.
    for other in players[1:]:
        friends.block(players[0], other)
        friends.block(other, players[0])
    Tournament.objects.filter(pk=tournament.pk).update(signup_closes_at=timezone.now() + closes_in)
    return organiser, tournament, players


def test_the_organiser_starts_a_tournament_whose_entrants_block_each_other(client, make_user):
    organiser, tournament, players = entered(make_user, timedelta(days=1))
    client.force_login(organiser)
    response = client.post(reverse("tournament_start", args=[tournament.pk]), {"sure": "1"})
    assert response.status_code == 302
    tournament.refresh_from_db()
    assert (tournament.status, tournament.current_round) == (Tournament.Status.RUNNING, 1)
    game = Game.objects.get(tournament_table__tournament=tournament)
    assert game.status == Game.Status.ACTIVE
    assert sorted(seat.user_id for seat in game.seats.all()) == sorted(player.pk for player in players)


def test_the_sweep_starts_it_and_the_tournaments_after_it(make_user):
    _organiser, tournament, _players = entered(make_user, timedelta(days=-1))
    later = services.create_tournament(
        make_user(), name="Later", signup_closes_at=timezone.now() + timedelta(days=3), table_size=3
    )
    for _ in range(3):
        services.sign_up(later, make_user())
    Tournament.objects.filter(pk=later.pk).update(signup_closes_at=timezone.now() - timedelta(hours=1))
    assert services.advance_due() == 2
    for each in (tournament, later):
        each.refresh_from_db()
        assert (each.status, each.current_round) == (Tournament.Status.RUNNING, 1)


def test_a_blocked_player_still_cannot_join_the_blockers_game_himself(make_user):
    from games.play import lifecycle
    from games.play.errors import Conflict

    blocker, blocked = make_user(), make_user()
    friends.block(blocker, blocked)
    game = lifecycle.create_game(blocker, num_players=3)
    with pytest.raises(Conflict, match="no longer open"):
        lifecycle.join_game(game, user=blocked)
