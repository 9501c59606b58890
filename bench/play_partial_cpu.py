"""CPU of a play partial rendered after a move, over fixed positions and every reader, and the bodies.

Plays five 4-player games with fixed seeds to fixed lengths on a scratch SQLite file (never
db.sqlite3); every reader (the four seats and a logged-out spectator) looks at each game before its
last move, as in a game; then each reader's play partial of the new version is fetched through
Django's test client, the view cache cleared and the seat's seen version put back before each, and
this process's CPU (time.process_time) is timed: the first round warms the log's lines, the others
are counted. Prints the mean per render and the median per game and reader; `--breakdown` the CPU
inside the main steps; `--dump FILE` the rendered bodies (with the placeholders of the reader's
token and clock) as JSON, to compare two trees byte for byte: the seeds fix the games, and the
deadlines are set to one date. Run from the repository root (or from a copy of another tree with
this script): .venv/bin/python bench/play_partial_cpu.py
"""

import argparse
import collections
import datetime
import json
import os
import random
import secrets
import statistics
import sys
import time
import types
from pathlib import Path

ROOT = Path.cwd()
sys.path.insert(0, str(ROOT))

from bench.scratch_game import set_up_scratch  # noqa: E402

READERS = [0, 1, 2, 3, None]  # the users' numbers (not their seats: the seed seats them), None a spectator


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds over every game and reader (the first warms)")
    parser.add_argument("--lengths", default="8,30,60,90,130", help="the games' lengths in moves")
    parser.add_argument("--languages", default="en")
    parser.add_argument("--dump", help="write the rendered bodies to this JSON file")
    parser.add_argument("--breakdown", action="store_true", help="CPU inside the main steps")
    args = parser.parse_args()
    scratch = set_up_scratch()
    from django.core.cache import cache
    from django.test import Client
    from django.urls import reverse

    from accounts.models import User
    from games.engine import GameState, random_move, to_act
    from games.models import Game, Seat
    from games.play import lifecycle, moving
    from games.reading import selectors, view_cache

    try:
        users = [User.objects.create_user(f"bench-{n}", password=None) for n in range(4)]
        clients = {None: Client()}
        for number, user in enumerate(users):
            clients[number] = Client()
            clients[number].force_login(user)

        def one_move(game, rng):
            state = GameState.from_json(game.state)
            if not to_act(state):
                return game
            seat = to_act(state)[0]
            user = game.seats.get(index=seat).user
            return moving.submit_move(
                game, user=user, move=random_move(state, seat, rng), expected_version=game.version
            )

        games = []
        real_secrets = lifecycle.secrets
        for number, length in enumerate(int(each) for each in args.lengths.split(",")):
            lifecycle.secrets = types.SimpleNamespace(
                randbelow=lambda _, seed=1000 + number: seed, token_urlsafe=secrets.token_urlsafe,
                compare_digest=secrets.compare_digest)
            game = lifecycle.create_game(users[0], num_players=4, time_per_move=604800)
            lifecycle.secrets = real_secrets
            for user in users[1:]:
                game = lifecycle.join_game(game, user=user)
            rng = random.Random(number)
            for _ in range(length - 1):
                game = one_move(game, rng)
            for reader in READERS:  # every reader saw the version before the last move
                assert clients[reader].get(reverse("game_partial", args=[game.pk, "play"])).status_code == 200
            games.append(one_move(game, rng))
        when = datetime.datetime(2030, 1, 2, 3, 4, tzinfo=datetime.UTC)
        Game.objects.filter(deadline__isnull=False).update(deadline=when)

        bodies, rendering, counting, spent = {}, [None], [False], collections.defaultdict(float)
        real_render = view_cache.render

        def render(template, context, key):
            entry = real_render(template, context, key)
            bodies[rendering[0]] = entry[0]
            return entry

        view_cache.render = render

        def timed(module, name, label):
            function = getattr(module, name)

            def wrapper(*args, **kwargs):
                started = time.process_time()
                try:
                    return function(*args, **kwargs)
                finally:
                    if counting[0]:
                        spent[label] += time.process_time() - started

            setattr(module, name, wrapper)

        if args.breakdown:
            from games.reading import play_view, since_visit
            from games.web import views

            timed(views, "game_for_play", "the game loaded")
            timed(play_view, "game_context", "game_context")
            timed(selectors, "_log", "  the log")
            timed(selectors, "seat_view", "  the seat's view")
            timed(since_visit, "changed_areas", "  the areas changed since")
            timed(selectors, "_mark_new", "  the lines marked new")
            timed(selectors, "mark_seen", "  the seen version stored")
            timed(view_cache, "render_to_string", "the templates")

        languages = args.languages.split(",")
        times = collections.defaultdict(list)
        for round_ in range(args.rounds):
            for game in games:
                path = reverse("game_partial", args=[game.pk, "play"])
                for reader in READERS:
                    for language in languages:
                        if reader is not None:
                            Seat.objects.filter(game=game, user=users[reader]).update(seen_version=game.version - 1)
                        cache.clear()
                        rendering[0] = (game.pk, game.version, reader, language)
                        counting[0] = round_ > 0
                        started = time.process_time()
                        response = clients[reader].get(path, HTTP_ACCEPT_LANGUAGE=language)
                        took = time.process_time() - started
                        assert response.status_code == 200
                        if round_ > 0:
                            times[game.pk, reader, language].append(took)
        counted = [took for each in times.values() for took in each]
        print(f"play partial rendered after a move: {statistics.mean(counted) * 1000:.2f} ms of CPU "
              f"(mean of {len(counted)})")
        for game in games:
            medians = [statistics.median(times[game.pk, reader, language]) * 1000
                       for reader in READERS for language in languages]
            print(f"  game of {game.version} versions, users 0-3 and a spectator: "
                  + " ".join(f"{each:.1f}" for each in medians))
        for label, seconds in spent.items():
            print(f"  {label}: {seconds / len(counted) * 1000:.2f} ms")
        if args.dump:
            Path(args.dump).write_text(json.dumps({repr(key): body for key, body in sorted(bodies.items(), key=repr)}))
    finally:
        os.unlink(scratch)


if __name__ == "__main__":
    main()
