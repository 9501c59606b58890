"""`manage.py import_game FILE`: a record is replayed with the engine and stored as a finished,
imported game only when it is exactly a finished game scoring what it claims; anything else is
refused with a clear message, a non-zero exit, and nothing stored."""

import json

import pytest
from django.core.management import CommandError, call_command

from games.models import Game, Move, Notification, Seat
from games.records import game_records
from tests.support.helpers import command_line
from tests.support.records import a_record, engine_record

pytestmark = pytest.mark.django_db


def write(tmp_path, record, name="record.json"):
    path = tmp_path / name
    path.write_bytes(record if isinstance(record, bytes) else json.dumps(record).encode())
    return path


def nothing_stored():
    return not Game.objects.exists() and not Seat.objects.exists() and not Move.objects.exists()


def refused(tmp_path, record, *words):
    """Import `record`, expect a refusal whose message has all `words`, and nothing stored."""
    with pytest.raises(CommandError) as refusal:
        call_command("import_game", str(write(tmp_path, record)))
    message = str(refusal.value)
    for word in words:
        assert word in message, message
    assert "Nothing was stored." in message
    assert nothing_stored()
    return message


def test_a_valid_record_is_stored_as_a_finished_imported_game(tmp_path, capsys):
    record = a_record()
    call_command("import_game", str(write(tmp_path, record)))

    game = Game.objects.get()
    assert f"as game {game.pk}" in capsys.readouterr().out
    assert game.imported and game.status == Game.Status.FINISHED
    assert game.creator is None and not game.rated and not game.private
    assert game.deadline is None and game.to_act == []
    assert (game.seed, game.num_players, game.short_game, game.veto) == (11, 3, True, True)
    assert game.time_per_move == 86400
    assert [score for _, _, score in sorted(game.standings, key=lambda row: row[1])] == record["scores"]
    assert [[place, seat] for place, seat, _ in game.standings] == record["ranking"]
    seats = list(game.seats.order_by("index"))
    assert [(seat.user, seat.name, seat.display_name) for seat in seats] == [
        (None, "Ana", "Ana"), (None, "Bernardo", "Bernardo"), (None, "Carmen", "Carmen")
    ]
    moves = list(game.moves.order_by("version"))
    assert [(m.version, m.seat.index, m.move, m.automatic) for m in moves] == [
        (m["version"], m["seat"], m["move"], m["automatic"]) for m in record["moves"]
    ]
    assert [game_records._time(m.created_at) for m in moves] == [m["time"] for m in record["moves"]]
    assert game.version == record["moves"][-1]["version"]
    assert game.finished_at.isoformat().replace("+00:00", "Z") == record["moves"][-1]["time"]
    # The events are the engine's own, as for a game played here: the log renders from them.
    assert moves[-1].events[-1]["event"] == "game_over"
    assert game.first_events[0]["event"] == "setup"
    assert not Notification.objects.exists()


def test_a_record_without_game_block_or_ranking_or_colours_is_enough(tmp_path):
    record = a_record()
    del record["game"], record["ranking"]
    for player in record["players"]:
        del player["colour"]
    call_command("import_game", str(write(tmp_path, record)))
    game = Game.objects.get()
    assert game.started_at.isoformat().replace("+00:00", "Z") == record["moves"][0]["time"]


def test_importing_the_same_game_twice_is_refused(tmp_path):
    call_command("import_game", str(write(tmp_path, a_record())))
    first = Game.objects.get()
    # The same game under other names and times is still the same game.
    again = a_record()
    again["players"][0]["name"] = "Someone else"
    again["game"]["id"] = 99
    with pytest.raises(CommandError, match=f"already imported, as game {first.pk}"):
        call_command("import_game", str(write(tmp_path, again)))
    assert Game.objects.count() == 1 and Move.objects.filter(game=first).count() == len(again["moves"])


def test_a_record_that_does_not_replay_to_its_scores_is_refused(tmp_path):
    record = a_record()
    record["scores"][0] += 1
    refused(tmp_path, record, "claims the final scores", str(record["scores"]))


def test_a_record_with_a_wrong_ranking_or_colour_is_refused(tmp_path):
    record = a_record()
    record["ranking"] = list(reversed(record["ranking"]))
    refused(tmp_path, record, "claims the ranking")
    record = a_record()
    record["players"][1]["colour"] = "purple"
    refused(tmp_path, record, "seat 1 the colour 'purple'")


def test_an_illegal_move_is_refused_with_the_engines_reason(tmp_path):
    record = a_record()
    record["moves"][0]["move"] = {"type": "bid", "card": 99}
    refused(tmp_path, record, "Move 1 (version 3, seat 0) is illegal: There is no such power card")
    record = a_record()
    record["moves"][3]["seat"] = (record["moves"][3]["seat"] + 1) % 3
    refused(tmp_path, record, "Move 4", "not your turn")


def test_a_malformed_move_is_refused(tmp_path):
    record = a_record()
    record["moves"][0]["move"] = {"type": "bid", "card": {"nine": 9}}
    refused(tmp_path, record, "Move 1")
    record = a_record()
    record["moves"][0]["move"] = ["bid", 9]
    refused(tmp_path, record, '"move" must be a JSON object')


def test_a_record_that_stops_before_the_end_is_refused(tmp_path):
    record = a_record()
    del record["moves"][-5:]
    refused(tmp_path, record, "stop before the end of the game")


def test_moves_after_the_end_are_refused(tmp_path):
    record = a_record()
    extra = {**record["moves"][-1], "version": record["moves"][-1]["version"] + 1}
    record["moves"].append(extra)
    refused(tmp_path, record, f"Move {len(record['moves'])}", "after the end of the game")


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"{not json", ["not valid JSON"]),
        (b"", ["not valid JSON"]),
        (b"\xff\xfe{}", ["not valid JSON"]),
        (b"[1, 2, 3]", ["must be a JSON object"]),
        (b'{"format": "El Grande game record", "version": 1, "seed": NaN}', ["not valid JSON"]),
        (b"[" * 5000 + b"]" * 5000, ["not valid JSON"]),
        (b'{"a": "\\ud800"}', ["not valid JSON"]),
    ],
)
def test_a_file_that_is_not_json_is_refused(tmp_path, data, words):
    refused(tmp_path, data, *words)


def test_json_nested_deeper_than_a_record_is_refused(tmp_path):
    """1000 levels: within what the JSON parser reads, beyond what a record has (and what Python's
    json module, storing a move, could write)."""
    record = a_record()
    record["moves"][0]["move"]["deep"] = "DEEP"
    data = json.dumps(record).replace('"DEEP"', "[" * 1000 + "]" * 1000).encode()
    refused(tmp_path, data, "nested more than 12 levels deep")


def test_nul_bytes_are_refused(tmp_path):
    refused(tmp_path, json.dumps(a_record()).encode() + b"\x00", "NUL byte")
    record = a_record()
    record["players"][0]["name"] = "Ana\x00"
    refused(tmp_path, record, "NUL character")
    record = a_record()
    record["moves"][0]["move"]["note\x00"] = 1
    refused(tmp_path, record, "NUL character")


def test_a_huge_file_is_refused_without_reading_it_whole(tmp_path):
    record = a_record()
    record["game"]["url"] = "x" * game_records.MAX_BYTES
    refused(tmp_path, record, "too large")


@pytest.mark.parametrize(
    ("spoil", "words"),
    [
        (lambda r: r.update(format="Chess game"), ['"format" should be "El Grande game record"']),
        (lambda r: r.update(version=2), ["format version 2", "reads version 1"]),
        (lambda r: r.update(version=True), ["format version True"]),
        (lambda r: r.update(version="1"), ["format version '1'"]),
        (lambda r: r.pop("seed"), ["lacks 'seed'"]),
        (lambda r: r.pop("scores"), ["lacks 'scores'"]),
        (lambda r: r.update(comment="hello"), ["unknown fields: 'comment'"]),
        (lambda r: r.update(seed=-1), ['"seed" must be a whole number']),
        (lambda r: r.update(seed=2**63), ['"seed" must be a whole number']),
        (lambda r: r.update(seed="11"), ['"seed" must be a whole number']),
        (lambda r: r["options"].update(num_players=6), ['"num_players" must be 2, 3, 4 or 5, not 6']),
        (lambda r: r["options"].update(num_players=True), ['"num_players" must be 2, 3, 4 or 5']),
        (lambda r: r["options"].update(short_game="yes"), ['"short_game" must be true or false']),
        (lambda r: r["options"].update(veto=1), ['"veto" must be true or false']),
        (lambda r: r["options"].update(time_per_move=17), ['"time_per_move" must be one of', "not 17"]),
        (lambda r: r["options"].update(colours="red"), ["unknown fields: 'colours'"]),
        (lambda r: r["options"].pop("show_castillo"), ["lacks 'show_castillo'"]),
        (lambda r: r["game"].update(rated="no"), ['"rated" must be true or false']),
        (lambda r: r["game"].update(finished_at="2020-01-01T00:00:00Z"), ["cannot finish", "before it started"]),
        (lambda r: r["game"].update(started_at="yesterday"), ["ISO 8601"]),
        (lambda r: r.update(scores=[1, 2]), ['"scores" must list 3 whole numbers']),
        (lambda r: r.update(scores=[1.5, 2, 3]), ['"scores" must list 3 whole numbers']),
        (lambda r: r.update(ranking=[[1, 0]]), ['"ranking" must list [place, seat] pairs']),
    ],
)
def test_a_record_with_a_wrong_field_is_refused(tmp_path, spoil, words):
    record = a_record()
    spoil(record)
    refused(tmp_path, record, *words)


@pytest.mark.parametrize(
    ("spoil", "words"),
    [
        (lambda p: p.pop(), ["must list the 3 seats of a 3-player game, not 2"]),
        (lambda p: p.append({"seat": 3, "name": "Diego"}), ["not 4"]),
        (lambda p: p.reverse(), ["seat order"]),
        (lambda p: p[0].update(name="   "), ["Seat 0: the name must be a text of 1 to 150 characters"]),
        (lambda p: p[0].update(name="x" * 151), ["1 to 150 characters"]),
        (lambda p: p[0].update(name=7), ["Seat 0: the name must be a text"]),
        (lambda p: p[2].update(name="Carmen\nDROP"), ["Seat 2: the name contains a control character"]),
        (lambda p: p[0].pop("name"), ["Player 1 lacks 'name'"]),
        (lambda p: p[0].update(email="ana@example.org"), ["unknown fields: 'email'"]),
    ],
)
def test_a_record_with_wrong_players_is_refused(tmp_path, spoil, words):
    record = a_record()
    spoil(record["players"])
    refused(tmp_path, record, *words)


@pytest.mark.parametrize(
    ("spoil", "words"),
    [
        (lambda m: m.clear(), ['"moves" must list the moves']),
        (lambda m: m[1].update(version=m[0]["version"]), ["Move 2", '"version" must be a whole number above']),
        (lambda m: m[0].update(version=2**31), ["Move 1", '"version"']),
        (lambda m: m[0].update(seat=3), ['Move 1: "seat" must be a seat of this game, 0 to 2']),
        (lambda m: m[0].update(seat=True), ['Move 1: "seat"']),
        (lambda m: m[0].update(automatic="no"), ['"automatic" must be true or false']),
        (lambda m: m[0].update(time="2024-05-01 18:00"), ["must say its time zone"]),
        (lambda m: m[0].update(time=1714586400), ["ISO 8601"]),
        (lambda m: m[1].update(time="2000-01-01T00:00:00Z"), ["Move 2 is dated before"]),
        (lambda m: m[0].pop("automatic"), ["Move 1 lacks 'automatic'"]),
        (lambda m: m[0].update(events=[]), ["Move 1 has unknown fields: 'events'"]),
    ],
)
def test_a_record_with_wrong_move_entries_is_refused(tmp_path, spoil, words):
    record = a_record()
    spoil(record["moves"])
    refused(tmp_path, record, *words)


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="Cannot read .*missing.json: No such file or directory"):
        call_command("import_game", str(tmp_path / "missing.json"))
    assert nothing_stored()


@pytest.mark.parametrize("num_players", [2, 4, 5])
def test_records_of_every_table_size_import(tmp_path, num_players):
    record = engine_record(num_players=num_players, seed=num_players, short_game=num_players != 2)
    call_command("import_game", str(write(tmp_path, record)))
    game = Game.objects.get()
    assert game.seats.count() == num_players
    assert [score for _, _, score in sorted(game.standings, key=lambda row: row[1])] == record["scores"]


@pytest.mark.django_db(transaction=True)
def test_the_command_exits_non_zero_on_a_refused_record(tmp_path):
    """Run from its command line, as manage.py's main runs it: the message on stderr, a non-zero
    exit status, nothing stored; a good record then exits with 0. (In this process, on the test's
    database: a `manage.py` of its own took two starts of Django, about 5 s of processor, for
    what its main does here; tests/operations/test_backup.py runs `manage.py import_game` as a
    program.)"""
    record = a_record()
    record["scores"][0] += 1
    status, _, stderr = command_line("import_game", str(write(tmp_path, record)))
    assert status != 0
    assert "claims the final scores" in stderr and "Nothing was stored." in stderr
    assert nothing_stored()
    status, stdout, stderr = command_line("import_game", str(write(tmp_path, a_record(), "good.json")))
    assert status == 0 and "Imported" in stdout, stderr
