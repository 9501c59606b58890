"""Time one deadline sweep over many running games, some of them overdue.

Fills a scratch database (never the one DATABASE_URL names: a `<name>_sweep_bench` copy made with
Django's test-database machinery on PostgreSQL, a temporary file on SQLite) with `--games`
running games in bulk, `--overdue` of them past their deadline, each in one of a few real
positions played by the engine (bids, turns, secret choices, veto windows, early and late in the
game). Then runs `games.deadlines.sweep()` once (in this one process) and prints how long it
took, how much of that was its mail step (reminders, retries), how many games it moved, and the
queries it made per game. Run from the repository root:

    .venv/bin/python bench/sweep.py [--games 10000] [--overdue 1000]
"""

import argparse
import os
import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Moves into the game at which the positions are taken, for a spread of phases and sizes.
DEPTHS = (3, 12, 30, 45, 70, 95, 120, 150)


def positions(rng):
    """(num_players, seed, state, moves played) for a few positions reached by random play."""
    from games.engine import apply_move, new_game, random_move, to_act

    found = []
    for index, depth in enumerate(DEPTHS):
        num_players = 2 + index % 4
        seed = rng.randrange(2**31)
        state = new_game(num_players=num_players, seed=seed)
        played = 0
        while played < depth and not state.is_over:
            seat = to_act(state)[0]
            state = apply_move(state, seat, random_move(state, seat, rng))
            played += 1
        if not state.is_over:
            found.append((num_players, seed, state, played))
    return found


def fill(num_games, num_overdue, rng):
    from django.db import connection
    from django.utils import timezone

    from accounts.models import User
    from games.engine import to_act
    from games.models import Game, Seat

    users = [User.objects.create_user(f"bench{i}", f"bench{i}@example.org", "x") for i in range(5)]
    choices = positions(rng)
    now = timezone.now()
    overdue = set(rng.sample(range(num_games), num_overdue))
    games = []
    for index in range(num_games):
        num_players, seed, state, played = rng.choice(choices)
        late = index in overdue
        games.append(Game(
            creator=users[0], num_players=num_players, seed=seed, time_per_move=86400,
            status=Game.Status.ACTIVE, state=state.to_json(), version=played + 1,
            to_act=to_act(state), round=state.round, colours=list(state.colours),
            deadline=now + timedelta(seconds=rng.uniform(-86400, -1) if late else rng.uniform(60, 7 * 86400)),
            started_at=now - timedelta(days=3),
        ))
    created = []
    for start in range(0, len(games), 500):
        created += Game.objects.bulk_create(games[start:start + 500])
    Seat.objects.bulk_create(
        [Seat(game=game, user=users[i], index=i) for game in created for i in range(game.num_players)],
        batch_size=2000,
    )
    if connection.vendor == "postgresql":
        # As autovacuum would have by now on a site that grew to this size; and the fill's pages
        # written out, as they long would be, so that the sweep does not wait on their checkpoint.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
            cursor.execute("CHECKPOINT")
    return len(choices)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="running games")
    parser.add_argument("--overdue", type=int, default=1_000, help="of which past their deadline")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not 0 <= args.overdue <= args.games:
        parser.error("--overdue must be between 0 and --games")

    scratch = None
    if not os.environ.get("DATABASE_URL"):
        scratch = tempfile.TemporaryDirectory(prefix="sweep-bench-")
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch.name}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "elgrande_site.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from games import deadlines, notifications
    from games.models import Move

    settings.DEBUG = False
    if connection.vendor == "sqlite":
        call_command("migrate", verbosity=0)
    else:
        connection.settings_dict["TEST"]["NAME"] = f"{connection.settings_dict['NAME']}_sweep_bench"
        connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        started = time.perf_counter()
        num_positions = fill(args.games, args.overdue, random.Random(args.seed))
        print(f"{connection.vendor}: {args.games} running games ({num_positions} positions), "
              f"{args.overdue} overdue, filled in {time.perf_counter() - started:.1f} s")
        plan = deadlines.overdue_games(timezone.now()).explain()
        print("overdue query plan:", " / ".join(line.strip() for line in plan.splitlines()))

        # The sweep's second step, the mails due (reminders, retries), timed on its own: in this
        # bench nobody has a verified address, and every reminder due is recorded as passed over.
        mail_step = []
        mail_sweep = notifications.sweep

        def timed_mail_sweep(now):
            started = time.perf_counter()
            try:
                return mail_sweep(now)
            finally:
                mail_step.append(time.perf_counter() - started)

        notifications.sweep = timed_mail_sweep
        with CaptureQueriesContext(connection) as captured:
            started, cpu = time.perf_counter(), time.process_time()
            moved = deadlines.sweep()
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        moves = Move.objects.filter(automatic=True).count()
        # BEGIN and COMMIT show up as queries with the PostgreSQL pool; they are not statements.
        statements = [q for q in captured.captured_queries if not q["sql"].startswith(("BEGIN", "COMMIT"))]
        database = sum(float(q["time"]) for q in captured.captured_queries)
        per_game = (len(statements) - 1) / moved if moved else float("nan")
        print(f"one sweep in one process: {elapsed:.2f} s for {moved} games moved ({moves} default moves), "
              f"of which {sum(mail_step):.2f} s for its mail step: "
              f"{elapsed / max(moved, 1) * 1000:.2f} ms per game, of which {cpu / max(moved, 1) * 1000:.2f} ms "
              f"CPU in this process and {database / max(moved, 1) * 1000:.2f} ms waiting for the database")
        print(f"queries: {len(statements)} statements in all, {per_game:.2f} per game after the one "
              f"listing them (plus BEGIN/COMMIT)")
        started = time.perf_counter()
        assert deadlines.sweep() == 0
        print(f"the next sweep, nothing overdue: {(time.perf_counter() - started) * 1000:.1f} ms")
        print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    finally:
        if connection.vendor != "sqlite":
            connection.creation.destroy_test_db(connection.settings_dict["NAME"], verbosity=0)
        if scratch is not None:
            scratch.cleanup()


if __name__ == "__main__":
    main()
