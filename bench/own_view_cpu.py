"""CPU in one process of a seat's new view reaching its page: fetched over HTTP (the play partial
through Django's test client: session, middleware, view) against made by the socket's process
(games/live/own_views.py `make_frame`: the reader authenticated from the socket's session, the
same view, rendered without the view cache as a seat's frame always is, gzipped into a frame, and
its seen mark written after, as the socket's consumer does).

Plays a 4-player game 60 moves on a scratch SQLite file (never db.sqlite3), then times this
process's CPU (time.process_time) for seat 0's view: rendered (the view cache cleared and the
seat's seen version put back before each, as after another seat's move) and, fetched, from the cache. Prints
the mean of each, min / median / max over `--runs` rounds. Run from the repository root:
.venv/bin/python bench/own_view_cpu.py
"""

import argparse
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
    parser.add_argument("--requests", type=int, default=30, help="views per figure and round")
    parser.add_argument("--runs", type=int, default=3, help="rounds")
    args = parser.parse_args()
    scratch = set_up_scratch()
    from django.core.cache import cache
    from django.middleware.csrf import _get_new_csrf_string
    from django.test import Client
    from django.urls import reverse

    from games.live import own_views
    from games.models import Seat
    from games.reading import play_view

    try:
        users, game, rng = played_game(60)
        reader = game.seats.get(index=0)
        client = Client()
        client.force_login(reader.user)
        secret = _get_new_csrf_string()
        client.cookies["csrftoken"] = secret
        cookie = f"sessionid={client.cookies['sessionid'].value}; csrftoken={secret}".encode()
        scope = {"type": "websocket", "path": f"/ws/games/{game.pk}/", "query_string": b"play=gzip&lang=en",
                 "headers": [(b"host", b"testserver"), (b"cookie", cookie)]}
        path = reverse("game_partial", args=[game.pk, "play"])
        seen = reader.seen_version

        def fetch():
            response = client.get(path, HTTP_HX_REQUEST="true")
            assert response.status_code == 200

        def frame():
            made = own_views.make_frame(scope, reader.user_id, "en", game.pk)
            assert made is not None and "frame" in made, made
            if made["seen"] is not None:
                play_view.seen(made["seen"])

        def cpu(make, rendered):
            total = 0.0
            for _ in range(args.requests):
                if rendered:
                    cache.clear()
                Seat.objects.filter(pk=reader.pk).update(seen_version=seen)
                started = time.process_time()
                make()
                total += time.process_time() - started
            return total / args.requests

        figures = {}
        for _ in range(args.runs):
            for name, make in (("fetched", fetch), ("frame", frame)):
                for rendered in (True, False) if name == "fetched" else (True,):
                    make()  # warm
                    figures.setdefault((name, rendered), []).append(cpu(make, rendered))
        print(f"seat 0's view, 4 players, 60 moves in; CPU ms, min / median / max of {args.runs} rounds "
              f"of {args.requests}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for (name, rendered), values in figures.items():
            label = f"{'fetched over HTTP' if name == 'fetched' else 'frame by the socket'}, " + (
                "rendered" if rendered else "from the cache")
            spread = (min(values), statistics.median(values), max(values))
            print(f"{label:<42} " + " / ".join(f"{v * 1000:.1f}" for v in spread))
    finally:
        os.unlink(scratch)


if __name__ == "__main__":
    main()
