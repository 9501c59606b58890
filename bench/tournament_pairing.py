"""Seating a Swiss round (tournaments/pairing.py): CPU seconds per round for fields of several
sizes, with the seating's cost (the most meetings of a pair, the earlier meetings brought
together, the spread of standings at the tables), after rounds of random results.

    .venv/bin/python bench/tournament_pairing.py
"""

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tournaments import pairing  # noqa: E402

FIELDS = [(7, 4), (10, 3), (11, 4), (12, 4), (40, 4), (100, 4), (200, 5)]
ROUNDS = 4


def main():
    print(f"{'players':>7} {'size':>4} {'round':>5} {'seconds':>8}  cost (most, repeats, spread)")
    for count, size in FIELDS:
        rng = random.Random(count)
        players = list(range(count))
        history = pairing.first_round(players, size, None, seed=count)
        played = [pairing.GameResult(
            places={p: i + 1 for i, p in enumerate(table)}, scores={p: rng.randint(40, 120) for p in table})
            for table in history]
        for number in range(2, ROUNDS + 1):
            order = [standing.player for standing in pairing.standings(players, played)]
            started = time.process_time()
            tables = pairing.swiss_round(order, size, history)
            seconds = time.process_time() - started
            cost = pairing._cost(tables, pairing.meetings(history), {p: i for i, p in enumerate(order)})
            print(f"{count:>7} {size:>4} {number:>5} {seconds:>8.3f}  {cost}")
            history += tables
            for table in tables:
                ranked = sorted(table, key=lambda p: rng.random())
                played.append(pairing.GameResult(
                    places={p: i + 1 for i, p in enumerate(ranked)}, scores={p: rng.randint(40, 120) for p in table}))


if __name__ == "__main__":
    main()
