"""Game records: a finished game as one JSON document, to keep, to analyse, or to import.

The format is documented in docs/game-records.md. A record holds the seed, which decides
every hidden thing of the game (the order of the stacks, what was dealt), and every move, secret
choices included: it is served only for a finished game, and a private game's only to its players
(`may_read`).

`import_record` reads a record strictly: it replays every move with the engine and refuses, with a
`RecordError` and nothing stored, a record that is not exactly a finished game scoring what it
claims. (games/records/old_logs.py is something else: the conversion of games stored before the events.)
"""

import hashlib
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NamedTuple

import orjson
from django.conf import settings
from django.utils.translation import gettext

from games.engine import IllegalMove, apply_move, new_game
from games.engine.rounds import final_ranking
from games.infra import json_codec
from games.models import TIME_PER_MOVE_CHOICES, Game, Seat
from games.moves import move_shapes
from games.play import imports
from games.play.errors import Conflict
from games.words.refusals import refusal_message

FORMAT = "El Grande game record"
VERSION = 1
# A whole 9-round game of five is some 30 KB (a few hundred moves): ample room, bounded work.
MAX_BYTES = 4 * 1024 * 1024
MAX_NAME_LENGTH = Seat._meta.get_field("name").max_length
# Move.version is a PostgreSQL integer; Game.seed a bigint, and the site draws seeds below 2**62.
MAX_VERSION = 2**31 - 1
MAX_SEED = 2**63 - 1
# The deepest a record goes is a move's plan of steps: record, moves, move, plan, step, "to", pair.
MAX_DEPTH = 12

TOP_KEYS = {"format", "version", "game", "options", "seed", "players", "moves", "scores", "ranking"}
REQUIRED_TOP_KEYS = TOP_KEYS - {"game", "ranking"}
GAME_KEYS = {"id", "url", "rated", "imported", "started_at", "finished_at"}
OPTION_KEYS = {"num_players", "short_game", "veto", "show_castillo", "time_per_move"}
PLAYER_KEYS = {"seat", "name", "colour"}
MOVE_KEYS = {"version", "seat", "move", "time", "automatic"}
TIMES_PER_MOVE = {seconds for seconds, _ in TIME_PER_MOVE_CHOICES}


class RecordError(ValueError):
    """A record that cannot be imported; the message says why, for the person importing it."""


# Serving records


def may_read(game, user):
    """Only a finished game has a record to show: before the end its seed and moves would reveal
    what the players may not see yet. A private game's record is for the players seated in it
    (not for others who may watch it through its invitation link)."""
    if game.status != Game.Status.FINISHED:
        return False
    if not game.private:
        return True
    return user.is_authenticated and any(seat.user_id == user.pk for seat in game.seats.all())


def header(game):
    """Everything in the record of `game` but its moves. The seats must be prefetched with their
    users (`record_queryset`)."""
    seats = sorted(game.seats.all(), key=lambda seat: seat.index)
    ranking = [[place, seat] for place, seat, _ in game.standings]
    scores = {seat: score for _, seat, score in game.standings}
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": {
            "id": game.pk,
            "url": settings.SITE_URL.rstrip("/") + game.get_absolute_url(),
            "rated": game.rated,
            "imported": game.imported,
            "started_at": _time(game.started_at),
            "finished_at": _time(game.finished_at),
        },
        "options": {
            "num_players": game.num_players,
            "short_game": game.short_game,
            "veto": game.veto,
            "show_castillo": game.show_castillo,
            "time_per_move": game.time_per_move,
        },
        "seed": game.seed,
        "players": [
            {"seat": seat.index, "name": seat.display_name, "colour": game.colours[seat.index]} for seat in seats
        ],
        "scores": [scores[seat.index] for seat in seats],
        "ranking": ranking,
    }


def moves(game, after=0, limit=None):
    """The record's moves of `game` made after version `after`, oldest first, at most `limit`.
    Each move as its shape (move_shapes.canonical): moves stored before they were cleaned may
    hold fields the engine ignored, some of which no JSON writer takes (numbers beyond 64 bits)."""
    index_of = {seat.pk: seat.index for seat in game.seats.all()}
    rows = (
        game.moves.filter(version__gt=after)
        .order_by("version")
        .values_list("version", "seat_id", "move", "created_at", "automatic")
    )
    if limit is not None:
        rows = rows[:limit]
    return [
        {
            "version": version,
            "seat": index_of[seat_id],
            "move": move_shapes.canonical(move),
            "time": _time(time),
            "automatic": automatic,
        }
        for version, seat_id, move, time, automatic in rows
    ]


def export(game):
    """The whole record of a finished `game` (prefetched as `record_queryset` gives it)."""
    return {**header(game), "moves": moves(game)}


def record_queryset():
    return Game.objects.defer("state", "first_events").prefetch_related("seats__user")


def _time(moment):
    """A time in the record: ISO 8601 in UTC, to the microsecond, so that it comes back exact."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


# Reading records


class RecordedMove(NamedTuple):
    """One move of a record, with the events and round the engine gave it on replay."""

    version: int
    seat: int
    move: dict
    time: datetime
    automatic: bool
    events: list
    round: int


@dataclass
class Replayed:
    """A record read and replayed: what `imports.store_imported_game` stores."""

    options: dict
    time_per_move: int
    seed: int
    names: list
    moves: list  # of RecordedMove
    state: object
    first_events: list
    started_at: datetime
    finished_at: datetime
    digest: str


def import_record(data):
    """Store the record in `data` (bytes) as a finished, imported game, and return it; or raise
    RecordError (or Conflict, for a game stored already) and store nothing.

    A game stored already, imported or played here, is refused first, whatever else the record
    carries: a record of it with a field too many is still that game, not a new one to count
    again in the statistics."""
    record = decode(data)
    refuse_stored_game(record)
    return imports.store_imported_game(replay(check(record)))


def refuse_stored_game(record):
    """Raise Conflict when the decoded `record` is of a game stored here already: one
    imported, found by its digest (a unique index); or one played here, found by its seed and
    options (an index), then its moves."""
    found = identity(record)
    if found is None:
        return
    options, seed, record_digest = found
    imports.refuse_imported_again(record_digest)
    played = Game.objects.filter(status=Game.Status.FINISHED, imported=False, seed=seed, **options)
    for game in played.only("pk"):
        seat_moves = game.moves.order_by("version").values_list("seat__index", "move")
        if digest(options, seed, seat_moves) == record_digest:
            raise Conflict(
                gettext("This game was played here, as game %(number)s: it cannot be imported.") % {"number": game.pk}
            )


def read(data):
    """Check the bytes of a record and replay it. Returns a `Replayed`; raises RecordError."""
    return replay(parse(data))


def parse(data):
    """The record in `data` (bytes) as checked plain data: every field present, of its type and
    in its range. Whether the moves are legal and score as claimed is `replay`'s business."""
    return check(decode(data))


def decode(data):
    """The JSON of the bytes `data`, within the size and depth of a record, without NUL."""
    if len(data) > MAX_BYTES:
        raise RecordError(f"This file is too large for a game record (more than {MAX_BYTES // 1024 // 1024} MB).")
    if b"\x00" in data:
        raise RecordError("This file contains a NUL byte: it is not a game record.")
    try:
        record = json_codec.loads(data)
    except json_codec.DecodeError as error:
        raise RecordError(f"This file is not valid JSON (UTF-8): {error}.") from None
    _check_strings_and_depth(record)
    return record


def check(record):
    """The decoded `record` checked (`parse`); unknown fields, anywhere, are refused by name."""
    _check_object(record, "The record", TOP_KEYS, REQUIRED_TOP_KEYS)
    if record["format"] != FORMAT:
        raise RecordError(f'This is not an El Grande game record: its "format" should be "{FORMAT}".')
    if record["version"] != VERSION or isinstance(record["version"], bool):
        raise RecordError(
            f"This record is of format version {record['version']!r}; this site reads version {VERSION}."
        )
    if "game" in record:
        _check_game(record["game"])
    _check_options(record["options"])
    num_players = record["options"]["num_players"]
    seed = record["seed"]
    if not _integer(seed) or not 0 <= seed <= MAX_SEED:
        raise RecordError(f'"seed" must be a whole number from 0 to {MAX_SEED}.')
    _check_players(record["players"], num_players)
    _check_moves(record["moves"], num_players)
    scores = record["scores"]
    if not isinstance(scores, list) or len(scores) != num_players or not all(_integer(s) for s in scores):
        raise RecordError(f'"scores" must list {num_players} whole numbers, one per seat.')
    if "ranking" in record and not _is_ranking(record["ranking"], num_players):
        raise RecordError(f'"ranking" must list [place, seat] pairs for the {num_players} seats.')
    return record


def replay(record):
    """Replay a parsed record with the engine: every move must be legal, the game must end with
    the last one, and the final scores (and ranking, colours, if given) must be those claimed."""
    options = record["options"]
    engine_options = {key: options[key] for key in ("num_players", "short_game", "veto", "show_castillo")}
    state = new_game(seed=record["seed"], **engine_options)
    first_events = state.events
    replayed = []
    for number, entry in enumerate(record["moves"], start=1):
        where = f"Move {number} (version {entry['version']}, seat {entry['seat']})"
        if state.is_over:
            raise RecordError(f"{where} comes after the end of the game.")
        try:
            # The fields of a special move are those of the card being played, and no others.
            if entry["move"].get("type") == "special":
                move_shapes.clean(entry["move"], move_shapes.special_action(state, entry["seat"]))
        except move_shapes.BadShape as error:
            raise RecordError(f"{where}: {error}") from None
        try:
            state = apply_move(state, entry["seat"], entry["move"])
        except IllegalMove as error:
            raise RecordError(f"{where} is illegal: {refusal_message(error)}") from None
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            # The engine validates moves itself; this is a malformed move it did not foresee.
            raise RecordError(f"{where} is malformed: {entry['move']!r:.200}") from None
        replayed.append(RecordedMove(**entry, events=state.events, round=state.round))
    if not state.is_over:
        raise RecordError(
            f"The record's {len(replayed)} moves stop before the end of the game (round {state.round}, "
            f"phase {state.phase}): only finished games can be imported."
        )
    if list(state.scores) != record["scores"]:
        raise RecordError(
            f"The record claims the final scores {record['scores']}, but its moves replay to {list(state.scores)}."
        )
    if "ranking" in record and record["ranking"] != final_ranking(state):
        raise RecordError(
            f"The record claims the ranking {record['ranking']}, but its moves replay to {final_ranking(state)}."
        )
    for player in record["players"]:
        colour = player.get("colour")
        if colour is not None and colour != state.colours[player["seat"]]:
            raise RecordError(
                f"The record gives seat {player['seat']} the colour {colour!r}, but its seed gives it "
                f"{state.colours[player['seat']]!r}."
            )
    started_at, finished_at = _game_times(record)
    return Replayed(
        options=engine_options,
        time_per_move=options["time_per_move"],
        seed=record["seed"],
        names=[player["name"] for player in record["players"]],
        moves=replayed,
        state=state,
        first_events=first_events,
        started_at=started_at,
        finished_at=finished_at,
        digest=digest(engine_options, record["seed"], [(entry["seat"], entry["move"]) for entry in record["moves"]]),
    )


def digest(engine_options, seed, seat_moves):
    """What identifies a game whoever records it: its options, seed and moves, each move as its
    shape (move_shapes.canonical: fields the engine does not read left out), as JSON with sorted
    keys (so whatever order a writer gave them); not the names, times or where it was played.
    The same game is imported only once."""
    canonical = orjson.dumps(
        {
            "options": engine_options,
            "seed": seed,
            "moves": [(seat, move_shapes.canonical(move)) for seat, move in seat_moves],
        },
        option=orjson.OPT_SORT_KEYS,
    )
    return hashlib.sha256(canonical).hexdigest()


def identity(record):
    """(engine options, seed, digest) of the game a decoded record, not yet checked, holds; None
    when its options, seed or moves are not there, or not of their types, to say which game."""
    try:
        options = {key: record["options"][key] for key in ("num_players", "short_game", "veto", "show_castillo")}
        seed = record["seed"]
        seat_moves = [(entry["seat"], entry["move"]) for entry in record["moves"]]
    except (KeyError, TypeError, AttributeError):
        return None
    if not (
        options["num_players"] in (2, 3, 4, 5)
        and all(isinstance(options[key], bool) for key in ("short_game", "veto", "show_castillo"))
        and _integer(seed)
        and 0 <= seed <= MAX_SEED
        and all(_integer(seat) and 0 <= seat < MAX_VERSION for seat, _ in seat_moves)
    ):
        # Not what a database column holds: the checks (`check`) say what is wrong.
        return None
    return options, seed, digest(options, seed, seat_moves)


def _game_times(record):
    times = [entry["time"] for entry in record["moves"]]
    game = record.get("game", {})
    started_at = game.get("started_at") or times[0]
    finished_at = game.get("finished_at") or times[-1]
    if started_at > finished_at:
        raise RecordError('"game": the game cannot finish ("finished_at") before it started ("started_at").')
    return started_at, finished_at


def _check_object(value, what, allowed, required):
    if not isinstance(value, dict):
        raise RecordError(f"{what} must be a JSON object.")
    missing = sorted(required - value.keys())
    if missing:
        raise RecordError(f"{what} lacks {', '.join(repr(key) for key in missing)}.")
    unknown = sorted(value.keys() - allowed)
    if unknown:
        raise RecordError(f"{what} has unknown fields: {', '.join(repr(key) for key in unknown)}.")


def _check_game(game):
    _check_object(game, '"game"', GAME_KEYS, set())
    if game.get("id") is not None and not _integer(game["id"]):
        raise RecordError('"game": "id" must be a whole number.')
    if "url" in game and not (isinstance(game["url"], str) and len(game["url"]) <= 2000):
        raise RecordError('"game": "url" must be a text of at most 2000 characters.')
    for key in ("rated", "imported"):
        if key in game and not isinstance(game[key], bool):
            raise RecordError(f'"game": "{key}" must be true or false.')
    for key in ("started_at", "finished_at"):
        if game.get(key) is not None:
            game[key] = _parse_time(game[key], f'"game": "{key}"')


def _check_options(options):
    _check_object(options, '"options"', OPTION_KEYS, OPTION_KEYS)
    num_players = options["num_players"]
    if not _integer(num_players) or not 2 <= num_players <= 5:
        raise RecordError(f'"options": "num_players" must be 2, 3, 4 or 5, not {num_players!r}.')
    for key in ("short_game", "veto", "show_castillo"):
        if not isinstance(options[key], bool):
            raise RecordError(f'"options": "{key}" must be true or false, not {options[key]!r}.')
    if not _integer(options["time_per_move"]) or options["time_per_move"] not in TIMES_PER_MOVE:
        choices = ", ".join(str(seconds) for seconds in sorted(TIMES_PER_MOVE))
        raise RecordError(
            f'"options": "time_per_move" must be one of this site\'s times per move in seconds ({choices}), '
            f"not {options['time_per_move']!r}."
        )


def _check_players(players, num_players):
    if not isinstance(players, list) or len(players) != num_players:
        count = len(players) if isinstance(players, list) else "no list of"
        raise RecordError(f'"players" must list the {num_players} seats of a {num_players}-player game, not {count}.')
    for index, player in enumerate(players):
        _check_object(player, f"Player {index + 1}", PLAYER_KEYS, {"seat", "name"})
        if player["seat"] != index or not _integer(player["seat"]):
            raise RecordError(f'"players" must be in seat order: player {index + 1} should have "seat": {index}.')
        name = player["name"]
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_NAME_LENGTH:
            raise RecordError(f"Seat {index}: the name must be a text of 1 to {MAX_NAME_LENGTH} characters.")
        if any(unicodedata.category(character) == "Cc" for character in name):
            raise RecordError(f"Seat {index}: the name contains a control character.")
        player["name"] = name.strip()
        if "colour" in player and not isinstance(player["colour"], str):
            raise RecordError(f'Seat {index}: "colour" must be a colour name, e.g. "red".')


def _check_moves(moves, num_players):
    if not isinstance(moves, list) or not moves:
        raise RecordError('"moves" must list the moves of the game.')
    previous_version, previous_time = 0, None
    for number, entry in enumerate(moves, start=1):
        what = f"Move {number}"
        _check_object(entry, what, MOVE_KEYS, MOVE_KEYS)
        version = entry["version"]
        if not _integer(version) or not previous_version < version <= MAX_VERSION:
            raise RecordError(
                f'{what}: "version" must be a whole number above the previous move\'s ({previous_version}) '
                f"and at most {MAX_VERSION}."
            )
        if not _integer(entry["seat"]) or not 0 <= entry["seat"] < num_players:
            raise RecordError(f'{what}: "seat" must be a seat of this game, 0 to {num_players - 1}.')
        if not isinstance(entry["move"], dict):
            raise RecordError(f'{what}: "move" must be a JSON object, e.g. {{"type": "bid", "card": 9}}.')
        try:
            # Fields of any card's special move pass here; `replay` allows only the card's own.
            move_shapes.clean(entry["move"])
        except move_shapes.BadShape as error:
            raise RecordError(f"{what}: {error}") from None
        if not isinstance(entry["automatic"], bool):
            raise RecordError(f'{what}: "automatic" must be true or false.')
        entry["time"] = _parse_time(entry["time"], f'{what}: "time"')
        if previous_time is not None and entry["time"] < previous_time:
            raise RecordError(f"{what} is dated before the move that precedes it.")
        previous_version, previous_time = version, entry["time"]


def _parse_time(value, what):
    if not isinstance(value, str) or len(value) > 40:
        raise RecordError(f"{what} must be a time in ISO 8601, e.g. 2024-05-01T18:30:00Z.")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise RecordError(f"{what} must be a time in ISO 8601, e.g. 2024-05-01T18:30:00Z, not {value!r}.") from None
    if moment.tzinfo is None:
        raise RecordError(f"{what} must say its time zone (e.g. end with Z for UTC): {value!r}.")
    try:
        # In UTC, as it is compared and stored: a time at the edge of the calendar with an offset
        # (0001-01-01T00:00:00+01:00) has no UTC date, which compared or stored raised OverflowError.
        return moment.astimezone(UTC)
    except OverflowError:
        raise RecordError(f"{what} is out of the calendar's range once in UTC: {value!r}.") from None


def _is_ranking(ranking, num_players):
    return (
        isinstance(ranking, list)
        and len(ranking) == num_players
        and all(
            isinstance(pair, list) and len(pair) == 2 and all(_integer(number) for number in pair) for pair in ranking
        )
    )


def _integer(value):
    # JSON true and false are Python ints too.
    return isinstance(value, int) and not isinstance(value, bool)


def _check_strings_and_depth(value):
    """Refuse a NUL character in any string of the decoded JSON (PostgreSQL refuses to store it),
    and nesting deeper than a record has (a move's plan is a few levels down), which Python's json
    module, storing the moves, could not write back. Looked at without recursion: orjson reads
    1024 levels deep, more than Python's recursion allows."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if "\x00" in item:
                raise RecordError("This record contains a NUL character (\\u0000) in a string.")
        elif isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                raise RecordError(f"This record is nested more than {MAX_DEPTH} levels deep: it is not a game record.")
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
