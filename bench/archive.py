"""Time the archive, the lobby and a profile over a big archive of finished games.

Fills a scratch database (never the one DATABASE_URL names: a `<name>_archive_bench` copy made
with Django's test-database machinery on PostgreSQL, a temporary file on SQLite) with `--games`
finished games in bulk: players drawn from a pool of `--users` with a long tail (a few play
thousands of games, most a few dozen), 2 to 5 players, 9 or 6 rounds, veto cards or not, rated or
not, some private, finished over three years; with each seat's `Result` row (place, score, home
region, cards taken) as a finished game has. One player also sits in `--running` running games
and there are `--open` open games, for the lobby. The games carry no stored state: no list reads
it.

Then asks, through Django's test client in this one process, for the archive's first page and
each filter, a page deep in the past, the JSON list, the lobby and a profile, `--repeat` times
each, and prints for each the median and p95 time, the queries a request made, and PostgreSQL's
plan of each query (EXPLAIN ANALYZE: the scans and the index each uses). Last, the time to compute
the statistics page's figures. Run from the repository root:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/h_archive .venv/bin/python bench/archive.py [--games 100000]
"""

import argparse
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# SQLite's scratch file when kept (--keep) for a later --reuse.
KEPT_SQLITE = Path(tempfile.gettempdir()) / "elgrande-archive-bench.sqlite3"
SIZES = {2: 0.15, 3: 0.30, 4: 0.35, 5: 0.20}
FIRST = datetime(2023, 1, 1, tzinfo=UTC)
SPAN = timedelta(days=3 * 365)


def fill(args, rng):
    from django.db import connection

    from accounts.models import User
    from games.engine.board import COLOURS, REGIONS
    from games.engine.cards import CARDS, KING_CARD
    from games.models import Game, Result, Seat

    users = User.objects.bulk_create(
        [User(username=f"player{i}", email=f"player{i}@example.org", password="!") for i in range(args.users)],
        batch_size=2000,
    )
    # A long tail: the i-th player plays in proportion to 1 / (i + 1) ** 0.6.
    weights = [1 / (rank + 1) ** 0.6 for rank in range(len(users))]
    cumulative = list(_accumulate(weights))
    cards = sorted(card for card in CARDS if card != KING_CARD)
    sizes, size_weights = list(SIZES), list(SIZES.values())
    creator = users[0]
    made = 0
    while made < args.games:
        batch = min(2000, args.games - made)
        games, people = [], []
        for _ in range(batch):
            num_players = rng.choices(sizes, size_weights)[0]
            players = set()
            while len(players) < num_players:
                players.add(rng.choices(range(len(users)), cum_weights=cumulative)[0])
            players = [users[index] for index in players]
            rng.shuffle(players)
            short_game = rng.random() < 0.3
            scores = [rng.randrange(40, 130 if short_game else 180) for _ in players]
            order = sorted(range(num_players), key=lambda seat: -scores[seat])
            standings = []
            for position, seat in enumerate(order):
                shared = position and scores[seat] == scores[order[position - 1]]
                standings.append([standings[-1][0] if shared else position + 1, seat, scores[seat]])
            finished_at = FIRST + SPAN * rng.random()
            homes = rng.sample(REGIONS, num_players)
            first_bidder = rng.randrange(num_players)
            games.append(Game(
                creator=creator, num_players=num_players, seed=rng.randrange(2**31), short_game=short_game,
                veto=rng.random() < 0.85, rated=rng.random() < 0.5, private=rng.random() < 0.03,
                status=Game.Status.FINISHED, version=200, round=6 if short_game else 9,
                colours=list(COLOURS[:num_players]), standings=standings, to_act=[],
                first_events=[{"event": "setup", "round": 0, "colours": list(COLOURS[:num_players]),
                               "homes": homes, "king": "new_castile", "first_bidder": first_bidder}],
                started_at=finished_at - timedelta(days=20), finished_at=finished_at,
            ))
            people.append((players, standings, homes, first_bidder, 6 if short_game else 9))
        created = Game.objects.bulk_create(games)
        seats, results = [], []
        for game, (players, standings, homes, first_bidder, rounds) in zip(created, people):
            for index, user in enumerate(players):
                seats.append(Seat(game=game, user=user, index=index))
            for place, seat, score in standings:
                results.append(Result(
                    game=game, user=players[seat], seat=seat, place=place, score=score,
                    position=(seat - first_bidder) % game.num_players, home=homes[seat],
                    cards=[rng.choice(cards + [KING_CARD]) for _ in range(rounds)],
                    finished_at=game.finished_at, num_players=game.num_players, short_game=game.short_game,
                    veto=game.veto, rated=game.rated, private=game.private,
                ))
        Seat.objects.bulk_create(seats, batch_size=5000)
        Result.objects.bulk_create(results, batch_size=5000)
        made += batch
    heavy = users[0]
    _lobby_games(args, rng, users, heavy)
    if connection.vendor == "postgresql":
        # As autovacuum would have by now: the statistics, and the visibility map that lets an
        # index-only scan skip the table; the fill's pages written out.
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
            cursor.execute("CHECKPOINT")
    return users


def _lobby_games(args, rng, users, heavy):
    """`--running` running games with `heavy` in each, and `--open` open games of others."""
    from games.engine.board import COLOURS
    from games.models import Game, Seat

    now = datetime.now(UTC)
    running = Game.objects.bulk_create([
        Game(creator=users[1], num_players=3, seed=i, status=Game.Status.ACTIVE, version=50, round=4,
             colours=list(COLOURS[:3]), to_act=[i % 3], standings=[], started_at=now - timedelta(hours=i),
             deadline=now + timedelta(days=1))
        for i in range(args.running)
    ])
    Seat.objects.bulk_create([
        Seat(game=game, user=user, index=index)
        for game in running
        for index, user in enumerate([heavy, *rng.sample(users[1:], 2)])
    ])
    waiting = Game.objects.bulk_create([
        Game(creator=users[2], num_players=4, seed=i, status=Game.Status.OPEN) for i in range(args.open)
    ])
    Seat.objects.bulk_create([Seat(game=game, user=rng.choice(users[1:])) for game in waiting])


def _accumulate(values):
    total = 0.0
    for value in values:
        total += value
        yield total


LOGIN = "log-in page (baseline)"
JSON = "JSON, 100 games"


def scenarios(users):
    from django.db.models import Count

    from games.models import Game, Result
    from games.reading.keyset import Cursor

    ranked = list(
        Result.objects.values("user__username").annotate(games=Count("pk")).order_by("-games").values_list(
            "user__username", "games"
        )
    )
    heavy, second, median = ranked[0], ranked[1], ranked[len(ranked) // 2]
    public = Game.objects.filter(status="finished", private=False)
    deep = public.order_by("finished_at", "id").values_list("finished_at", "id")[public.count() // 10]
    deep_cursor = Cursor(deep[0], deep[1]).token()
    month = {"since": "2024-06-01", "until": "2024-06-30"}
    return [
        # The baseline that archive.json is compared with, in the same run.
        (LOGIN, None, "/accounts/login/", {}),
        ("first page", None, "/archive/", {}),
        ("first page, logged in", heavy[0], "/archive/", {}),
        (f"player with most games ({heavy[1]})", None, "/archive/", {"player": heavy[0]}),
        (f"median player ({median[1]} games)", None, "/archive/", {"player": median[0]}),
        ("the two busiest players against each other", None, "/archive/", {"player": heavy[0], "against": second[0]}),
        ("busiest against a median player", None, "/archive/", {"player": heavy[0], "against": median[0]}),
        ("2 players", None, "/archive/", {"players": "2"}),
        ("6 rounds", None, "/archive/", {"rounds": "6"}),
        ("no veto", None, "/archive/", {"veto": "no"}),
        ("rated", None, "/archive/", {"rated": "yes"}),
        ("a month", None, "/archive/", month),
        ("rare: 2 players, 6 rounds, no veto, rated", None, "/archive/",
         {"players": "2", "rounds": "6", "veto": "no", "rated": "yes"}),
        ("busiest player, rare options", None, "/archive/",
         {"player": heavy[0], "players": "2", "rounds": "6", "veto": "no", "rated": "yes"}),
        ("busiest player, logged in as himself, a month", heavy[0], "/archive/", {"player": heavy[0], **month}),
        ("a page 90% of the way back", None, "/archive/", {"after": deep_cursor}),
        ("a page 90% back, 5 players, logged in", heavy[0], "/archive/", {"after": deep_cursor, "players": "5"}),
        (JSON, None, "/archive.json", {"limit": "100"}),
        ("JSON, busiest player, rated", None, "/archive.json", {"player": heavy[0], "rated": "yes"}),
        ("lobby, logged in", "player0", "/", {}),
        ("lobby, logged out", None, "/", {}),
        (f"profile of the busiest player ({heavy[0]})", None, f"/players/{heavy[0]}/", {}),
    ]


def _profile(name, client, path, query, times):
    """cProfile `times` requests of one scenario; print the functions taking the most CPU time
    (this process's: what a loaded machine's waiting for a CPU, or for the database, leaves out)."""
    import cProfile
    import pstats

    profile = cProfile.Profile(time.process_time)
    profile.enable()
    for _ in range(times):
        client.get(path, query)
    profile.disable()
    print(f"--- cProfile of {times} requests (CPU time of this process): {name}")
    pstats.Stats(profile, stream=sys.stdout).sort_stats("cumulative").print_stats(40)
    pstats.Stats(profile, stream=sys.stdout).sort_stats("tottime").print_stats(25)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="finished games")
    parser.add_argument("--users", type=int, default=2_000, help="players in the pool")
    parser.add_argument("--running", type=int, default=280, help="running games the lobby's player sits in")
    parser.add_argument("--open", type=int, default=300, help="open games")
    parser.add_argument("--repeat", type=int, default=60, help="requests per scenario")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true",
                        help="leave the filled scratch database (SQLite: the file KEPT_SQLITE) for a later --reuse")
    parser.add_argument("--reuse", action="store_true",
                        help="time the scratch database a --keep run left, without filling it again")
    parser.add_argument("--only", default="",
                        help="only the scenarios whose name contains this, or one of these separated by commas "
                             "(and the log-in page)")
    parser.add_argument("--profile", default="",
                        help="cProfile the first scenario whose name contains this; print its top functions")
    args = parser.parse_args()

    scratch = None
    if not os.environ.get("DATABASE_URL") and (args.keep or args.reuse):
        if args.reuse and not KEPT_SQLITE.exists():
            parser.error(f"--reuse: no {KEPT_SQLITE} kept by a --keep run")
        if args.keep:
            # With its WAL and shared-memory files: a stale WAL left by a run that was stopped
            # would be replayed onto the new file (settings.py puts SQLite in WAL mode).
            for path in (KEPT_SQLITE, KEPT_SQLITE.with_name(KEPT_SQLITE.name + "-wal"),
                         KEPT_SQLITE.with_name(KEPT_SQLITE.name + "-shm")):
                path.unlink(missing_ok=True)
        os.environ["DATABASE_URL"] = f"sqlite:///{KEPT_SQLITE}"
    elif not os.environ.get("DATABASE_URL"):
        scratch = tempfile.TemporaryDirectory(prefix="archive-bench-")
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch.name}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "elgrande_site.settings")
    # As in production: templates cached once loaded, no debug bookkeeping.
    os.environ["DEBUG"] = "0"
    os.environ.setdefault("SECRET_KEY", "bench-only-not-a-secret")
    os.environ.setdefault("SITE_URL", "http://localhost")  # DEBUG=0 wants it; no mail leaves
    # DEBUG=0 pages name the static files by their hashed names: collected first (docs/operations.md).
    os.environ.setdefault("STATIC_ROOT", tempfile.mkdtemp(prefix="archive-bench-static-"))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)
    try:
        from elgrande_site import collector
    except ImportError:  # a tree from before it
        collector = None
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from accounts.models import User
    from games.reading import statistics as game_statistics

    if connection.vendor == "sqlite":
        call_command("migrate", verbosity=0)
    elif args.reuse:
        # The copy a --keep run filled: the same games, timed again (another tree's code, say).
        connection.close()
        connection.settings_dict["NAME"] = f"{connection.settings_dict['NAME']}_archive_bench"
    else:
        connection.settings_dict["TEST"]["NAME"] = f"{connection.settings_dict['NAME']}_archive_bench"
        connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        started = time.perf_counter()
        if args.reuse:
            users = list(User.objects.order_by("pk"))
            print(f"{connection.vendor}: reusing {connection.settings_dict['NAME']}")
        else:
            users = fill(args, random.Random(args.seed))
        print(f"{connection.vendor}: {args.games} finished games of {len(users)} players, {args.running} running "
              f"games of one player, {args.open} open games; filled in {time.perf_counter() - started:.0f} s")
        if collector is not None:
            # As a web process does once started (GC_TUNING=0: as Python sets it).
            collector.tune()
        print(f"cycle collector thresholds {gc.get_threshold()}, {gc.get_freeze_count()} objects frozen; "
              f"load average (1, 5, 15 min): {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
        # CPU: this process's own time per request, which other loads on the machine inflate less.
        print(f"{'request':<58} {'median':>8} {'p95':>8} {'CPU':>8} {'queries':>8}")
        plans = []
        worst, worst_name, p95s = 0.0, "", {}
        profiled = False
        for name, username, path, query in scenarios(users):
            if args.only and name != LOGIN and not any(part in name for part in args.only.split(",")):
                continue
            client = Client()
            if username:
                client.force_login(User.objects.get(username=username))
            for _ in range(3):
                assert client.get(path, query).status_code == 200, (name, path, query)
            times, cpu = [], []
            for _ in range(args.repeat):
                started, cpu_started = time.perf_counter(), time.process_time()
                client.get(path, query)
                times.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - cpu_started) * 1000)
            with CaptureQueriesContext(connection) as captured:
                client.get(path, query)
            if args.profile and args.profile in name and not profiled:
                profiled = True
                _profile(name, client, path, query, args.repeat)
            statements = [q["sql"] for q in captured.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]
            p95 = statistics.quantiles(times, n=20)[-1]
            p95s[name] = p95
            if path.startswith("/archive/") and p95 > worst:
                worst, worst_name = p95, name
            print(f"{name:<58} {statistics.median(times):>6.1f}ms {p95:>6.1f}ms {statistics.median(cpu):>6.1f}ms "
                  f"{len(statements):>8}")
            plans.append((name, statements))
        print(f"worst archive page p95: {worst:.1f} ms ({worst_name}; goal < 50 ms)")
        if JSON in p95s:
            print(f"archive.json (100 games) p95 {p95s[JSON]:.1f} ms / log-in page p95 {p95s[LOGIN]:.1f} ms: "
                  f"{p95s[JSON] / p95s[LOGIN]:.2f}x (goals < 50 ms and <= 2x)")
        if connection.vendor == "postgresql":
            print("\nplans (EXPLAIN ANALYZE; scans and sorts only):")
            for name, statements in plans:
                print(f"- {name}")
                for sql in statements:
                    if "games_" not in sql:
                        continue
                    with connection.cursor() as cursor:
                        cursor.execute(f"EXPLAIN ANALYZE {sql}")
                        lines = [line for (line,) in cursor.fetchall()]
                    steps = [
                        line.strip().lstrip("-> ").split("  (")[0]
                        for line in lines
                        if any(word in line for word in ("Scan", "Sort", "Nested Loop", "Hash Join"))
                    ]
                    total = next((line for line in lines if line.startswith("Execution Time")), "")
                    print(f"    {sql.split(' FROM ')[1].split()[0]}: {' / '.join(steps)} ({total.lower()})")
        if not args.only:
            started, cpu_started = time.perf_counter(), time.process_time()
            figures = game_statistics.compute()
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
            print(f"\nstatistics computed in {elapsed:.2f} s ({cpu:.2f} s CPU in this process; "
                  f"{figures['games']} games, {len(figures['cards'])} cards)")
        print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    finally:
        if connection.vendor != "sqlite" and not (args.keep or args.reuse):
            connection.creation.destroy_test_db(connection.settings_dict["NAME"], verbosity=0)
        if scratch is not None:
            scratch.cleanup()


if __name__ == "__main__":
    main()
