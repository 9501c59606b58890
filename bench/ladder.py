"""Time the ladders at scale: the ladder pages, a profile's ratings, rating a finished game and
rebuilding every rating.

Fills a scratch database (never the one DATABASE_URL names: a `<name>_ladder_bench` copy made
with Django's test-database machinery on PostgreSQL, a temporary file on SQLite) with `--games`
finished rated games of 2 to 5 players among `--active` players, rates them all with
`manage.py rebuild_ratings`'s code (timed), then puts the other players of `--players` on the
"all games" ladder. Then requests, through Django's test client as a logged-in player ranked
about the middle, the first, a middle and the last page of that ladder and the profile of the
busiest player, `--repeat` times each, and prints p50/p95, the queries of each page and the plan
of each query. Run from the repository root:

    .venv/bin/python bench/ladder.py [--players 100000] [--active 2000] [--games 20000]
"""

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def fill(args, rng):
    """Users, finished rated games with their seats and standings; returns the users."""
    from django.utils import timezone

    from accounts.models import User
    from games.models import Game, Seat

    users = User.objects.bulk_create(
        [User(username=f"hidalgo{number}", email=f"hidalgo{number}@example.org") for number in range(args.players)],
        batch_size=5000,
    )
    active = users[:args.active]
    start = timezone.now() - timedelta(days=365)
    games, seats = [], []
    for number in range(args.games):
        size = rng.randint(2, 5)
        scores = sorted((rng.randint(20, 120) for _ in range(size)), reverse=True)
        standings, place = [], 1
        for index, score in enumerate(scores):
            place = place if index and score == scores[index - 1] else index + 1
            standings.append([place, index, score])
        games.append(Game(
            creator=active[0], num_players=size, seed=number, rated=True, status=Game.Status.FINISHED,
            standings=standings, round=9, finished_at=start + timedelta(minutes=number * 20),
        ))
    created = []
    for begin in range(0, len(games), 2000):
        created += Game.objects.bulk_create(games[begin:begin + 2000])
    for game in created:
        for index, user in enumerate(rng.sample(active, game.num_players)):
            seats.append(Seat(game=game, user=user, index=index))
    Seat.objects.bulk_create(seats, batch_size=5000)
    return users


def timed(function, repeat):
    """(p50, p95) in milliseconds of `repeat` calls, and the last result."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[max(0, round(0.95 * len(times)) - 1)], result


def plans(captured, connection):
    """The plan of every SELECT captured, each on one line."""
    lines = []
    with connection.cursor() as cursor:
        for query in captured:
            sql = query["sql"]
            if not sql.startswith("SELECT") or "django_session" in sql:
                continue
            if connection.vendor == "postgresql":
                cursor.execute(f"EXPLAIN {sql}")
                plan = " / ".join(row[0].strip() for row in cursor.fetchall())
            else:
                cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
                plan = " / ".join(row[-1] for row in cursor.fetchall())
            lines.append(f"    {float(query['time']) * 1000:.1f} ms: {sql[:90]}…\n      -> {plan[:400]}")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100_000, help="players on the all-games ladder")
    parser.add_argument("--active", type=int, default=2_000, help="of which play the rated games")
    parser.add_argument("--games", type=int, default=20_000, help="finished rated games")
    parser.add_argument("--repeat", type=int, default=40, help="requests per page timed")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not 5 <= args.active <= args.players:
        parser.error("--active must be between 5 and --players")

    scratch = None
    if not os.environ.get("DATABASE_URL"):
        scratch = tempfile.TemporaryDirectory(prefix="ladder-bench-")
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch.name}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "elgrande_site.settings")
    import django

    django.setup()
    from django.apps import apps
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse
    from django.utils import timezone

    from games.models import Game, Seat
    from ratings import rating
    from ratings.models import Ladder, Rating, RatingChange
    from ratings.selectors import PER_PAGE

    settings.DEBUG = False
    if connection.vendor == "sqlite":
        call_command("migrate", verbosity=0)
    else:
        connection.settings_dict["TEST"]["NAME"] = f"{connection.settings_dict['NAME']}_ladder_bench"
        connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        rng = random.Random(args.seed)
        started = time.perf_counter()
        users = fill(args, rng)
        print(f"{connection.vendor}: {args.players} players, {args.games} finished rated games among "
              f"{args.active} of them, filled in {time.perf_counter() - started:.1f} s")

        started, cpu = time.perf_counter(), time.process_time()
        ratings, changes = rating.replace_all(apps)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(f"rebuild_ratings: {elapsed:.1f} s ({cpu:.1f} s CPU in this process) for {args.games} games: "
              f"{ratings} ratings, {changes} rating changes; {args.games / elapsed:.0f} games per second")
        started = time.perf_counter()
        assert rating.differences(apps) == []
        print(f"rebuild_ratings --check: {time.perf_counter() - started:.1f} s, no difference")

        # The players who never played a rated game here stand on the ladder all the same, with
        # ratings spread like the active ones'.
        spread = list(Rating.objects.filter(ladder=Ladder.ALL).values_list("mu", "sigma"))
        fillers = []
        for user in users[args.active:]:
            mu, sigma = rng.choice(spread)
            mu += rng.uniform(-0.5, 0.5)
            fillers.append(Rating(user=user, ladder=Ladder.ALL, mu=mu, sigma=sigma, ordinal=mu - 3 * sigma,
                                  games=rng.randint(1, 50), last_game_at=timezone.now()))
        Rating.objects.bulk_create(fillers, batch_size=5000)
        if connection.vendor == "postgresql":
            # As autovacuum would have by now: statistics, and the visibility map that lets the
            # ladder's index answer alone.
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE")
                cursor.execute("CHECKPOINT")

        everyone = Rating.objects.filter(ladder=Ladder.ALL).order_by("-ordinal", "user_id")
        size = everyone.count()
        middle = everyone[size // 2]
        viewer = middle.user
        client = Client()
        client.force_login(viewer)
        last_page = (size - 1) // PER_PAGE + 1
        print(f"ladder 'all games': {size} players, {last_page} pages; the viewer ranks about {size // 2 + 1}")
        for name, page in [("first page", 1), ("middle page", last_page // 2), ("last page", last_page)]:
            url = f"{reverse('ladders')}?page={page}"
            p50, p95, response = timed(lambda url=url: client.get(url), args.repeat)
            assert response.status_code == 200
            with CaptureQueriesContext(connection) as captured:
                client.get(url)
            database = sum(float(query["time"]) for query in captured.captured_queries) * 1000
            print(f"  {name} (logged in): p50 {p50:.1f} ms, p95 {p95:.1f} ms, {len(captured)} queries "
                  f"({database:.1f} ms of database time in one request)")
            if page == last_page // 2:
                print("\n".join(plans(captured.captured_queries, connection)))

        busiest = max(users[:args.active], key=lambda user: RatingChange.objects.filter(user=user).count())
        games = Rating.objects.get(user=busiest, ladder=Ladder.ALL).games
        url = busiest.get_absolute_url()
        p50, p95, response = timed(lambda: client.get(url), max(5, args.repeat // 4))
        assert response.status_code == 200
        with CaptureQueriesContext(connection) as captured:
            client.get(url)
        database = sum(float(query["time"]) for query in captured.captured_queries) * 1000
        print(f"profile of a player with {games} rated games: p50 {p50:.1f} ms, p95 {p95:.1f} ms, "
              f"{len(captured)} queries ({database:.1f} ms of database time in one request)")

        # Rating one more finished game, as the transaction that finishes it does (rolled back).
        players = rng.sample(users[:args.active], 4)
        game = Game.objects.create(
            creator=players[0], num_players=4, seed=0, rated=True, round=9, status=Game.Status.FINISHED,
            standings=[[1, 0, 90], [2, 1, 80], [3, 2, 70], [4, 3, 60]],
        )
        Seat.objects.bulk_create([Seat(game=game, user=user, index=index) for index, user in enumerate(players)])
        seats = {seat.index: seat for seat in Seat.objects.filter(game=game)}

        def rate_once():
            with transaction.atomic():
                game.finished_at = timezone.now()
                with CaptureQueriesContext(connection) as captured:
                    rating.rate_finished_game(game, seats)
                transaction.set_rollback(True)
            return len(captured)

        p50, p95, queries = timed(rate_once, args.repeat)
        print(f"rating a finished 4-player game: p50 {p50:.1f} ms, p95 {p95:.1f} ms, {queries} queries")
        print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    finally:
        if connection.vendor != "sqlite":
            connection.creation.destroy_test_db(connection.settings_dict["NAME"], verbosity=0)
        if scratch is not None:
            scratch.cleanup()


if __name__ == "__main__":
    main()
