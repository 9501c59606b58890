"""The stored state's size and the cost of saving and loading it on the site's move path.

Plays complete 9-round 5-player random games and, at every position, measures:

- the stored state's size: bytes of json.dumps(state.to_json()) (goal: under 8 KB everywhere);
- to_json + from_json of that state (goal: under 100 µs everywhere; max and p99 printed);
- per move, what the site does around the engine (games/play/services.py and the state's model field,
  games/fields.py): load (decode the stored text, GameState.from_json), then save (to_json, encode
  the state and the move's events for its Move row), against the engine's own apply_move, as a
  ratio (goal: at most 3); with the site's codec (games/infra/json_codec.py, orjson) and, for
  comparison, with Python's json module, which Django's JSONField uses.

Each timing is the best of --repeat runs at that point, so that a stray pause of a shared machine
does not count as the state's cost. Run: .venv/bin/python bench/state.py [--games N]
"""

import argparse
import json
import os
import random
import sys
import time
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.engine import GameState, apply_move, new_game, random_move, to_act  # noqa: E402
from games.infra import json_codec  # noqa: E402

CODECS = {"site (games.infra.json_codec)": json_codec, "Python's json": json}

KB = 1024
GOAL_SIZE = 8 * KB
GOAL_ROUND_TRIP = 100e-6
GOAL_RATIO = 3.0


def best_of(repeat, work):
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def round_trip(state):
    return GameState.from_json(state.to_json())


def measure_game(seed, repeat, figures):
    rng = random.Random(seed)
    state = new_game(5, seed=seed)
    stored = json.dumps(state.to_json())
    while True:
        figures["size"].append((len(stored.encode()), state.round, state.phase))
        figures["round_trip"].append((best_of(repeat, partial(round_trip, state)), state.round, state.phase))
        if state.is_over:
            return
        seat = rng.choice(to_act(state))
        move = random_move(state, seat, rng)
        decoded = json.loads(stored)
        before = GameState.from_json(decoded)
        after = apply_move(before, seat, move)
        data = after.to_json()
        text = json.dumps(data)
        parts = {
            "from_json": best_of(repeat, partial(GameState.from_json, decoded)),
            "apply_move": best_of(repeat, partial(apply_move, before, seat, move)),
            "to_json": best_of(repeat, after.to_json),
        }
        for name, codec in CODECS.items():
            parts[(name, "decode state")] = best_of(repeat, partial(codec.loads, stored))
            parts[(name, "encode state")] = best_of(repeat, partial(codec.dumps, data))
            parts[(name, "encode events")] = best_of(repeat, partial(codec.dumps, after.events))
        figures["moves"].append(parts)
        state, stored = after, text


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def verdict(ok):
    return "ok" if ok else "MISSED"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10, help="complete 5-player games to measure")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (the best counts)")
    args = parser.parse_args()
    figures = {"size": [], "round_trip": [], "moves": []}
    for seed in range(args.games):
        measure_game(seed, args.repeat, figures)

    sizes = figures["size"]
    biggest = max(sizes)
    print(f"positions measured: {len(sizes)} in {args.games} games of 5 players, 9 rounds")
    print(
        f"stored state: max {biggest[0]} bytes (round {biggest[1]}, {biggest[2]}), "
        f"p50 {percentile([s for s, _r, _p in sizes], 0.5)} bytes; "
        f"goal < {GOAL_SIZE}: {verdict(biggest[0] < GOAL_SIZE)}"
    )
    trips = figures["round_trip"]
    slowest = max(trips)
    times = [t for t, _r, _p in trips]
    print(
        f"to_json+from_json: max {slowest[0] * 1e6:.1f} µs (round {slowest[1]}, {slowest[2]}), "
        f"p99 {percentile(times, 0.99) * 1e6:.1f} µs, p50 {percentile(times, 0.5) * 1e6:.1f} µs; "
        f"goal < 100 µs everywhere: {verdict(slowest[0] < GOAL_ROUND_TRIP)}"
    )
    moves = figures["moves"]
    totals = {part: sum(m[part] for m in moves) for part in moves[0]}
    engine = totals["apply_move"]
    print(f"per move, mean over {len(moves)} moves (and as a multiple of apply_move):")
    for part in ("apply_move", "from_json", "to_json"):
        print(f"  {part:<40} {totals[part] / len(moves) * 1e6:7.1f} µs  {totals[part] / engine:5.2f}x")
    for name in CODECS:
        for step in ("decode state", "encode state", "encode events"):
            total = totals[(name, step)]
            print(f"  {name + ': ' + step:<40} {total / len(moves) * 1e6:7.1f} µs  {total / engine:5.2f}x")
    for name in CODECS:
        parts = ["from_json", "to_json"] + [(name, step) for step in ("decode state", "encode state", "encode events")]
        site = sum(totals[part] for part in parts)
        per_move = sorted(sum(m[part] for part in parts) / m["apply_move"] for m in moves)
        print(
            f"save+load / apply_move with {name}: {site / engine:.2f} over all moves "
            f"(per move p50 {percentile(per_move, 0.5):.2f}, p99 {percentile(per_move, 0.99):.2f}); "
            f"goal <= {GOAL_RATIO:g}: {verdict(site / engine <= GOAL_RATIO)}"
        )


if __name__ == "__main__":
    main()
