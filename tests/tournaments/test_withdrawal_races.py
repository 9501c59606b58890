"""A withdrawal that meets another change on its way: the start of the tournament, or the seat
handed to the computer (or the game ended) in another tab. Each is refused with a message or
done once, never a server error, and never an irreversible step the player did not confirm."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games.models import Seat
from tournaments import services, views
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def open_tournament(organiser):
    return services.create_tournament(
        organiser, name="Spring cup", table_size=3, rounds=2, short_game=True,
        signup_closes_at=timezone.now() + timedelta(days=3),
    )


def started_meanwhile(monkeypatch, organiser):
    """The organiser's start commits between the withdrawal's reading of the tournament (still
    open for sign-up) and its lock: what two requests a moment apart do on PostgreSQL."""
    real = views.get_object_or_404

    def read_then_start(model, **lookup):
        tournament = real(model, **lookup)
        services.start(Tournament.objects.get(pk=tournament.pk), organiser)
        return tournament

    monkeypatch.setattr(views, "get_object_or_404", read_then_start)


def test_a_withdrawal_sent_before_the_start_is_not_applied_after_it_without_the_tick(
    client, make_user, monkeypatch
):
    organiser = make_user("organiser")
    tournament = open_tournament(organiser)
    players = [make_user() for _ in range(6)]
    for player in players:
        services.sign_up(tournament, player)
    started_meanwhile(monkeypatch, organiser)
    client.force_login(players[0])
    response = client.post(reverse("tournament_withdraw", args=[tournament.pk]))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    # Withdrawing from a running tournament hands the player's game to the computer for good:
    # the page says so and asks for the tick, and nothing was changed.
    assert response.status_code == 400 and "I am sure" in response.content.decode()
    assert not tournament.entrants.filter(user=players[0], withdrawn_at__isnull=False).exists()
    assert not Seat.objects.filter(user=players[0], autopilot=True).exists()
