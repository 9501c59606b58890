"""A withdrawal that meets another change on its way: the start of the tournament, or the seat
handed to the computer (or the game ended) in another tab. Each is refused with a message or
done once, never a server error, and never an irreversible step the player did not confirm."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games.models import Game, Seat
from games.play import moving
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


def running_with_games(make_user):
    organiser = make_user("organiser")
    tournament = open_tournament(organiser)
    players = [make_user() for _ in range(6)]
    for player in players:
        services.sign_up(tournament, player)
    services.start(tournament, organiser)
    return tournament, players


def test_a_withdrawal_whose_seat_was_handed_to_the_computer_meanwhile_is_done(client, make_user, monkeypatch):
    """Another tab hands the seat to the computer between the withdrawal's look at the seat and
    its lock of the game (PostgreSQL lets both run: the tournament's lock is not the game's)."""
    tournament, players = running_with_games(make_user)
    leaver = players[0]
    real = moving.hand_seat_to_computer

    def other_tab_first(game, *, user, expected_version):
        Seat.objects.filter(game=game, user=user).update(autopilot=True)
        return real(game, user=user, expected_version=expected_version)

    monkeypatch.setattr(moving, "hand_seat_to_computer", other_tab_first)
    client.force_login(leaver)
    response = client.post(reverse("tournament_withdraw", args=[tournament.pk]), {"sure": "1"})
    assert response.status_code == 302
    assert tournament.entrants.filter(user=leaver, withdrawn_at__isnull=False).exists()
    assert Seat.objects.get(user=leaver, game__tournament_table__tournament=tournament).autopilot


def test_a_withdrawal_whose_game_ended_meanwhile_is_done(client, make_user, monkeypatch):
    tournament, players = running_with_games(make_user)
    leaver = players[0]
    real = moving.hand_seat_to_computer

    def game_ends_first(game, *, user, expected_version):
        Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
        return real(game, user=user, expected_version=expected_version)

    monkeypatch.setattr(moving, "hand_seat_to_computer", game_ends_first)
    client.force_login(leaver)
    response = client.post(reverse("tournament_withdraw", args=[tournament.pk]), {"sure": "1"})
    assert response.status_code == 302
    assert tournament.entrants.filter(user=leaver, withdrawn_at__isnull=False).exists()
