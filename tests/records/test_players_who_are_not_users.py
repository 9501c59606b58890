"""A seat holds a user of the site or, in an imported game, only a name; the database refuses a
seat with neither, and an imported game that would be rated."""

import pytest
from django.db import IntegrityError, transaction

from accounts.models import DELETED_NAME
from games.models import Game, Seat

pytestmark = pytest.mark.django_db


def a_game(**fields):
    return Game.objects.create(num_players=2, seed=1, **fields)


def test_a_seat_shows_its_users_name_or_else_its_own(make_user):
    game = a_game()
    user = make_user("alice")
    assert Seat.objects.create(game=game, user=user, index=0).display_name == "alice"
    assert Seat.objects.create(game=game, name="Bob", index=1).display_name == "Bob"


def test_a_deleted_users_seat_shows_deleted_player(make_user):
    from django.utils import timezone

    user = make_user("carol")
    user.deleted_at = timezone.now()
    user.save()
    seat = Seat.objects.create(game=a_game(), user=user, index=0)
    assert seat.display_name == DELETED_NAME


def test_a_seat_needs_a_user_or_a_name():
    game = a_game()
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.create(game=game, index=0)
    assert not Seat.objects.exists()


def test_seats_without_a_user_are_not_one_user_seated_twice():
    # The one-seat-per-user constraint holds for users only: an imported game's seats have none.
    game = a_game()
    Seat.objects.create(game=game, name="Ana", index=0)
    Seat.objects.create(game=game, name="Ana", index=1)
    assert game.seats.count() == 2


def test_an_imported_game_cannot_be_rated():
    with pytest.raises(IntegrityError), transaction.atomic():
        a_game(imported=True, rated=True)
    assert a_game(imported=True).creator is None


def test_a_deleted_users_seat_is_named_in_the_readers_language(make_user):
    from django.utils import timezone, translation

    user = make_user("dora")
    user.deleted_at = timezone.now()
    user.save()
    seat = Seat.objects.create(game=a_game(), user=user, index=0)
    said = {}
    for language in ("en", "it", "fr"):
        with translation.override(language):
            said[language] = seat.display_name
    assert said == {"en": "deleted player", "it": "giocatore eliminato", "fr": "joueur supprimé"}
