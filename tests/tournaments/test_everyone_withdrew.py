"""A "groups then a final" tournament whose entrants all withdrew before the final ends there: the
final's seating failed (max() of no group), which left the tournament in play for good and, in
the sweep, held up the tournaments after it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game
from tournaments import pairing, services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def test_no_group_left_makes_no_final():
    assert pairing.finalists([], 4) == []
    assert pairing.finalists([[], []], 4) == []
    assert pairing.finalists([[1], [], [2, 3]], 4) == [1, 2, 3]


def test_a_groups_tournament_everyone_withdrew_from_finishes(make_user):
    organiser = make_user("organiser")
    tournament = services.create_tournament(
        organiser, name="Groups", format=Tournament.Format.GROUPS, table_size=3, rounds=2, short_game=True,
        signup_closes_at=timezone.now() + timedelta(days=3),
    )
    players = [make_user() for _ in range(3)]
    for player in players:
        services.sign_up(tournament, player)
    services.start(tournament, organiser)
    for player in players:
        services.withdraw(tournament, player)
    # The last seat handed to the computer, the autopilot played the game to its end.
    assert not Game.objects.filter(tournament_table__tournament=tournament, status=Game.Status.ACTIVE).exists()
    services.advance_due()
    tournament.refresh_from_db()
    assert (tournament.status, tournament.current_round) == (Tournament.Status.FINISHED, 1)
