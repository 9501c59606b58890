import random
import threading
import time
from contextlib import contextmanager
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import OperationalError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from elgrande_site.celery import app as celery_app
from games import deadlines, tasks
from games.engine import apply_move, legal_moves, to_act
from games.mail import periodic
from games.models import Game, Move
from games.play import expiry, moving, saving
from tests.support.helpers import find_position, row_held, snapshot, state_of, user_at
from tests.support.settings_process import django_set_up

pytestmark = pytest.mark.django_db


def overdue(game, by=5):
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=by))
    game.refresh_from_db()
    return game


def test_the_sweep_makes_a_default_move_for_an_expired_decision(start_game):
    game = overdue(start_game(3))
    seat, version = game.to_act[0], game.version
    assert deadlines.sweep() == 1
    game.refresh_from_db()
    [move] = Move.objects.filter(game=game)
    assert move.automatic and move.seat.index == seat
    assert move.move in legal_moves(moving.replay(game, upto=version), seat)
    assert game.version == version + 1
    assert moving.replay(game).to_json() == game.state


def test_the_cycle_collector_is_off_during_a_batch_and_back_on_after_it_even_when_it_fails(start_game, monkeypatch):
    import gc

    overdue(start_game(3))
    seen = []

    def failing_expire(batch, announcements):
        seen.append(gc.isenabled())
        raise OperationalError("the database went away")

    monkeypatch.setattr(expiry, "play_overdue_games", failing_expire)
    assert gc.isenabled()
    with pytest.raises(OperationalError):
        deadlines.sweep()
    assert seen == [False]
    assert gc.isenabled()


def test_an_expiry_does_nothing_once_the_game_moved_on(start_game):
    game = overdue(start_game(3))
    version = game.version
    moving.submit_move(
        game, user=user_at(game, game.to_act[0]), move={"type": "bid", "card": 5}, expected_version=version
    )
    game = overdue(game)
    state = game.state
    assert expiry.apply_default_moves(game.pk, version=version) is False
    game.refresh_from_db()
    assert game.state == state and game.version == version + 1


def test_sweeping_twice_plays_a_deadline_once(start_game):
    game = overdue(start_game(3))
    assert deadlines.sweep() == 1
    game.refresh_from_db()
    after_first = (game.version, game.state)
    assert deadlines.sweep() == 0
    game.refresh_from_db()
    assert (game.version, game.state) == after_first
    assert Move.objects.filter(game=game).count() == 1


def test_a_game_whose_deadline_has_not_passed_is_left_alone(start_game):
    game = start_game(3)
    before = snapshot(game)
    assert deadlines.sweep() == 0
    assert expiry.apply_default_moves(game.pk, version=game.version) is False
    assert snapshot(game) == before


def test_a_finished_or_missing_game_is_left_alone(start_game):
    assert expiry.apply_default_moves(424242, version=1) is False
    game = overdue(start_game(2))
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    before = snapshot(game)
    assert deadlines.sweep() == 0
    assert expiry.apply_default_moves(game.pk, version=game.version) is False
    assert snapshot(game) == before


def test_an_unanswered_veto_window_is_taken_as_allowed(game_at):
    def veto_window_open(state):
        return any({"type": "allow"} in legal_moves(state, seat) for seat in to_act(state))

    game = overdue(game_at(veto_window_open, num_players=4))
    holders = [s for s in game.to_act if {"type": "allow"} in legal_moves(state_of(game), s)]
    assert deadlines.sweep() == 1
    moves = {m.seat.index: m.move for m in Move.objects.filter(game=game, automatic=True)}
    for seat in holders:
        assert moves[seat] == {"type": "allow"}


def test_every_seat_still_to_act_in_a_simultaneous_choice_gets_a_default_move(game_at):
    game = overdue(game_at(lambda state: len(to_act(state)) >= 2, num_players=4))
    waiting = list(game.to_act)
    assert deadlines.sweep() == 1
    automatic = Move.objects.filter(game=game, automatic=True).order_by("version")
    assert [m.seat.index for m in automatic] == waiting
    game.refresh_from_db()
    assert moving.replay(game).to_json() == game.state


def test_the_others_in_a_simultaneous_choice_keep_their_running_deadline(game_at):
    game = game_at(lambda state: len(to_act(state)) >= 2, num_players=4)
    deadline = game.deadline
    first = game.to_act[0]
    state = state_of(game)
    move = legal_moves(state, first)[0]
    moving.submit_move(game, user=user_at(game, first), move=move, expected_version=game.version)
    game.refresh_from_db()
    assert set(game.to_act) < set(to_act(state))
    assert game.deadline == deadline


def test_a_new_decision_gets_the_full_time_per_move(start_game):
    game = start_game(3, time_per_move=300)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() + timedelta(seconds=10))
    game.refresh_from_db()
    moving.submit_move(
        game, user=user_at(game, game.to_act[0]), move={"type": "bid", "card": 5}, expected_version=game.version
    )
    game.refresh_from_db()
    assert timedelta(seconds=290) < game.deadline - timezone.now() <= timedelta(seconds=300)


def _followed_by_some_of_its_seats(state):
    """A simultaneous choice after which, once every seat answered, some of the same seats act
    again: the shape in which the next decision used to inherit the expired deadline."""
    waiting = to_act(state)
    if len(waiting) < 2:
        return False
    rng = random.Random(0)
    for seat in waiting:
        state = apply_move(state, seat, moving.default_move(state, seat=seat, rng=rng))
    return 0 < len(to_act(state)) and set(to_act(state)) < set(waiting)


def test_the_decision_after_late_seats_are_played_for_gets_a_full_deadline_of_its_own(game_at):
    game = overdue(game_at(_followed_by_some_of_its_seats, num_players=4, time_per_move=300))
    waiting = list(game.to_act)
    assert deadlines.sweep() == 1
    game.refresh_from_db()
    assert game.to_act and set(game.to_act) < set(waiting)
    assert timedelta(seconds=290) < game.deadline - timezone.now() <= timedelta(seconds=300)
    version = game.version
    # The next sweep (formerly: 26 ms later) leaves the new decision to its player.
    assert deadlines.sweep() == 0
    game.refresh_from_db()
    assert game.version == version


def test_fewer_seats_to_act_in_a_different_decision_get_a_full_deadline(start_game):
    # A choice of several seats, and a later position of the same game where a different
    # decision waits for some of those seats only: fewer seats is not "the same choice".
    seed, history = find_position(lambda state: len(to_act(state)) >= 3, num_players=4)
    game = start_game(4, seed=seed, time_per_move=300)
    for seat, move in history:
        moving.submit_move(game, user=user_at(game, seat), move=move, expected_version=game.version)
        game.refresh_from_db()
    choice = state_of(game)
    state, rng = choice, random.Random(seed)
    while not (to_act(state) and set(to_act(state)) < set(to_act(choice)) and state.phase != choice.phase):
        assert not state.is_over, "no such later decision in this game"
        seat = to_act(state)[0]
        state = apply_move(state, seat, moving.default_move(state, seat=seat, rng=rng))
    stale = timezone.now() - timedelta(seconds=5)
    game.deadline = stale
    with transaction.atomic():
        saving._save(game, state, previous_to_act=to_act(choice))
    assert timedelta(seconds=290) < game.deadline - timezone.now() <= timedelta(seconds=300)


def test_a_late_players_whole_turn_is_played_out_at_one_deadline(game_at):
    game = overdue(game_at(lambda state: state.phase == "court", num_players=3))
    before = state_of(game)
    seat = before.current_player
    assert deadlines.sweep() == 1
    game.refresh_from_db()
    state = state_of(game)
    automatic = list(Move.objects.filter(game=game, automatic=True).order_by("version"))
    assert {m.seat.index for m in automatic} == {seat}
    assert automatic[0].move["type"] == "court"
    # The court move, a card (the seat chooses first, among every card on offer, so this is a
    # real choice, not the last card taken for it) and the action's two parts, in either order.
    assert before.taken == [None] * before.num_players and len(before.display) > 1
    types = [m.move["type"] for m in automatic]
    assert types[:2] == ["court", "take_card"] and sorted(types[2:]) == ["place", "special"]
    assert not (state.round == before.round and state.current_player == seat and seat in to_act(state))
    assert moving.replay(game).to_json() == game.state
    # Each of these moves is stored with the events it made, not the last one's.
    replayed = moving.replay(game, upto=automatic[0].version - 1)
    for stored in automatic:
        replayed = apply_move(replayed, seat, stored.move)
        assert stored.events == replayed.events and stored.round == replayed.round
    assert [m.events[0]["event"] for m in automatic[:2]] == ["court", "take_card"]


def test_the_catch_up_command_runs_one_sweep(start_game):
    late, early = overdue(start_game(3)), start_game(3)
    out = StringIO()
    call_command("expire_deadlines", stdout=out)
    assert "1 game(s)" in out.getvalue()
    assert Move.objects.filter(game=late, automatic=True).exists()
    assert not Move.objects.filter(game=early).exists()


def test_the_celery_task_runs_a_sweep(start_game):
    game = overdue(start_game(3))
    tasks.sweep_deadlines.apply()
    assert Move.objects.filter(game=game, automatic=True).count() == 1


def test_a_sweep_with_somewhere_to_spread_its_batches_sends_them_all_there(start_game, monkeypatch):
    games = [overdue(start_game(2), by=10 - index) for index in range(5)]
    monkeypatch.setattr(deadlines, "SWEEP_BATCH", 2)
    sent = []
    assert deadlines.sweep(spread=sent.extend) == 0
    assert not Move.objects.exists()
    # Disjoint batches of at most SWEEP_BATCH games, the longest overdue first.
    assert sent == [[(game.pk, game.version) for game in games[start:start + 2]] for start in (0, 2, 4)]
    assert deadlines.play_overdue_batches(sent) == 5
    assert Move.objects.filter(automatic=True).values("game").distinct().count() == 5


def test_a_sweep_of_one_batch_expires_it_itself(start_game):
    game = overdue(start_game(3))
    sent = []
    assert deadlines.sweep(spread=sent.extend) == 1
    assert sent == [] and Move.objects.filter(game=game, automatic=True).exists()


def test_the_celery_sweep_sends_each_batch_as_a_task_of_its_own(start_game, monkeypatch):
    games = [overdue(start_game(2)) for _ in range(3)]
    monkeypatch.setattr(deadlines, "SWEEP_BATCH", 2)
    batches = []
    real = tasks.expire_deadlines.run

    def expire_deadlines(batch, **lane):
        batches.append(batch)
        return real(batch, **lane)

    monkeypatch.setattr(tasks.expire_deadlines, "run", expire_deadlines)
    # Run the tasks it sends here and now, as a worker would.
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    try:
        tasks.sweep_deadlines.apply()
    finally:
        celery_app.conf.task_always_eager = eager
    assert sorted(len(batch) for batch in batches) == [1, 2]
    for game in games:
        assert Move.objects.filter(game=game, automatic=True).exists()


def test_beat_sends_the_sweep_every_interval(settings):
    entry = celery_app.conf.beat_schedule["sweep-deadlines"]
    assert entry["task"] == tasks.sweep_deadlines.name
    assert entry["schedule"] == settings.DEADLINE_SWEEP_SECONDS
    # A sweep still queued when the next one is due is dropped rather than run late.
    assert entry["options"]["expires"] == settings.DEADLINE_SWEEP_SECONDS
    assert tasks.sweep_deadlines.acks_late is False


def test_one_failing_game_does_not_hold_up_the_others(start_game, monkeypatch, caplog):
    broken, fine = overdue(start_game(3), by=10), overdue(start_game(3), by=5)
    before = snapshot(broken)
    real = expiry._expire

    def expire(game, *args):
        if game.pk == broken.pk:
            raise ValueError("an engine bug")
        return real(game, *args)

    monkeypatch.setattr(expiry, "_expire", expire)
    assert deadlines.sweep() == 1
    assert Move.objects.filter(game=fine, automatic=True).exists()
    assert f"deadline of game {broken.pk} at version {broken.version} failed" in caplog.text
    assert snapshot(broken) == before
    monkeypatch.undo()
    assert deadlines.sweep() == 1, "the next sweep tries the broken game again"


def test_a_game_the_database_refuses_is_left_as_it_was_and_the_others_of_its_batch_move_on(start_game, caplog):
    first, broken, last = overdue(start_game(3), by=15), overdue(start_game(3), by=10), overdue(start_game(3), by=5)
    # A row already stored where the broken game's first default move goes: its insert of the
    # moves breaks a constraint, and its transaction, only its own, is rolled back.
    Move.objects.create(game=broken, seat=broken.seats.first(), version=broken.version + 1, move={"type": "x"})
    before = snapshot(broken)
    assert deadlines.sweep() == 2
    assert f"deadline of game {broken.pk} at version {broken.version} failed" in caplog.text
    assert "IntegrityError" in caplog.text
    assert Move.objects.filter(game=first, automatic=True).exists()
    assert Move.objects.filter(game=last, automatic=True).exists()
    assert snapshot(broken) == before


def test_a_lost_database_connection_ends_the_sweep_for_the_next_one_to_retry(start_game, monkeypatch):
    first, second = overdue(start_game(3), by=10), overdue(start_game(3), by=5)
    monkeypatch.setattr(deadlines, "SWEEP_BATCH", 1)
    tried = []

    def expire(pairs, announcements):
        tried.append([game_id for game_id, _ in pairs])
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(expiry, "play_overdue_games", expire)
    with pytest.raises(OperationalError):
        deadlines.sweep()
    assert tried == [[first.pk]]
    monkeypatch.undo()
    assert deadlines.sweep() == 2
    assert {first.pk, second.pk} == set(Move.objects.values_list("game", flat=True))


def sweep_queries(games):
    """The statements of a sweep over `games` (overdue), less its mail step's."""
    with CaptureQueriesContext(connection) as context:
        assert deadlines.sweep() == len(games)
    # The test's own transaction turns each game's into a savepoint; those are not statements.
    return [q["sql"] for q in context.captured_queries if "SAVEPOINT" not in q["sql"]]


def test_a_sweep_costs_a_few_statements_per_batch_and_a_bounded_number_per_game(game_at, monkeypatch):
    court = lambda state: state.phase == "court"  # noqa: E731
    # The mail step after the expiries has its own count (tests/notifications/test_deciding.py).
    monkeypatch.setattr(periodic, "sweep", lambda now, due=None: None)
    games = [game_at(court, num_players=n) for n in (4, 2, 3, 5, 4, 3)]
    queries = {len(some): sweep_queries([overdue(game) for game in some]) for some in (games[:1], games[1:])}
    # However many moves (four or more a game here), a batch of N games takes a + b * N
    # statements. Read once for the batch (a): whether each step of the sweep has anything to do
    # (one statement, `rows.exist_each`: the overdue games, the answers given ahead, the mail
    # steps', the tournaments'), the overdue games listed, their rows, their seats
    # (with whether a player may be on vacation: nobody is); on PostgreSQL also the commits told
    # not to wait for the disk, and then no more. For each game (b): on PostgreSQL one statement,
    # the game's whole transaction (the claim keyed by id and version, the moves, the late
    # seats' counts of timeouts, the row that keeps its mails from being lost); elsewhere a
    # transaction of four: the claim, the counts, the moves (one statement executed for each
    # move), that row. After the batches, none: no answer given ahead is due (moving.
    # answer_overdue_ahead), no tournament due to start or whose round is over (tournaments.
    # services.advance_due), as the first statement found.
    assert Move.objects.filter(automatic=True).count() >= 4 * 6
    postgresql = connection.vendor == "postgresql"
    shared, per_game = (6, 1) if postgresql else (4, 4)
    for size, statements in queries.items():
        assert len(statements) == shared + per_game * size, statements
    claims = [sql for sql in queries[5] if sql.startswith(("UPDATE \"games_game\"", "WITH claimed"))]
    assert len(claims) == 5, queries[5]
    for claim in claims:
        assert claim.count('"version" = ') == 2, claim  # the new version set, the one read checked
    if postgresql:
        assert all("FOR UPDATE SKIP LOCKED" in claim and 'INSERT INTO "games_move"' in claim
                   and 'INSERT INTO "games_mailtodecide"' in claim for claim in claims)
        # Set before the first game's claim, reset after the last.
        at = [index for index, sql in enumerate(queries[5]) if sql.startswith("WITH claimed")]
        assert queries[5][at[0] - 1] == "SET synchronous_commit TO OFF", queries[5]
        # (Then nothing: the answers given ahead and the tournaments were checked first of all.)
        assert queries[5][at[-1] + 1:] == ["RESET synchronous_commit"], queries[5]
    else:
        assert sum(sql.startswith('UPDATE "games_seat"') for sql in queries[5]) == 5
        assert sum(" times: INSERT INTO \"games_move\"" in sql for sql in queries[5]) == 5
        assert sum('INSERT INTO "games_mailtodecide"' in sql for sql in queries[5]) == 5
    checks = queries[5][0]
    assert checks.startswith("WITH check_0 AS MATERIALIZED") and '"answers_ahead_due" <=' in checks, checks
    assert '"tournaments_tournament"' in checks and '"games_mailtodecide"' in checks, checks


class Lost(Exception):
    pass


def test_a_sweep_the_database_lost_plays_the_very_same_moves_again(game_at):
    """What makes it safe for the sweep's commits not to wait for the disk."""
    game = overdue(game_at(lambda state: state.phase == "court", num_players=4))

    def played():
        automatic = Move.objects.filter(game=game, automatic=True).order_by("version")
        return list(automatic.values_list("version", "move")), state_of(game)

    with pytest.raises(Lost), transaction.atomic():
        assert deadlines.sweep() == 1
        first = played()
        raise Lost
    assert not Move.objects.filter(game=game, automatic=True).exists()
    assert deadlines.sweep() == 1
    assert played() == first


@pytest.mark.django_db(transaction=True)
def test_the_ticker_thread_sweeps_on_its_own(start_game):
    game = overdue(start_game(3))
    stop_ticker = deadlines.start_ticker(interval=0.2)
    try:
        for _ in range(50):
            if Move.objects.filter(game=game, automatic=True).exists():
                break
            time.sleep(0.1)
        assert Move.objects.filter(game=game, automatic=True).count() == 1
        later = overdue(start_game(3))
        for _ in range(50):
            if Move.objects.filter(game=later, automatic=True).exists():
                break
            time.sleep(0.1)
        assert Move.objects.filter(game=later, automatic=True).count() == 1
    finally:
        stop_ticker()


class HangingSweeps:
    """deadlines.sweep as it runs when the database stops answering in the middle of a batch: the
    first `hanging` calls hold the cycle collector off (as a batch does) and never end until
    released; the others count themselves and end."""

    def __init__(self, hanging):
        self.hanging = hanging
        self.calls = 0
        self.ended = 0
        self.release = threading.Event()
        self.lock = threading.Lock()

    def __call__(self):
        with self.lock:
            self.calls += 1
            hangs = self.calls <= self.hanging
        if hangs:
            with deadlines.without_cycle_collection():
                self.release.wait(30)
        else:
            with self.lock:
                self.ended += 1
        return 0


@contextmanager
def ticking(monkeypatch, hanging, time_limit, on_a_server=True):
    """The ticker sweeping with `hanging` (HangingSweeps) every 0.05 s, as on a database that
    waits on a server (PostgreSQL) or not (SQLite); the hanging sweeps are released at the end."""
    monkeypatch.setattr(deadlines, "_waits_on_a_server", lambda: on_a_server)
    monkeypatch.setattr(deadlines, "sweep", hanging)
    stop_ticker = deadlines.start_ticker(interval=0.05, time_limit=time_limit)
    try:
        yield
    finally:
        hanging.release.set()
        stop_ticker()


def wait_for(predicate, seconds=10):
    until = time.monotonic() + seconds
    while not predicate() and time.monotonic() < until:
        time.sleep(0.05)


@pytest.mark.django_db(transaction=True)
def test_sweeps_that_hang_past_their_time_limit_are_left_behind_up_to_a_bound(monkeypatch):

    hanging = HangingSweeps(hanging=100)
    with ticking(monkeypatch, hanging, time_limit=0.3):
        time.sleep(0.1)
        assert hanging.calls == 1, "the next sweep waits while this one is within its time limit"
        wait_for(lambda: hanging.calls >= deadlines.LEFT_BEHIND + 1)
        # LEFT_BEHIND hanging sweeps beside the one running: then the ticker waits.
        time.sleep(1)
        assert hanging.calls == deadlines.LEFT_BEHIND + 1


@pytest.mark.django_db(transaction=True)
def test_the_sweeps_after_one_left_behind_run_with_the_cycle_collector_back_on(monkeypatch):
    import gc

    # The one left behind hangs inside a batch, which holds the collector off for the process.
    hanging = HangingSweeps(hanging=1)
    with ticking(monkeypatch, hanging, time_limit=0.3):
        wait_for(lambda: hanging.ended >= 5)
        assert hanging.ended >= 5
        assert gc.isenabled()


@pytest.mark.django_db(transaction=True)
def test_where_the_database_is_no_server_a_long_sweep_is_waited_for_not_left_behind(monkeypatch):
    # SQLite waits on no server: a long sweep is only a long one.
    assert deadlines._waits_on_a_server() is {"sqlite": False, "postgresql": True}[connection.vendor]
    hanging = HangingSweeps(hanging=1)
    with ticking(monkeypatch, hanging, time_limit=0.2, on_a_server=False):
        time.sleep(0.8)
        assert hanging.calls == 1
        hanging.release.set()
        time.sleep(0.5)
        assert hanging.ended >= 2


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="a connection to a server that goes silent")
def test_a_sweep_whose_connection_went_silent_for_good_is_cut_off_at_its_time_limit(monkeypatch):
    """A connection that a relay or firewall swallows may never be answered, nor closed: the sweep
    waiting on it would hang for good (and with LEFT_BEHIND of them, so would the ticker). At its
    time limit the ticker shuts the connection down on this side, and the sweep fails and ends."""
    from django.db import connections

    from tests.support.processes import Proxy

    database = connections.settings["default"]
    relay = Proxy((database["HOST"] or "127.0.0.1", int(database["PORT"] or 5432)))
    relay.up()
    # The ticker's sweeps connect through the relay (each opens a connection of its own).
    monkeypatch.setitem(database, "HOST", "127.0.0.1")
    monkeypatch.setitem(database, "PORT", str(relay.port))
    ended, outcome = threading.Event(), []

    def sweep():
        if ended.is_set() or outcome:
            return 0
        outcome.append("started")
        # Mid-way, its connection goes silent, and stays so; new ones get through again.
        connections["default"].ensure_connection()
        relay.silent()
        threading.Timer(0.2, relay.up).start()
        try:
            with connections["default"].cursor() as cursor:
                cursor.execute("SELECT 1")
            outcome.append("answered")
        except Exception as error:
            outcome.append(type(error).__name__)
        finally:
            ended.set()
        return 0

    monkeypatch.setattr(deadlines, "sweep", sweep)
    stop_ticker = deadlines.start_ticker(interval=0.1, time_limit=1)
    try:
        assert ended.wait(15), "the sweep on the silent connection was never cut off"
    finally:
        stop_ticker()
        relay.down()
    assert outcome == ["started", "OperationalError"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="statement_timeout is PostgreSQL's")
def test_the_tickers_sweeps_are_on_a_plain_connection_whose_statements_end_at_the_time_limit(monkeypatch):
    from django.db import connections

    seen = []

    def sweep():
        with connections["default"].cursor() as cursor:
            cursor.execute("SHOW statement_timeout")
            timeout = cursor.fetchone()[0]
            cursor.execute("SHOW idle_in_transaction_session_timeout")
            seen.append((timeout, cursor.fetchone()[0], connections["default"].pool))

    monkeypatch.setattr(deadlines, "sweep", sweep)
    stop_ticker = deadlines.start_ticker(interval=10, time_limit=7)
    try:
        for _ in range(50):
            if seen:
                break
            time.sleep(0.1)
    finally:
        stop_ticker()
    # The settings' server options apply too: a sweep that hangs in a transaction holds nothing for long.
    assert seen == [("7s", "1min", None)]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks that others skip need PostgreSQL")
def test_a_game_locked_by_a_move_in_progress_is_skipped_not_waited_for(start_game):
    game, other = overdue(start_game(3)), overdue(start_game(3))
    with row_held(game):
        started = time.monotonic()
        assert deadlines.sweep() == 1, "the other game of the batch moves on"
        assert time.monotonic() - started < 2
        assert Move.objects.filter(game=other, automatic=True).exists()
        assert not Move.objects.filter(game=game).exists()
    assert deadlines.sweep() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="statements prepared on the server are PostgreSQL's")
def test_a_games_statement_is_prepared_on_the_server_once_per_shape_and_used_again(start_game):
    def prepared():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT name, calls FROM (SELECT name, generic_plans + custom_plans AS calls, statement "
                "FROM pg_prepared_statements) AS each WHERE statement LIKE 'WITH claimed AS%%'"
            )
            return dict(cursor.fetchall())

    first, second = overdue(start_game(3)), overdue(start_game(3))
    assert expiry.play_overdue_games([(first.pk, first.version)]) == 1
    names = prepared()
    assert len(names) == 1
    # The same shape (three seats, a game whose deadline passed in the same decision) again:
    # executed by name, not prepared anew.
    assert expiry.play_overdue_games([(second.pk, second.version)]) == 1
    assert prepared().keys() == names.keys()
    assert sum(prepared().values()) == 2


@pytest.mark.parametrize("value", ["0", "-5", "soon", "inf"])
def test_a_sweep_interval_that_is_not_a_positive_number_is_refused_at_start(value):
    started = django_set_up(DEADLINE_SWEEP_SECONDS=value)
    assert started.returncode != 0
    assert f"DEADLINE_SWEEP_SECONDS must be a positive number of seconds, not {value!r}" in started.stderr


@pytest.mark.parametrize(("value", "message"), [
    ("0", "DEADLINE_SWEEP_BATCH must be at least 1, not 0."),
    ("many", "DEADLINE_SWEEP_BATCH must be a whole number, not 'many'."),
])
def test_a_sweep_batch_that_is_not_a_positive_whole_number_is_refused_at_start(value, message):
    started = django_set_up(DEADLINE_SWEEP_BATCH=value)
    assert started.returncode != 0
    assert message in started.stderr
