"""Engine speed: complete random games through the public contract.

Prints complete games per second for 2, 3, 4 and 5 players (9 rounds, veto on), moves per game,
and apply_move's p50 and p99 latency. Games per second count this process's CPU time (one core),
so that other load on the machine does not; they are measured on games played without a timer
around each move (reading the CPU clock costs a system call, several µs here). The latencies come
from a second pass that times each apply_move on the wall clock.
Run: .venv/bin/python bench/engine.py [--seconds N]
"""

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.engine import apply_move, new_game, random_move, to_act  # noqa: E402


def play(num_players, seed, rng, latencies=None):
    """One complete random game; with `latencies`, each apply_move is timed into it."""
    state = new_game(num_players, seed=seed)
    moves = 0
    while not state.is_over:
        seat = rng.choice(to_act(state))
        move = random_move(state, seat, rng)
        if latencies is None:
            state = apply_move(state, seat, move)
        else:
            started = time.perf_counter()
            state = apply_move(state, seat, move)
            latencies.append(time.perf_counter() - started)
        moves += 1
    return moves


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent per player count")
    args = parser.parse_args()
    rng = random.Random(2026)
    print(f"{'players':>7} {'games/s':>9} {'moves/game':>11} {'apply p50 µs':>13} {'apply p99 µs':>13}")
    for num_players in (2, 3, 4, 5):
        games = moves = 0
        started = time.process_time()
        while time.process_time() - started < args.seconds:
            moves += play(num_players, seed=games, rng=rng)
            games += 1
        elapsed = time.process_time() - started
        latencies = []
        for seed in range(games, games + max(1, games // 4)):
            play(num_players, seed=seed, rng=rng, latencies=latencies)
        print(
            f"{num_players:>7} {games / elapsed:>9.1f} {moves / games:>11.1f} "
            f"{percentile(latencies, 0.5) * 1e6:>13.1f} {percentile(latencies, 0.99) * 1e6:>13.1f}"
        )


if __name__ == "__main__":
    main()
