"""`manage.py import_game` with a record whose time, valid ISO 8601 with an offset, has no UTC date
(0001-01-01T00:00:00+23:59, 9999-12-31T23:59:59-23:59) ended in a traceback (OverflowError: date
value out of range, from the comparison of the start and the end or from the database's adapter)
instead of the command's refusal, "Nothing was stored"."""

import json

import pytest
from django.core.management import CommandError, call_command

from games.models import Game, Move, Seat
from tests.support.records import engine_record

pytestmark = pytest.mark.django_db


def spoil_start(record, value):
    record["game"]["started_at"] = value


def spoil_end(record, value):
    record["game"]["finished_at"] = value


def spoil_first_move(record, value):
    record["moves"][0]["time"] = value
    record["game"].pop("started_at")


def spoil_last_move(record, value):
    record["moves"][-1]["time"] = value
    record["game"].pop("finished_at")


@pytest.mark.parametrize(
    "spoil, value",
    [
        (spoil_start, "0001-01-01T00:00:00+23:59"),
        (spoil_end, "9999-12-31T23:59:59-23:59"),
        (spoil_first_move, "0001-01-01T00:00:00+01:00"),
        (spoil_last_move, "9999-12-31T23:00:00-05:00"),
    ],
)
def test_a_time_with_no_utc_date_is_refused_by_the_command(tmp_path, spoil, value):
    record = engine_record()
    spoil(record, value)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    # The command's refusal (exit status 1 and its message), not an OverflowError's traceback.
    with pytest.raises(CommandError) as refusal:
        call_command("import_game", str(path))
    message = str(refusal.value)
    assert "out of the calendar's range" in message and value in message
    assert "Nothing was stored." in message
    assert not Game.objects.exists() and not Seat.objects.exists() and not Move.objects.exists()
