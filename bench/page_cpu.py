"""CPU per request in one process: the game page against the log-in page, and a move's POST.

Plays a 4-player game 60 moves on a scratch SQLite file (never db.sqlite3), then asks through
Django's test client, timing this process's CPU (time.process_time): the log-in page (the
baseline), the game page of a seat at one version (from the view cache after the first) and
rendered (the cache cleared before each), the play partial rendered, and `--moves` move POSTs as
htmx sends them: answered with the mover's new view (a page without a socket taking frames), and
answered with a 204, the view coming from the page's socket (static/game.js, games/web/views.py
`move`; that render is the socket's process's, measured by bench/own_view_cpu.py). Prints the
mean of each, min / median / max over `--runs` rounds. Run from the repository root: .venv/bin/python bench/page_cpu.py
"""

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.scratch_game import played_game, set_up_scratch  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=30, help="requests per figure and round")
    parser.add_argument("--moves", type=int, default=20, help="move POSTs per round")
    parser.add_argument("--runs", type=int, default=3, help="rounds")
    args = parser.parse_args()
    scratch = set_up_scratch()
    from django.core.cache import cache
    from django.test import Client
    from django.urls import reverse

    from games.engine import GameState, random_move, to_act

    try:
        users, game, rng = played_game(60)
        # As a web process does once started (elgrande_site/asgi.py); GC_TUNING=0: as Python sets it.
        from elgrande_site import collector

        collector.tune()
        reader, anonymous, movers = Client(), Client(), {}
        reader.force_login(users[0])
        page = reverse("game", args=[game.pk])
        play = reverse("game_partial", args=[game.pk, "play"])

        def cpu(client, path, clear=False):
            client.get(path)
            started = time.process_time()
            for _ in range(args.requests):
                if clear:
                    cache.clear()
                assert client.get(path).status_code == 200
            return (time.process_time() - started) / args.requests

        def moves(headers):
            total = 0.0
            for _ in range(args.moves):
                game.refresh_from_db()
                state = GameState.from_json(game.state)
                seat = to_act(state)[0]
                client = movers.setdefault(seat, Client())
                client.force_login(game.seats.get(index=seat).user)
                body = {"move": json.dumps(random_move(state, seat, rng)), "expected_version": game.version}
                started = time.process_time()
                response = client.post(reverse("move", args=[game.pk]), body, **headers)
                total += time.process_time() - started
                assert response.status_code in (200, 204), response.content[:200]
            return total / args.moves

        figures = {name: [] for name in ("login", "page", "page rendered", "play rendered", "move", "move by socket")}
        for _ in range(args.runs):
            figures["login"].append(cpu(anonymous, "/accounts/login/"))
            figures["page"].append(cpu(reader, page))
            figures["page rendered"].append(cpu(reader, page, clear=True))
            figures["play rendered"].append(cpu(reader, play, clear=True))
            figures["move"].append(moves({"HTTP_HX_REQUEST": "true"}))
            figures["move by socket"].append(moves({"HTTP_HX_REQUEST": "true", "HTTP_X_VIEW_BY_SOCKET": "1"}))

        def spread(values, scale=1000):
            values = [value * scale for value in values]
            return f"{min(values):.1f} / {statistics.median(values):.1f} / {max(values):.1f}"

        print(f"CPU per request in one process (ms, min / median / max of {args.runs} rounds; "
              f"load average {' '.join(f'{load:.2f}' for load in os.getloadavg())}; "
              f"cycle collector thresholds {gc.get_threshold()}, {gc.get_freeze_count()} objects frozen)")
        print(f"log-in page (baseline)        {spread(figures['login'])}")
        print(f"game page of a seat           {spread(figures['page'])}")
        print(f"game page, rendered each time {spread(figures['page rendered'])}")
        print(f"play partial, rendered        {spread(figures['play rendered'])}")
        print(f"move POST (htmx)              {spread(figures['move'])} (answered with the view)")
        print(f"move POST, view by its socket {spread(figures['move by socket'])} (goal <= 10 ms)")
        ratios = [page / login for page, login in zip(figures["page"], figures["login"], strict=True)]
        print(f"game page / log-in page       {spread(ratios, 1)} x (goal <= 1.5x)")
        # The goal of 10 ms was set when the log-in page took 3.3-4.0 ms: this ratio is the POST's
        # figure on a faster or slower machine (bench/README.md, the twelfth pass).
        ratios = [move / login for move, login in zip(figures["move by socket"], figures["login"], strict=True)]
        print(f"move POST by socket / log-in  {spread(ratios, 1)} x")
    finally:
        os.unlink(scratch)


if __name__ == "__main__":
    main()
