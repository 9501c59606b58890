"""Deadlines: one periodic sweep over `Game.deadline` plays for the seats whose time ran out.

Nothing about a deadline lives anywhere but in the game's row, so nothing is lost when a process
dies: every DEADLINE_SWEEP_SECONDS the sweep asks the database for the overdue games (an index on
(status, deadline) keeps that cheap) and moves them on, each in a transaction of its own keyed by
the game's id and version, a batch at a time: what the games of a batch share is read once
before, and what they call for is announced together after (`expiry.play_overdue_games`). A sweep that is lost,
killed half-way, run twice at once or met by a database outage costs at most one interval plus
the outage: the next sweep finds what is still overdue.

Who sweeps: with REDIS_URL set, Celery beat sends `games.tasks.sweep_deadlines` every interval to
a worker, whose sweep sends the batches, when there are several, in lanes (`lanes`), one task of
a lane at a time, for all the worker's processes to share (`games.tasks.expire_deadlines`);
embedded, a ticker thread in the web process
(started by elgrande_site/asgi.py) sweeps, one batch after the other. `manage.py expire_deadlines`
runs one sweep by hand, in its own process.
"""

import gc
import logging
import os
import socket
import threading
import time
from contextlib import contextmanager

from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.core.cache import cache
from django.db import connections
from django.utils import timezone

from elgrande_site import metrics
from games import signals
from games.infra import rows
from games.mail import periodic
from games.models import Game
from games.play import after_save, expiry, moving

logger = logging.getLogger(__name__)

# Overdue games whose rows, seats and vacations are read together, and whose notices to pages and
# lobbies, mails and computer moves are announced together once the last of them is committed;
# with Celery, one task. Each game is committed on its own all the same: a player moving in one of
# them waits at most for that one.
SWEEP_BATCH = settings.DEADLINE_SWEEP_BATCH


def sweep(now=None, spread=None):
    """One pass over the clocks: the default moves of every game whose deadline is at or before
    `now`, in batches of SWEEP_BATCH games, each game in a transaction of its own
    (`expiry.play_overdue_games`). Returns how many games moved on in this process.

    Each step is run only when it has something to do, which one statement asks for all of them
    at once (`rows.exist_each`, with the checks of the `signals.sweep_checks` receivers): a
    sweep that finds nothing due is one round trip, however many games run.

    `spread`, when given, is a function that has the batches (lists of (game id, version))
    expired elsewhere and returns at once: the Celery sweep (games.tasks) sends them in lanes to
    the worker's processes when there is more than one (`lanes`); while the lanes of an earlier
    sweep still hold games, such a sweep lists none. The batches are disjoint, and a game
    another process holds is skipped, not waited for.

    The veto questions answered ahead whose pause is over and whose task has not answered them
    (`moving.answer_overdue_ahead`) are answered next: a task lost costs one interval.

    Reminders ride on it, as a further step after the expiries (games.mail.periodic.sweep): they
    are due at times derived from the same `Game.deadline` and sent once per (user, game,
    version, kind).
    """
    started = time.perf_counter()
    now = now or timezone.now()
    moved = 0
    # Whether each step has anything to do, asked in one statement: a sweep that finds nothing
    # due (nearly every one) costs one round trip, whatever the number of running games.
    checks = {
        **signals.checks_of_receivers(now), "answers ahead": moving.overdue_ahead(now), **periodic.due_checks(now)
    }
    # Unless the lanes of an earlier sweep still hold the games it listed (and those overdue
    # since wait for them to end): listing them again would only send them twice.
    if spread is None or not lanes_busy():
        checks["overdue"] = overdue_games(now)
    due = dict(zip(checks, rows.exist_each(checks.values())))
    overdue = list(overdue_games(now)) if due.get("overdue") else []
    batches = [overdue[start:start + SWEEP_BATCH] for start in range(0, len(overdue), SWEEP_BATCH)]
    if spread is not None and len(batches) > 1:
        spread(batches)
    elif batches:
        moved = play_overdue_batches(batches)
    # The answers given ahead whose task was lost (or is late): due at a time of their own.
    if due["answers ahead"]:
        moving.answer_overdue_ahead(now)
    periodic.sweep(now, due=due)
    signals.send_robustly(signals.swept, now=now, due=due)
    _done(time.perf_counter() - started, overdue=len(overdue), moved=moved, spread=len(batches) if spread else 0)
    return moved


_last_logged = [float("-inf")]


def _done(seconds, *, overdue, moved, spread):
    """Count the sweep for /metrics and /readyz, and log it at INFO when it found something
    overdue, else once a minute (a sweep every 5 s would write 17,000 lines a day)."""
    metrics.sweep_done(seconds, moved)
    if overdue or time.monotonic() - _last_logged[0] >= 60:
        _last_logged[0] = time.monotonic()
        logger.info(
            "deadline sweep: %d overdue, %d moved on here, %d batches sent to the worker's processes, %.3f s",
            overdue, moved, spread if spread > 1 else 0, seconds,
        )


def play_overdue_batches(batches):
    """Expire the overdue games of `batches` (lists of (game id, version)), one batch at a time,
    each game in a transaction of its own (`expiry.play_overdue_games`).

    A game whose moves fail, or whose rows the database refuses, is logged and left for the next
    sweep, so that one broken game cannot hold up the others. A lost database connection ends
    the sweep at once (every other game would fail the same way); the games committed before
    stay so, their notices are still sent, and the next sweep tries the rest again.
    """
    # One event loop for them all: the notices each batch sends after its commits (through
    # async_to_sync) then run on it, instead of starting a loop, a thread and channel-layer
    # connections per batch. The expiries themselves stay in this thread.
    return async_to_sync(sync_to_async(_expire_batches))(batches)


def _expire_batches(batches):
    moved = 0
    for batch in batches:
        # What the batch's commits call for (notices, mails, computer moves: games/play/after_save.py)
        # is announced together once the last of them is made, or the batch is broken off.
        announcements = []
        try:
            with without_cycle_collection():
                moved += expiry.play_overdue_games(batch, announcements=announcements)
        finally:
            after_save.announce_on_commit(announcements)
    return moved


# How long a lane holds the games of its sweep without a word from it (`lanes`): the time limit of
# its tasks, each of which is also dropped if it has not started by then.
LANE_HOLD = settings.DEADLINE_SWEEP_TIME_LIMIT


def lanes(batches, count=None):
    """The sweep's `batches` shared out among `count` lanes (by default DEADLINE_SWEEP_LANES, twice the
    worker processes), round robin so that every lane begins with the longest overdue:
    [[batch, ...], ...], none empty. Each lane is then played one batch a task, each task sending
    the lane's next as it begins (`play_lane`, games/tasks.py): no more batches wait in the queue
    than there are lanes, where fifty sent at once to two processes expired unstarted
    (bench/README.md).

    Each lane is marked as holding its games from here until its last batch is done, or until
    LANE_HOLD seconds pass without a batch of it begun or ended (a worker killed, a batch task
    dropped): meanwhile the next sweeps list no overdue games (`lanes_busy`), and the first
    sweep after finds those still overdue and sends them again. A game is never played twice
    either way: each is claimed at the version listed (`expiry.play_overdue_games`)."""
    count = min(count or settings.DEADLINE_SWEEP_LANES, len(batches))
    shared = [batches[number::count] for number in range(count)]
    cache.set_many({_lane_key(number): True for number in range(len(shared))}, LANE_HOLD)
    return shared


def lanes_busy():
    """Whether a lane of an earlier sweep still holds games (`lanes`)."""
    return bool(cache.get_many([_lane_key(number) for number in range(settings.DEADLINE_SWEEP_LANES)]))


def play_lane(number, batches, send_rest):
    """One step of lane `number`: hand the rest of `batches` to `send_rest` (which sends the task
    of the next step) and expire the first (`play_overdue_batches`); the last step releases the
    lane's mark once done. The next step is sent first so that it waits in the queue while this
    one plays, and the process that frees first takes it at once: sent after, each step of the
    lane would wait for the worker to hear of it. A lane thus keeps one task queued, and its
    batches are still disjoint. A step that fails (a lost connection) leaves its games overdue
    for a sweep after the lane; the last one releases the mark all the same. Returns how many
    games moved on."""
    key = _lane_key(number)
    cache.set(key, True, LANE_HOLD)
    if len(batches) > 1:
        send_rest(batches[1:])
        return play_overdue_batches(batches[:1])
    try:
        return play_overdue_batches(batches[:1])
    finally:
        cache.delete(key)


def _lane_key(number):
    return f"deadline-sweep-lane-{number}"


@contextmanager
def without_cycle_collection():
    """Python's cycle collector held off for one batch. A batch allocates a great many short-lived
    objects (states, rows, statements' values), and the collections they would set off scan
    every object of the process again and again: a third of the sweep's CPU (bench/sweep.py).
    What a batch leaves behind is bounded by its SWEEP_BATCH games, and is collected as usual
    once the collector is back on, at the end of the batch."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def overdue_games(now):
    """(id, version) of the running games whose deadline is at or before `now`, the longest
    overdue first; on the (status, deadline) index."""
    return (
        Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=now)
        .order_by("deadline")
        .values_list("pk", "version")
    )


def start_ticker(interval=None, time_limit=None):
    """Sweep from a daemon thread of this process every `interval` seconds (by default
    DEADLINE_SWEEP_SECONDS), the first time at once. Returns a function that stops it, once a
    sweep under way is over (waiting at most what is left of its time limit).

    For the embedded site, which has no Celery beat: the thread holds nothing but its timer, so a
    restart only delays the overdue games until the new process's first sweep. Each sweep runs in
    a thread of its own, on a plain database connection of its own (`_sweep_once`); on
    PostgreSQL one that has not ended after `time_limit` seconds (DEADLINE_SWEEP_TIME_LIMIT: a
    database that stopped answering without closing the connection) is left behind, and the next
    sweep starts beside it, up to LEFT_BEHIND of them. On SQLite, where nothing waits on a
    network, a long sweep is only a long one: the next waits for it.
    """
    stop = threading.Event()
    thread = threading.Thread(
        target=_tick,
        args=(interval or settings.DEADLINE_SWEEP_SECONDS, time_limit or settings.DEADLINE_SWEEP_TIME_LIMIT, stop),
        name="deadline-sweep",
        daemon=True,
    )
    thread.start()

    def stop_ticker():
        stop.set()
        thread.join()

    return stop_ticker


# Sweeps left behind at once, at most: each holds a connection that hangs.
LEFT_BEHIND = 3


def _tick(interval, time_limit, stop):
    running, left_behind = None, []
    may_leave_behind = _waits_on_a_server()
    while not stop.is_set():
        if running is not None and running.is_alive():
            left_behind = [run for run in left_behind if run.is_alive()]
            if not may_leave_behind or running.age() < time_limit or len(left_behind) >= LEFT_BEHIND:
                stop.wait(interval)
                continue
            logger.error(
                "a deadline sweep has not ended after %s s (a database that does not answer?); "
                "its connection is cut, and the next one starts beside it", time_limit,
            )
            running.cut_off()
            left_behind.append(running)
            # It may hang inside a batch, which holds the cycle collector off for the whole process.
            gc.enable()
        running = _SweepRun(time_limit)
        running.start()
        stop.wait(interval)
    if running is not None:
        running.join(max(0.0, time_limit - running.age()))


def _waits_on_a_server():
    """Whether a sweep can hang on the database's server (PostgreSQL), rather than be only slow
    (SQLite, a file of this machine)."""
    return connections["default"].vendor == "postgresql"


class _SweepRun(threading.Thread):
    """One sweep of the ticker's, in a thread of its own (`_sweep_once`), which the ticker can cut
    off from its database: a connection that went silent (a frozen server, a relay or firewall
    that drops what it gets) may never answer again, nor ever be closed by the server, and the
    sweep waiting on it would hang for good, whatever the database does next."""

    def __init__(self, time_limit):
        super().__init__(name="deadline-sweep-run", daemon=True)
        self.time_limit = time_limit
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._socket = None  # a duplicate of its connection's socket, while it is open

    def age(self):
        return time.monotonic() - self.started

    def run(self):
        try:
            _sweep_once(self.time_limit, self._connected)
        finally:
            self._closed()

    def _connected(self, database):
        if database.vendor != "postgresql":
            return
        database.ensure_connection()
        with self._lock:
            self._socket = socket.socket(fileno=os.dup(database.connection.pgconn.socket))

    def cut_off(self):
        """Shut its connection down on this side: the statement it waits on fails at once
        ("server closed the connection"), and the sweep ends as after any failure."""
        with self._lock:
            if self._socket is not None:
                try:
                    self._socket.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def _closed(self):
        with self._lock:
            if self._socket is not None:
                self._socket.close()
                self._socket = None


def _sweep_once(time_limit, connected=None):
    """One sweep, in the calling thread, on a database connection of its own that is closed after
    it. Not the web process's pool: after an outage the pool opens connections again on a
    back-off of its own (seconds apart, and a request for one waits up to 10 s), where a plain
    connection is opened by the very next sweep; and a sweep left behind on a connection that
    hung keeps that connection to itself. On PostgreSQL its statements may not wait longer than
    the sweep's time limit (a lock held by a migration, say): the server ends them. `connected`,
    if given, is called with the connection once it is open, before the sweep."""
    default = connections["default"]
    if default.vendor == "postgresql":
        options = {name: value for name, value in default.settings_dict.get("OPTIONS", {}).items() if name != "pool"}
        # After the server options of the settings, which it adds to (and wins over).
        options["options"] = f"{options.get('options', '')} -c statement_timeout={int(time_limit * 1000)}".strip()
        connections["default"] = type(default)({**default.settings_dict, "OPTIONS": options}, "default")
    try:
        if connected is not None:
            connected(connections["default"])
        sweep()
    except Exception:
        # The database may be away or not migrated yet: say so and try again next time.
        logger.exception("deadline sweep failed")
    finally:
        connections.close_all()
