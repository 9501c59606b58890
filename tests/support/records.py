"""Game records made with the engine alone, for the tests of reading and importing them."""

import copy
import random
from datetime import UTC, datetime, timedelta

from games.engine import apply_move, new_game, random_move, to_act
from games.engine.rounds import final_ranking
from games.records.game_records import FORMAT, VERSION

START = datetime(2024, 5, 1, 18, 0, tzinfo=UTC)


def engine_record(num_players=3, seed=11, short_game=True, veto=True, show_castillo=False, names=None):
    """The record of a whole game of random legal moves, as this site would export it."""
    state = new_game(num_players=num_players, seed=seed, short_game=short_game, veto=veto, show_castillo=show_castillo)
    colours = list(state.colours)
    rng = random.Random(seed)
    moves = []
    version = num_players - 1
    while not state.is_over:
        seat = to_act(state)[0]
        move = random_move(state, seat, rng)
        state = apply_move(state, seat, move)
        version += 1
        moves.append({
            "version": version,
            "seat": seat,
            "move": move,
            "time": (START + timedelta(minutes=version)).isoformat().replace("+00:00", "Z"),
            "automatic": version % 7 == 0,
        })
    names = names or ["Ana", "Bernardo", "Carmen", "Diego", "Elena"][:num_players]
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": {"id": 1, "url": "https://elgrande.example/games/1/", "rated": True, "imported": False,
                 "started_at": START.isoformat(), "finished_at": moves[-1]["time"]},
        "options": {"num_players": num_players, "short_game": short_game, "veto": veto,
                    "show_castillo": show_castillo, "time_per_move": 86400},
        "seed": seed,
        "players": [{"seat": seat, "name": name, "colour": colours[seat]} for seat, name in enumerate(names)],
        "moves": moves,
        "scores": list(state.scores),
        "ranking": final_ranking(state),
    }


RECORD = engine_record()


def a_record():
    """A fresh copy of a valid record, for a test to spoil."""
    return copy.deepcopy(RECORD)
