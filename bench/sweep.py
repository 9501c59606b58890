"""Time one deadline sweep over many running games, some of them overdue.

Fills a scratch database (never the one DATABASE_URL names: a `<name>_sweep_bench` copy made with
Django's test-database machinery on PostgreSQL, a temporary file on SQLite) with `--games`
running games in bulk, `--overdue` of them past their deadline, each in one of a few real
positions played by the engine (bids, turns, secret choices, veto windows, early and late in the
game). Then runs one sweep and prints how long it took until every overdue game was moved on.

With REDIS_URL set (and PostgreSQL) the sweep runs as on the site: a real Celery worker is
started on the scratch database with `--workers` processes (by default one per CPU) on a queue of
its own, the sweep task is sent to it, and it sends its batches as tasks that all its processes
share; the time runs from sending the sweep until the worker has reported every task done (and
no overdue game is left), and the bench also prints the CPU the worker's processes used. With
`--workers 0`, or embedded (no REDIS_URL: SQLite, the web process's ticker thread), the sweep runs
in this one process, and the bench prints how much of it was its mail step (reminders,
retries), how many games it moved, and the statements it made per game. Run from the
repository root:

    .venv/bin/python bench/sweep.py [--games 10000] [--overdue 1000] [--workers N]
"""

import argparse
import contextlib
import math
import os
import random
import re
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

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
            deadline=now + timedelta(seconds=rng.uniform(-86400, -1) if late else rng.uniform(3600, 7 * 86400)),
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
    parser.add_argument(
        "--workers", type=int, default=None,
        help="processes of the Celery worker that sweeps (with REDIS_URL; default: one per CPU); 0: sweep in this "
             "process",
    )
    parser.add_argument(
        "--repeat", type=int, default=1,
        help="sweeps, the games put back as they were before each: on a shared machine the time varies from one to "
             "the next",
    )
    args = parser.parse_args()
    if not 0 <= args.overdue <= args.games:
        parser.error("--overdue must be between 0 and --games")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.workers is None:
        args.workers = os.cpu_count() if os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL") else 0
    if args.workers and not (os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL")):
        parser.error("--workers needs a Celery broker: set REDIS_URL and a PostgreSQL DATABASE_URL")

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
    from django.utils import timezone

    from games import deadlines

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
        overdue = saved_overdue()
        times = []
        with Worker(args.workers) if args.workers else contextlib.nullcontext() as worker:
            for run in range(args.repeat):
                if run:
                    put_back(overdue)
                print(f"sweep {run + 1} of {args.repeat}; load average before it (1, 5, 15 min): "
                      "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
                times.append(worker.sweep() if worker else sweep_here())
        if args.repeat > 1:
            print(f"{args.repeat} sweeps: fastest {min(times):.2f} s, median {statistics.median(times):.2f} s, "
                  f"slowest {max(times):.2f} s")
        print("load average after (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    finally:
        if connection.vendor != "sqlite":
            connection.creation.destroy_test_db(connection.settings_dict["NAME"], verbosity=0)
        if scratch is not None:
            scratch.cleanup()


# What a sweep changes in a game.
SWEPT = ("state", "version", "deadline", "to_act", "round", "colours", "standings", "status", "finished_at")


def saved_overdue():
    """The overdue games as the fill made them, for `put_back`."""
    from django.utils import timezone

    from games.models import Game

    return list(Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=timezone.now()).only("id", *SWEPT))


def put_back(games):
    """Undo a sweep: the overdue games, their seats and the mail as the fill left them."""
    from django.db import connection

    from games.models import Game, Move, Notification, Seat

    Move.objects.all().delete()
    Notification.objects.all().delete()
    Seat.objects.update(timeouts=0, autopilot=False)
    Game.objects.bulk_update(games, SWEPT, batch_size=500)
    if connection.vendor == "postgresql":
        # As after the fill: dead rows cleaned up, statistics fresh, the pages written out.
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
            cursor.execute("CHECKPOINT")


def sweep_here():
    """One sweep in this process, as the embedded site's ticker thread runs it. Returns its time."""
    from django.db import connection

    from games import deadlines
    from games.mail import periodic
    from games.models import Move

    # The sweep's second step, the mails due (reminders, retries), timed on its own: in this
    # bench nobody has a verified address, and every reminder due is recorded as passed over.
    mail_step = []
    mail_sweep = periodic.sweep
    # Statements counted, and the time spent in them, by an execute wrapper rather than Django's
    # query log, which would format every statement with its values (SQLite even asks the
    # database to quote them): the count costs next to nothing. The transactions' BEGIN and
    # COMMIT are counted apart (on PostgreSQL the sweep sends them in the pipeline with the
    # games' statements; COMMIT is not an execute on SQLite).
    counts = {"expiries": 0, "mail step": 0, "transaction control": 0}
    step = ["expiries"]
    database = []

    def timed_mail_sweep(now, **due):
        started = time.perf_counter()
        step[0] = "mail step"
        try:
            return mail_sweep(now, **due)
        finally:
            step[0] = "expiries"
            mail_step.append(time.perf_counter() - started)

    def count(execute, sql, params, many, context):
        control = sql.startswith(("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"))
        counts["transaction control" if control else step[0]] += 1
        began = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            database.append(time.perf_counter() - began)

    periodic.sweep = timed_mail_sweep
    try:
        with connection.execute_wrapper(count):
            started, cpu = time.perf_counter(), time.process_time()
            moved = deadlines.sweep()
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        periodic.sweep = mail_sweep
    moves = Move.objects.filter(automatic=True).count()
    batches = math.ceil(moved / deadlines.SWEEP_BATCH)
    print(f"one sweep in one process: {elapsed:.2f} s for {moved} games moved ({moves} default moves), "
          f"of which {sum(mail_step):.2f} s for its mail step: "
          f"{elapsed / max(moved, 1) * 1000:.2f} ms per game, of which {cpu / max(moved, 1) * 1000:.2f} ms "
          f"CPU in this process and {sum(database) / max(moved, 1) * 1000:.2f} ms in statements")
    print(f"statements (one run for many rows counts once): {counts['expiries']} for the expiries, "
          f"{counts['expiries'] / max(moved, 1):.2f} per game ({batches} batches of at most {deadlines.SWEEP_BATCH} "
          f"games, each game in a transaction of its own), {counts['mail step']} for the mail step, and "
          f"{counts['transaction control']} BEGIN or COMMIT")
    # The fixed cost of a sweep, which runs every interval whether games are due or not: it should
    # follow the games due, not all the running games. Its slowest statements are shown, and the
    # plan of the slowest (PostgreSQL).
    statements = []

    def timed(execute, sql, params, many, context):
        began = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            statements.append((time.perf_counter() - began, sql, params))

    # Five of them, as the load of a shared machine varies from one to the next.
    idle = []
    for _ in range(5):
        statements.clear()
        with connection.execute_wrapper(timed):
            started, cpu = time.perf_counter(), time.process_time()
            assert deadlines.sweep() == 0
            idle.append((time.perf_counter() - started, time.process_time() - cpu, len(statements),
                         sum(took for took, _, _ in statements)))
    print("the next sweeps, nothing overdue (5): " + "; ".join(
        f"{wall * 1000:.1f} ms ({cpu * 1000:.1f} ms CPU, {count} statements taking {took * 1000:.1f} ms)"
        for wall, cpu, count, took in idle
    ) + "; the last one's slowest: "
      + "; ".join(f"{took * 1000:.1f} ms {sql[:90]}" for took, sql, _ in sorted(statements, reverse=True)[:3]))
    if connection.vendor == "postgresql" and statements:
        _, sql, params = max(statements, key=lambda statement: statement[0])
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN ANALYZE {sql}", params)
            print("its plan:", " / ".join(row[0].strip() for row in cursor.fetchall()))
    return elapsed


# Lines of the worker's log: a task taken, a task done (how long it ran, what it returned), a task
# dropped because it expired before it could start, a task that failed, a task killed at its time
# limit (its process replaced: it never says "succeeded" nor "raised", and a bench that waited
# only for those two waited for good).
RECEIVED = re.compile(r"Task games\.tasks\.\w+\[([^]]+)\] received")
DONE = re.compile(r"Task (games\.tasks\.\w+)\[([^]]+)\] succeeded in ([0-9.e-]+)s: (\S+)")
DROPPED = re.compile(r"Discarding revoked task: (games\.tasks\.\w+)\[([^]]+)\]")
FAILED = re.compile(r"Task games\.tasks\.\w+\[([^]]+)\] raised")
KILLED = re.compile(r"[Tt]ime limit \([0-9.]+s\) exceeded for games\.tasks\.\w+\[([^]]+)\]")
# The worker's processes append, after each task, the time it spent in statements and how many it
# made (an execute wrapper, as `sweep_here` counts them; the transactions a batch sends in one
# pipeline are timed as psycopg sends them, their answers come with the last).
STATEMENTS = re.compile(r"^statements (\d+) ([0-9.e-]+)$", re.MULTILINE)
# And a line for each database connection they open.
CONNECTED = re.compile(r"^connected$", re.MULTILINE)
WORKER_MAIN = """
import os, time
import elgrande_site.logs as logs
logs.ROUTINE = ()
from celery.signals import task_postrun, task_prerun
from django.db.backends.signals import connection_created
spent = [0, 0.0]
def timed(execute, sql, params, many, context):
    began = time.perf_counter()
    try:
        return execute(sql, params, many, context)
    finally:
        spent[0] += 1
        spent[1] += time.perf_counter() - began
def wrap(sender, connection, **kwargs):
    with open(os.environ["SWEEP_BENCH_STATEMENTS"], "a") as out:
        out.write("connected\\n")
    if timed not in connection.execute_wrappers:
        connection.execute_wrappers.append(timed)
connection_created.connect(wrap, weak=False)
def before(**kwargs):
    spent[:] = [0, 0.0]
def after(**kwargs):
    with open(os.environ["SWEEP_BENCH_STATEMENTS"], "a") as out:
        out.write(f"statements {spent[0]} {spent[1]}\\n")
task_prerun.connect(before, weak=False)
task_postrun.connect(after, weak=False)
from celery.__main__ import main
main()
"""


class Worker:
    """A real Celery worker of `processes` processes on the scratch database, on a queue of its own
    (nothing else in that Redis is taken from it, nor sent to it), for the sweeps as on the site."""

    def __init__(self, processes):
        self.processes = processes
        self.queue = f"sweep-bench-{os.getpid()}"

    def __enter__(self):
        from django.db import connection

        db = connection.settings_dict
        user = quote(db["USER"] or "", safe="") + (f":{quote(db['PASSWORD'], safe='')}" if db["PASSWORD"] else "")
        address = f"{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{quote(db['NAME'])}"
        # As in production (DEBUG=0, which wants a SECRET_KEY); INFO: the worker logs each task
        # taken and done, with what it returned.
        env = {
            **os.environ, "DATABASE_URL": f"postgres://{user}@{address}", "LOG_LEVEL": "INFO", "DEBUG": "0",
            "SECRET_KEY": os.environ.get("SECRET_KEY") or secrets.token_urlsafe(50),
            "SITE_URL": os.environ.get("SITE_URL") or "http://localhost",
        }
        self.log = tempfile.NamedTemporaryFile("w+", prefix="sweep-bench-worker-", suffix=".log")
        self.statements = tempfile.NamedTemporaryFile("w+", prefix="sweep-bench-statements-", suffix=".log")
        env["SWEEP_BENCH_STATEMENTS"] = self.statements.name
        # The lanes of batches follow the worker's processes (the site's default: twice
        # WORKER_CONCURRENCY), unless DEADLINE_SWEEP_LANES says otherwise.
        env["WORKER_CONCURRENCY"] = str(self.processes)
        # The site's log leaves out Celery's lines for each routine sweep (elgrande_site/logs.py),
        # and this bench reads them to know when every sweep it sent is done: its worker keeps them
        # (WORKER_MAIN), and writes down each task's statements.
        self.popen = subprocess.Popen(
            [sys.executable, "-c", WORKER_MAIN, "-A", "elgrande_site", "worker", f"--concurrency={self.processes}",
             "-Q", self.queue, "-n", f"{self.queue}@%h", "--without-gossip", "--without-mingle",
             "--without-heartbeat", "--loglevel=INFO"],
            cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        self.wait_for(lambda: " ready." in self.output(), 120, "the worker to start")
        return self

    def __exit__(self, *exc):
        os.killpg(self.popen.pid, signal.SIGTERM)
        self.popen.wait(60)
        self.log.close()
        self.statements.close()

    def output(self, start=0):
        return Path(self.log.name).read_text()[start:]

    def wait_for(self, predicate, timeout, what, every=0.1):
        end = time.monotonic() + timeout
        while not predicate():
            if self.popen.poll() is not None or time.monotonic() > end:
                raise SystemExit(f"gave up waiting for {what}; the worker's log:\n{self.output()}")
            time.sleep(every)

    def sweep(self):
        """One sweep as Celery beat has it run: sent again every DEADLINE_SWEEP_SECONDS, each
        expiring after that time, until no game that was overdue when it was first sent is left
        and the worker has finished every task it took. Returns that time."""
        from django.conf import settings
        from django.utils import timezone

        from games import deadlines, tasks
        from games.models import Game, Move

        interval = settings.DEADLINE_SWEEP_SECONDS
        start = len(self.output())
        statements_start = len(Path(self.statements.name).read_text())
        cpu = worker_cpu(self.popen.pid)
        started = time.perf_counter()
        now = timezone.now()
        sweeps = []

        def done():
            if time.perf_counter() - started >= len(sweeps) * interval:
                sweeps.append(tasks.sweep_deadlines.apply_async(queue=self.queue, expires=interval).id)
            text = self.output(start)
            finished = {*(found[1] for found in DONE.findall(text)), *(found[1] for found in DROPPED.findall(text)),
                        *FAILED.findall(text), *KILLED.findall(text)}
            # The database is asked only when the worker seems done: this process should take as
            # little as it can of the CPUs the worker's processes share.
            return finished >= {*RECEIVED.findall(text), *sweeps} and not (
                Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=now).exists()
            )

        swept_at, asked = [], [0.0]

        def all_swept():
            # When the last overdue game moved on, apart from when the last task reported: asked
            # every 50 ms, this process taking little of the CPUs the worker's processes share.
            if not swept_at and time.perf_counter() - asked[0] >= 0.05:
                asked[0] = time.perf_counter()
                if not Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=now).exists():
                    swept_at.append(time.perf_counter() - started)
            return bool(swept_at)

        def unfinished():
            text = self.output(start)
            finished = {*(found[1] for found in DONE.findall(text)), *(found[1] for found in DROPPED.findall(text)),
                        *FAILED.findall(text), *KILLED.findall(text)}
            return sorted({*RECEIVED.findall(text), *sweeps} - finished)

        try:
            self.wait_for(lambda: all_swept() & done(), 900, "the sweep's tasks", every=0.005)
        except SystemExit:
            print(f"gave up: tasks never reported done: {unfinished()}; games left overdue: "
                  f"{Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=now).count()}")
            raise
        elapsed = time.perf_counter() - started
        cpu = worker_cpu(self.popen.pid) - cpu
        text = self.output(start)
        reports = DONE.findall(text)
        moved = sum(int(result) for name, _, _, result in reports)
        sweep_tasks = [float(seconds) for name, _, seconds, _ in reports if name.endswith(".sweep_deadlines")]
        batch_tasks = [float(seconds) for name, _, seconds, _ in reports if name.endswith(".expire_deadlines")]
        dropped = DROPPED.findall(text)
        batches_dropped = sum(name.endswith(".expire_deadlines") for name, _ in dropped)
        batches_sent = len(batch_tasks) + batches_dropped + len(
            [task for task in KILLED.findall(text) if task not in {found[1] for found in reports}]
        )
        spent = [(int(count), float(seconds))
                 for count, seconds in STATEMENTS.findall(Path(self.statements.name).read_text()[statements_start:])]
        statements, in_statements = sum(count for count, _ in spent), sum(seconds for _, seconds in spent)
        connected = len(CONNECTED.findall(Path(self.statements.name).read_text()[statements_start:]))
        moves = Move.objects.filter(automatic=True).count()
        print(f"one sweep on a Celery worker of {self.processes} processes: {swept_at[0]:.2f} s from sending it until "
              f"the last of {moved} games was moved on ({moves} default moves), {elapsed:.2f} s until every task "
              f"was done; {cpu:.2f} s CPU in the worker's processes ({cpu / max(moved, 1) * 1000:.2f} ms per game), "
              f"{in_statements:.2f} s in {statements} statements ({in_statements / max(moved, 1) * 1000:.2f} ms "
              f"per game); {connected} database connections opened by the worker's processes")
        print(f"tasks: {len(sweeps)} sweeps sent ({len(sweep_tasks)} run, {sum(sweep_tasks):.2f} s: listing, "
              f"sending the batches, the mail step); {batches_sent} batch tasks sent, of at most "
              f"{deadlines.SWEEP_BATCH} games: {len(batch_tasks)} run, {sum(batch_tasks):.2f} s in all, the longest "
              f"{max(batch_tasks, default=0):.2f} s, {batches_dropped} expired before they started; "
              f"{len(dropped) - batches_dropped} sweeps expired before they started, {len(FAILED.findall(text))} "
              f"tasks failed, {len(KILLED.findall(text))} killed at their time limit")
        return swept_at[0]


def worker_cpu(pid):
    """Seconds of CPU used so far by the process `pid` and its children (the worker's pool)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(child) for child in children.read_text().split()]
    for each in pids:
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


if __name__ == "__main__":
    main()
