"""A game is imported once: a record is identified by its options, seed and moves as the
vocabulary's data (games/moves/move_shapes.py), so the same game with a field too many anywhere, or its
keys written in another order, is refused as the game it is and counted once in the statistics;
and a field the record format does not have is refused by name."""

import json

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from django.urls import reverse

from games.models import Game, Move, Result
from games.reading import statistics
from games.records import game_records
from tests.support.helpers import play
from tests.support.records import a_record

pytestmark = pytest.mark.django_db


def imported(tmp_path, record, name="record.json"):
    path = tmp_path / name
    path.write_bytes(record if isinstance(record, bytes) else json.dumps(record).encode())
    call_command("import_game", str(path))


def refused(tmp_path, record, *words):
    path = tmp_path / "again.json"
    path.write_bytes(record if isinstance(record, bytes) else json.dumps(record).encode())
    with pytest.raises(CommandError) as refusal:
        call_command("import_game", str(path))
    for word in words:
        assert word in str(refusal.value), str(refusal.value)
    return str(refusal.value)


def reordered(value):
    """`value` with the keys of every object in reverse order (JSON says the order means nothing)."""
    if isinstance(value, dict):
        return {key: reordered(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [reordered(item) for item in value]
    return value


def a_move_with(record, kind):
    return next(entry for entry in record["moves"] if entry["move"]["type"] == kind)


def test_the_same_game_with_more_in_it_or_keys_in_another_order_is_refused_and_counted_once(tmp_path):
    imported(tmp_path, a_record())
    first = Game.objects.get()
    already = f"already imported, as game {first.pk}"

    extra_in_a_move = a_record()
    a_move_with(extra_in_a_move, "place")["move"]["card"] = 99
    refused(tmp_path, extra_in_a_move, already)

    extra_at_the_top = a_record()
    extra_at_the_top["comment"] = "the same game"
    refused(tmp_path, extra_at_the_top, already)

    extra_in_a_player = a_record()
    extra_in_a_player["players"][0]["rating"] = 1500
    refused(tmp_path, extra_in_a_player, already)

    # Keys reversed everywhere; the counts of a placement too ({"aragon": 2, "castillo": 1}).
    data = json.dumps(reordered(a_record())).encode()
    assert data != json.dumps(a_record()).encode()
    refused(tmp_path, data, already)

    assert Game.objects.count() == 1
    assert Result.objects.count() == 3
    assert statistics.compute()["games"] == 1


@pytest.mark.parametrize(
    ("spoil", "words"),
    [
        (lambda r: a_move_with(r, "place")["move"].update(card=99), ["Move ", "'card'", "may not have"]),
        (lambda r: a_move_with(r, "bid")["move"].update(note=10**20), ["Move ", "'note'"]),
        (lambda r: a_move_with(r, "special")["move"].update(junk=[[[]]]), ["Move ", "'junk'"]),
        (lambda r: r["moves"][0].update(comment="x"), ["Move 1 has unknown fields: 'comment'"]),
        (lambda r: r["players"][1].update(rating=1500), ["Player 2 has unknown fields: 'rating'"]),
        (lambda r: r.update(comment="x"), ["The record has unknown fields: 'comment'"]),
    ],
)
def test_a_new_game_with_an_unknown_field_anywhere_is_refused_by_name(tmp_path, spoil, words):
    record = a_record()
    spoil(record)
    refused(tmp_path, record, *words, "Nothing was stored.")
    assert not Game.objects.exists()


def test_a_special_move_may_hold_only_its_own_cards_fields(tmp_path):
    """"region" is a field of some cards' special moves: on a card that does not read it, it is
    unknown (the engine would ignore it), and a record holding it is refused."""
    record = a_record()
    entry = next(
        entry for entry in record["moves"] if entry["move"]["type"] == "special" and "region" not in entry["move"]
    )
    entry["move"]["region"] = "aragon"
    refused(tmp_path, record, "'region'", "may not have")
    assert not Game.objects.exists()


def test_a_record_of_a_game_played_here_is_refused(tmp_path, start_game, finish_game, client):
    game = finish_game(start_game(3, seed=21, short_game=True))
    game.refresh_from_db()
    record = client.get(reverse("game_record", args=[game.pk])).json()
    record["comment"] = "the same game"
    refused(tmp_path, record, f"played here, as game {game.pk}")
    assert Game.objects.count() == 1 and statistics.compute()["games"] == 1


def test_a_game_played_here_with_the_same_seed_but_other_moves_does_not_stop_an_import(tmp_path, start_game):
    record = a_record()
    game = start_game(3, seed=record["seed"], short_game=True)
    play(game, moves=10)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    imported(tmp_path, record)
    assert Game.objects.filter(imported=True).count() == 1


MIGRATION = __import__("games.migrations.0018_record_identity", fromlist=["identify_imported_games"])


def stored_with_junk(game):
    """Give a move of `game` a field the engine ignores, and the game the digest the old code gave
    such a game (of the moves as written). Returns the moves as stored and the old digest."""
    move = Move.objects.filter(game=game, move__type="place").order_by("version").first()
    move.move = {**move.move, "card": 99}
    move.save(update_fields=["move"])
    moves = [(row.seat.index, row.move) for row in Move.objects.filter(game=game).order_by("version")]
    old = _old_digest(options_of(game), game.seed, moves)
    Game.objects.filter(pk=game.pk).update(record_digest=old)
    return moves, old


def options_of(game):
    return {key: getattr(game, key) for key in ("num_players", "short_game", "veto", "show_castillo")}


def test_the_migration_gives_a_game_imported_with_junk_the_digest_of_its_game(tmp_path):
    imported(tmp_path, a_record())
    game = Game.objects.get()
    moves, old = stored_with_junk(game)
    refused_before = Game.objects.filter(record_digest=game_records.digest(options_of(game), game.seed, moves))
    assert not refused_before.exists()

    MIGRATION.identify_imported_games(apps, None)

    game.refresh_from_db()
    assert game.record_digest == game_records.digest(options_of(game), game.seed, moves) != old
    refused(tmp_path, a_record(), f"already imported, as game {game.pk}")
    assert Game.objects.count() == 1


def test_the_migration_leaves_a_game_imported_twice_its_own_digest(tmp_path):
    """The same game imported a second time with junk in it, as the old digest let happen: its
    digest cannot be the first one's (the index is unique), so it keeps its own."""
    imported(tmp_path, a_record())
    first = Game.objects.get()
    digest = first.record_digest
    Game.objects.filter(pk=first.pk).update(record_digest="0" * 64)
    imported(tmp_path, a_record())
    second = Game.objects.exclude(pk=first.pk).get()
    _, old = stored_with_junk(second)
    Game.objects.filter(pk=first.pk).update(record_digest=digest)

    MIGRATION.identify_imported_games(apps, None)

    assert list(Game.objects.order_by("pk").values_list("record_digest", flat=True)) == [digest, old]


def _old_digest(engine_options, seed, seat_moves):
    """The digest as it was before the moves were reduced to their shape."""
    import hashlib

    import orjson

    data = {"options": engine_options, "seed": seed, "moves": seat_moves}
    return hashlib.sha256(orjson.dumps(data, option=orjson.OPT_SORT_KEYS)).hexdigest()
