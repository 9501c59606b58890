"""The sweep asks in one statement whether each of its steps has anything to do, and runs only
those that have: a sweep that finds nothing due costs one round trip, however many games run."""

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.dispatch import receiver
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import deadlines, signals
from games.infra import rows
from games.mail import late_decisions, outbox, reminders
from games.models import Game, Move
from games.play import moving
from tests.support.sqlite_steps import sqlite_steps
from tournaments import services

pytestmark = pytest.mark.django_db


def without_digests(now):
    # The embedded site's hourly digest pass, once an hour, is not one of the checks.
    cache.add(f"digests-{now:%Y-%m-%d-%H}", True)


def test_a_sweep_with_nothing_due_is_one_statement_however_many_games_run(start_game):
    for _ in range(6):
        start_game(3)  # running, their deadlines days away
    now = timezone.now()
    without_digests(now)
    with CaptureQueriesContext(connection) as context:
        assert deadlines.sweep(now) == 0
    statements = [query["sql"] for query in context.captured_queries]
    assert len(statements) == 1, statements
    assert statements[0].startswith("WITH check_0 AS MATERIALIZED")


def test_each_step_runs_only_when_its_check_finds_something(start_game, monkeypatch):
    ran = []
    for module, name in [(moving, "answer_overdue_ahead"), (late_decisions, "decide_lost"),
                         (late_decisions, "decide_waiting"), (reminders, "send_reminders"),
                         (outbox, "retry_due"), (services, "advance_due")]:
        monkeypatch.setattr(module, name, lambda now, name=name: ran.append(name))
    game = start_game(3)
    now = timezone.now()
    without_digests(now)
    deadlines.sweep(now)
    assert ran == []
    # A reminder due (half the time gone) and an answer given ahead due: those two steps alone.
    Game.objects.filter(pk=game.pk).update(
        deadline=now + timedelta(seconds=game.time_per_move / 4), answers_ahead_due=now - timedelta(seconds=1)
    )
    deadlines.sweep(now)
    assert ran == ["answer_overdue_ahead", "send_reminders"]


def test_an_overdue_game_is_still_listed_and_moved_on_after_the_checks(start_game):
    game = start_game(3)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    assert deadlines.sweep() == 1
    assert Move.objects.filter(game=game, automatic=True).count() == 1


def test_the_checks_answer_each_query_in_order_in_one_statement(start_game):
    game = start_game(3)
    queries = [Game.objects.filter(pk=game.pk), Game.objects.filter(pk=-1), Game.objects.filter(pk__in=[]),
               Game.objects.filter(status=Game.Status.ACTIVE).order_by("-deadline")]
    with CaptureQueriesContext(connection) as context:
        assert rows.exist_each(queries) == [True, False, False, True]
    # A query that can match no row is not even asked.
    assert len(context.captured_queries) == 1
    with CaptureQueriesContext(connection) as context:
        assert rows.exist_each([Game.objects.filter(pk__in=[])]) == [False]
    assert context.captured_queries == []


def test_a_receiver_whose_check_fails_is_logged_and_its_work_runs_all_the_same(start_game, monkeypatch, caplog):
    def broken(sender, now, **kwargs):
        raise RuntimeError("no check today")

    heard = []

    def swept(sender, now, due, **kwargs):
        heard.append(due.get("broken's"))

    signals.sweep_checks.connect(broken, dispatch_uid="broken-check")
    receiver(signals.swept, dispatch_uid="broken-swept")(swept)
    try:
        deadlines.sweep()
    finally:
        signals.sweep_checks.disconnect(dispatch_uid="broken-check")
        signals.swept.disconnect(dispatch_uid="broken-swept")
    assert "no check today" in caplog.text
    assert heard == [None]  # no word of it: its receiver does its work as before the checks


def test_reminders_due_in_many_games_cost_the_same_few_statements_as_in_one(start_game, make_user):
    from games.models import Notification

    def remind(games):
        now = timezone.now()
        for game in games:
            Game.objects.filter(pk=game.pk).update(deadline=now + timedelta(seconds=game.time_per_move / 4))
        with CaptureQueriesContext(connection) as context:
            reminders.send_reminders(now)
        return len(context.captured_queries)

    from accounts.emails import NOTIFICATION_FIELDS
    from accounts.models import User

    one, many = [start_game(3)], [start_game(3) for _ in range(5)]
    # Nobody wants reminders (each one mailed has a few statements of its own: its mail composed).
    User.objects.update(**{NOTIFICATION_FIELDS["reminder"]: False})
    assert remind(one) == remind(many)
    # Every seat to act in them was decided all the same, once each: passed over.
    for game in [*one, *many]:
        game.refresh_from_db()
        decided = Notification.objects.filter(game=game, kind="reminder_half").values_list("user_id", flat=True)
        acting = set(game.seats.filter(index__in=game.to_act).values_list("user_id", flat=True))
        assert sorted(decided) == sorted(acting)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's count of the steps its statements take")
def test_the_reminders_check_costs_the_same_however_many_games_wait_for_theirs(start_game):
    """The reminders' check reads ranges of the partial indexes, on SQLite too: written as the
    future deadline AND-ed with an OR of the ranges, SQLite scanned the whole half-reminder
    index, every running game whose reminder is still to come (bench/README.md, "The sweep's
    reminders on SQLite")."""
    game = start_game(3)
    now = timezone.now()
    # Running, a week a move, six days left: its half-way reminder is days away.
    Game.objects.filter(pk=game.pk).update(time_per_move=7 * 24 * 3600, deadline=now + timedelta(days=6))
    game.refresh_from_db()

    def steps():
        """SQLite's virtual machine steps (in tens) to answer the check, nothing being due."""
        check = reminders.due_games(now)
        found, counted = sqlite_steps(lambda: rows.exist_each([check]))
        assert found == [False]
        return counted

    few = steps()
    copies = []
    for number in range(300):
        copy = Game.objects.get(pk=game.pk)
        copy.pk, copy.invite_token = None, f"{copy.invite_token[:20]}{number}"
        copies.append(copy)
    Game.objects.bulk_create(copies)
    assert Game.objects.filter(status=Game.Status.ACTIVE).count() == 301
    assert steps() <= few + 5
