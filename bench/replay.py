"""The replay's speed: how long the game page takes to show one position of a finished game.

Plays finished 9-round games of 5 players through games.play (random moves), then asks for
every position of each, in a random order, as a spectator would: the whole page (GET
/games/<id>/?at=N) and the replay area that the controls swap in (the partial). The first request
of a game plays it through once and stores its snapshots; it is reported apart. For comparison, it
also prints what rebuilding a position from the seed alone costs (no snapshot), and the step back
of a player in a running game (his own seat's view, the snapshots followed round by round).

Requests go through Django's test client in this process: the view, its queries and the templates,
without a network. Each is timed on the wall clock and in this thread's CPU time: on a machine
shared with other work the wall clock counts the waits for a core too, the CPU time does not (with
SQLite it includes the database's work, which runs in this thread; with PostgreSQL it does not).
Uses DATABASE_URL if set, else a scratch SQLite file. Run from the repository root:

    .venv/bin/python bench/replay.py [--games 3] [--players 5]
"""

import argparse
import functools
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def report(name, timings):
    """One line: how many, then p50, p95 and max of the wall-clock times and p50, p95 of the CPU
    times (this thread's), in milliseconds."""
    wall = [value * 1000 for value, _ in timings]
    cpu = [value * 1000 for _, value in timings]
    print(
        f"{name:<44} {len(wall):>6} {statistics.median(wall):>8.1f} {percentile(wall, 0.95):>8.1f} "
        f"{max(wall):>8.1f} {statistics.median(cpu):>8.1f} {percentile(cpu, 0.95):>8.1f}"
    )


def clocked(work):
    """(wall-clock seconds, CPU seconds of this thread) that `work()` took."""
    wall, cpu = time.perf_counter(), time.thread_time()
    work()
    return time.perf_counter() - wall, time.thread_time() - cpu


def play_game(num_players, rng, moves=None, run=""):
    """A game of `num_players` played with random moves: to its end, or `moves` moves."""
    from accounts.models import User
    from games.engine import GameState, random_move, to_act
    from games.play import lifecycle, moving

    users = [User.objects.create_user(f"replay-{run}-{rng.random():.12f}-{seat}") for seat in range(num_players)]
    game = lifecycle.create_game(users[0], num_players=num_players, time_per_move=604800)
    for user in users[1:]:
        game = lifecycle.join_game(game, user=user)
    by_index = {seat.index: seat.user for seat in game.seats.all()}
    made = 0
    state = GameState.from_json(game.state)
    while not state.is_over and (moves is None or made < moves):
        seat = to_act(state)[0]
        game = moving.submit_move(
            game, user=by_index[seat], move=random_move(state, seat, rng), expected_version=game.version
        )
        state = GameState.from_json(game.state)
        made += 1
    return game, made


def timed(client, url, headers=None):
    def get():
        response = client.get(url, **(headers or {}))
        if response.status_code != 200:
            raise SystemExit(f"{url} answered {response.status_code}")

    return clocked(get)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=3, help="finished games whose every position is shown")
    parser.add_argument("--players", type=int, default=5, help="players per game")
    args = parser.parse_args()

    scratch = None
    if "DATABASE_URL" not in os.environ:
        scratch = tempfile.NamedTemporaryFile(prefix="elgrande-bench-replay-", suffix=".sqlite3", delete=False)
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch.name}"
    os.environ.setdefault("DEBUG", "0")
    os.environ.setdefault("SECRET_KEY", "bench-replay-" + "x" * 40)
    # DEBUG=0 pages name the static files by their hashed names: collected first (docs/operations.md).
    os.environ.setdefault("STATIC_ROOT", tempfile.mkdtemp(prefix="elgrande-bench-static-"))
    os.environ.setdefault("SITE_URL", "http://localhost")  # DEBUG=0 wants it too; no mail leaves
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "elgrande_site.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    if not settings.DEBUG:
        call_command("collectstatic", interactive=False, verbosity=0)
    from django.test import Client
    from django.urls import reverse

    from games.models import Move
    from games.play import moving

    try:
        call_command("migrate", verbosity=0)
        rng = random.Random(2026)
        run = f"{time.time_ns():x}"[-8:]
        print(
            f"database {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}, {args.games} finished games "
            f"of {args.players} players, 9 rounds, {os.cpu_count()} CPUs"
        )
        games = [play_game(args.players, rng, run=run)[0] for _ in range(args.games)]
        moves = {game.pk: Move.objects.filter(game=game).count() for game in games}
        print(f"positions per game: {', '.join(str(count + 1) for count in moves.values())}")
        print(f"{'':<44} {'':>6} {'wall-clock time':^26} {'CPU time':^17}")
        print(f"{'':<44} {'count':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'p50 ms':>8} {'p95 ms':>8}")

        client = Client()
        first, pages, partials, from_seed = [], [], [], []
        for game in games:
            page = reverse("game", args=[game.pk])
            partial = reverse("game_partial", args=[game.pk, "replay"])
            first.append(timed(client, f"{page}?at=1"))
            positions = list(range(moves[game.pk] + 1))
            rng.shuffle(positions)
            for at in positions:
                pages.append(timed(client, f"{page}?at={at}"))
                partials.append(timed(client, f"{partial}?at={at}", {"HTTP_HX_REQUEST": "true"}))
            for at in positions[:40]:
                version = Move.objects.filter(game=game).order_by("version")[at - 1].version if at else 0
                from_seed.append(clocked(functools.partial(moving.replay, game, upto=version)))
        report("first replay of a game (stores snapshots)", first)
        report("replay page, any position", pages)
        report("replay area (partial), any position", partials)
        report("position from the seed alone (no snapshot)", from_seed)

        running, made = play_game(args.players, rng, moves=150, run=run)
        player = Client()
        player.force_login(running.seats.get(index=0).user)
        page = reverse("game", args=[running.pk])
        player.get(f"{page}?back=1")
        back = [timed(player, f"{page}?back={steps}") for steps in range(1, made + 1)]
        report("running game, a player steps back", back)
    finally:
        if scratch is not None:
            os.unlink(scratch.name)


if __name__ == "__main__":
    main()
