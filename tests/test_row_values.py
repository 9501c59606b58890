"""The values the sweep's plain statements store (games/infra/rows.py `_preparer`): on PostgreSQL
the short ways taken for ints, bools, strings, aware times and JSON give what each field's own
`get_db_prep_save` gives, type and all, and anything else takes that very way."""

from datetime import timedelta

import pytest
from django.db import connection, models
from django.db.backends.postgresql.base import DatabaseWrapper
from django.utils import timezone
from psycopg.types.json import Jsonb

from games.infra import rows
from games.mail import decisions
from games.models import Game, MailToDecide, Move, Seat
from games.play import expiry, lifecycle
from games.play.steps import _seats_query

pytestmark = pytest.mark.django_db


@pytest.fixture
def postgresql():
    """A PostgreSQL connection that is never opened: its operations are all the values need."""
    return DatabaseWrapper({**connection.settings_dict, "ENGINE": "django.db.backends.postgresql", "OPTIONS": {}},
                           alias="values-of-rows")


def same(found, expected):
    """Whether two prepared values are the same: of one type, equal (a Jsonb by what it holds and
    how it is written)."""
    if type(found) is not type(expected):
        return False
    if isinstance(expected, Jsonb):
        return found.obj == expected.obj and found.dumps == expected.dumps
    return found == expected


def swept_rows(make_user):
    """A started game of three as the sweep makes it once overdue (in memory): the game, its
    seats, the default moves and the MailToDecide row."""
    users = [make_user() for _ in range(3)]
    game = lifecycle.create_game(users[0], num_players=3)
    for user in users[1:]:
        lifecycle.join_game(game, user=user)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    game.refresh_from_db()
    now = timezone.now()
    seats = {seat.index: seat for seat in _seats_query(game.seats.all(), now)}
    state, moves, late = expiry._expire(game, seats, {}, now)
    assert moves and late
    outbox = decisions.to_decide(game, state, None)
    return game, list(seats.values()), moves, outbox


def test_every_field_of_the_swept_rows_is_prepared_as_its_own_chain_prepares_it(make_user, postgresql):
    game, seats, moves, outbox = swept_rows(make_user)
    compared = 0
    for obj in [game, *seats, *moves, *([outbox] if outbox else [])]:
        for field in type(obj)._meta.concrete_fields:
            value = getattr(obj, field.attname)
            expected = field.get_db_prep_save(value, postgresql)
            assert same(rows._preparer(field, postgresql)(value), expected), (type(obj).__name__, field.name, value)
            compared += 1
    assert compared > 40


@pytest.mark.parametrize(
    "field, value",
    [
        (Game._meta.get_field("version"), "7"),  # a string for an int: int() of it, in Int4
        (Game._meta.get_field("version"), True),
        (Game._meta.get_field("seed"), 2**40),
        (Game._meta.get_field("round"), None),
        (Move._meta.get_field("automatic"), 1),  # an int for a bool: True
        (Move._meta.get_field("game"), None),
        (Move._meta.get_field("game"), 12),
        (Seat._meta.get_field("timeouts"), 3),
        (Game._meta.get_field("status"), Game.Status.ACTIVE),
        (Game._meta.get_field("status"), None),
        (Game._meta.get_field("deadline"), None),
        (Game._meta.get_field("deadline"), timezone.now()),
        (Game._meta.get_field("state"), None),
        (Game._meta.get_field("state"), {"round": 1, "phase": "bid"}),
        (Game._meta.get_field("state"), "a string"),
        (Game._meta.get_field("colours"), ["red", "blue"]),
        (Game._meta.get_field("colours"), models.Value(None, models.JSONField())),
        (Move._meta.get_field("move"), {"type": "bid", "card": 13}),
        (MailToDecide._meta.get_field("previous_to_act"), []),
    ],
)
def test_odd_values_give_what_the_fields_own_chain_gives(field, value, postgresql):
    assert same(rows._preparer(field, postgresql)(value), field.get_db_prep_save(value, postgresql))


def test_a_field_of_a_subclass_takes_its_own_chain(postgresql):
    class PlusOne(models.IntegerField):
        def get_prep_value(self, value):
            return super().get_prep_value(value) + 1

    class Shouting(models.CharField):
        def get_prep_value(self, value):
            return super().get_prep_value(value).upper()

    assert rows._preparer(PlusOne(), postgresql)(1) == 2
    assert rows._preparer(Shouting(max_length=5), postgresql)("ab") == "AB"


def test_the_inserted_values_of_a_move_are_its_fields_own(make_user, postgresql):
    game, seats, moves, outbox = swept_rows(make_user)
    fields = rows._insert_fields(Move._meta)
    prepared = rows._insert_preparers(Move, postgresql)(moves[0])
    created_at = next(number for number, field in enumerate(fields) if field.name == "created_at")
    # Set on creation, by the field's own pre_save: the one value asked for it.
    assert prepared[created_at] is not None and moves[0].created_at == prepared[created_at]
    assert all(same(found, field.get_db_prep_save(getattr(moves[0], field.attname), postgresql))
               for found, field in zip(prepared, fields))
