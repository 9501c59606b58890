"""An entrant whose account is deleted is seated no more: a deleted account takes no seat, and
seating one refused the whole round, so the tournament never started (a server error for the
organiser's Start, a failure at every sweep) or never went on to its next round."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.deletion import delete_account
from games.models import Seat
from tests.support.tournament_factory import played_tournament
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def signed_up(make_user, count):
    organiser = make_user("organiser")
    tournament = services.create_tournament(
        organiser, name="Cup", signup_closes_at=timezone.now() + timedelta(days=3), table_size=3
    )
    players = [make_user() for _ in range(count)]
    for player in players:
        services.sign_up(tournament, player)
    return organiser, tournament, players


def test_the_organiser_starts_it_without_an_entrant_deleted_during_sign_up(client, make_user):
    organiser, tournament, players = signed_up(make_user, 4)
    delete_account(players[0])
    client.force_login(organiser)
    assert client.post(reverse("tournament_start", args=[tournament.pk]), {"sure": "1"}).status_code == 302
    tournament.refresh_from_db()
    assert (tournament.status, tournament.current_round) == (Tournament.Status.RUNNING, 1)
    seated = set(Seat.objects.filter(game__tournament_table__tournament=tournament).values_list("user_id", flat=True))
    assert seated == {player.pk for player in players[1:]}


def test_too_few_left_once_deleted_is_said_and_at_the_end_of_sign_up_it_is_cancelled(client, make_user):
    organiser, tournament, players = signed_up(make_user, 2)
    delete_account(players[0])
    client.force_login(organiser)
    response = client.post(reverse("tournament_start", args=[tournament.pk]), {"sure": "1"})
    assert response.status_code == 409 and "Too few entrants (1)" in response.content.decode()
    Tournament.objects.filter(pk=tournament.pk).update(signup_closes_at=timezone.now())
    assert services.advance_due() == 1
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED


def test_the_next_round_is_made_without_an_entrant_deleted_between_rounds(make_user):
    tournament, users = played_tournament(make_user, finished=False)
    Tournament.objects.filter(pk=tournament.pk).update(rounds=3)
    delete_account(users[0])
    assert services.advance(tournament.pk)
    tournament.refresh_from_db()
    assert (tournament.status, tournament.current_round) == (Tournament.Status.RUNNING, 3)
    third = set(Seat.objects.filter(game__tournament_table__tournament=tournament, game__tournament_table__round=3)
                .values_list("user_id", flat=True))
    assert third == {user.pk for user in users[1:]}


def test_a_deleted_entrant_leaves_a_tournament_still_open_for_sign_up(client, make_user):
    """Not listed, nor counted, as a "deleted player" whose link leads to no profile."""
    organiser, tournament, players = signed_up(make_user, 3)
    delete_account(players[0])
    assert list(tournament.entrants.values_list("user_id", flat=True)) == [player.pk for player in players[1:]]
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert "2 entrants" in page and "deleted player" not in page


def test_a_deleted_entrant_stays_in_the_standings_of_a_running_tournament(make_user):
    tournament, users = played_tournament(make_user, finished=False)
    delete_account(users[0])
    assert tournament.entrants.filter(user=users[0]).exists()


@pytest.mark.parametrize("language", ["en", "fr", "it"])
def test_a_deleted_organiser_or_entrant_is_named_without_a_link_to_a_profile_that_is_no_more(
    client, make_user, language
):
    tournament, users = played_tournament(make_user, finished=False)
    delete_account(users[0])
    delete_account(tournament.organiser)
    page = client.get(reverse("tournament", args=[tournament.pk]), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert "/players/deleted-" not in page
    said = {"en": "Organised by deleted player.", "fr": "Organisé par joueur supprimé.",
            "it": "Organizzato da giocatore eliminato."}[language]
    assert said in page
