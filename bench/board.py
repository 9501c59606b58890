"""The cost of drawing the board: rendering the board partial (games/partials/board.html, the map
of games/words/board_map.py with its tracks, the players, the cards) for a seat, as the game page and its
partials do (number localisation off), at positions of complete random 5-player games.

Each timing is the best of --repeat renders at that position, so that a stray pause of a shared
machine does not count; the median and the worst over the positions are printed.
Run: .venv/bin/python bench/board.py [--games N] [--repeat N]
"""

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "elgrande_site.settings")

import django  # noqa: E402

django.setup()

from django.template.loader import render_to_string  # noqa: E402

from games.engine import apply_move, new_game, random_move, to_act, view_for  # noqa: E402


def render(view):
    context = {"view": view, "partial": "games/partials/board.html"}
    return render_to_string("games/partials/unlocalized.html", context)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--every", type=int, default=10, help="measure every Nth position")
    args = parser.parse_args()
    timings = []
    for seed in range(1, args.games + 1):
        state = new_game(num_players=5, seed=seed)
        rng = random.Random(seed)
        moves = 0
        while not state.is_over:
            if moves % args.every == 0:
                view = view_for(state, to_act(state)[0])
                render(view)  # the first render of a layout fills the caches, as on a running site
                best = float("inf")
                for _ in range(args.repeat):
                    start = time.perf_counter()
                    render(view)
                    best = min(best, time.perf_counter() - start)
                timings.append(best)
            seat = to_act(state)[0]
            state = apply_move(state, seat, random_move(state, seat, rng))
            moves += 1
    print(f"board partial render, {len(timings)} positions of {args.games} games (5 players):")
    print(f"  median {statistics.median(timings) * 1000:.2f} ms, worst {max(timings) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
