"""The sweep's batches in lanes (Celery): no more batch tasks queued than lanes, each lane's next
batch sent when the one before is done, the games a lane holds listed by no other sweep until it
is done or its mark lapses, and none of them ever played twice or lost."""

import time
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import OperationalError
from django.utils import timezone

from elgrande_site.celery import app as celery_app
from games import deadlines, tasks
from games.models import Game, Move
from tests.support.settings_process import django_set_up

pytestmark = pytest.mark.django_db


def overdue(game, by=5):
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=by))
    game.refresh_from_db()
    return game


def automatic_moves(game):
    return Move.objects.filter(game=game, automatic=True).count()


@pytest.fixture
def five_overdue(start_game, monkeypatch, settings):
    """Five overdue games, the longest overdue first, in batches of one, two lanes."""
    monkeypatch.setattr(deadlines, "SWEEP_BATCH", 1)
    settings.DEADLINE_SWEEP_LANES = 2
    return [overdue(start_game(2), by=10 - index) for index in range(5)]


def pairs(games):
    return [[(game.pk, game.version)] for game in games]


def test_the_batches_are_shared_round_robin_among_the_lanes_the_longest_overdue_first(five_overdue):
    batches = pairs(five_overdue)
    assert deadlines.lanes(batches) == [batches[0::2], batches[1::2]]
    assert deadlines.lanes_busy()
    # Never more lanes than batches.
    assert deadlines.lanes(batches[:1], count=4) == [batches[:1]]


def test_while_a_lane_holds_its_games_the_next_sweep_lists_none_and_sends_none(five_overdue):
    lanes = []
    assert deadlines.sweep(spread=lanes.append) == 0
    assert lanes == [pairs(five_overdue)]
    deadlines.lanes(lanes[0])
    again = []
    assert deadlines.sweep(spread=again.append) == 0
    assert again == [] and not Move.objects.exists()


def test_a_lane_plays_its_batches_one_task_after_the_other_and_then_lets_the_next_sweep_list_again(five_overdue):
    lane = deadlines.lanes(pairs(five_overdue), count=1)[0]
    sent = []
    # Each step sends the rest as the next step, then plays its one batch; the mark stays meanwhile.
    while lane:
        assert deadlines.play_lane(0, lane, sent.append) == 1
        assert deadlines.lanes_busy() == (len(lane) > 1)
        assert sent == ([lane[1:]] if len(lane) > 1 else [])
        lane = sent.pop() if sent else []
    assert [automatic_moves(game) for game in five_overdue] == [1, 1, 1, 1, 1]
    # Its mark released, the next sweep lists what is overdue again (here: nothing).
    listed = []
    assert deadlines.sweep(spread=listed.append) == 0 and listed == []


def test_a_lane_step_that_loses_its_connection_leaves_its_games_to_a_sweep_after_the_lane(five_overdue, monkeypatch):
    lane = deadlines.lanes(pairs(five_overdue), count=1)[0]
    real = deadlines.play_overdue_batches

    def lost(batches):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(deadlines, "play_overdue_batches", lost)
    sent = []
    with pytest.raises(OperationalError):
        deadlines.play_lane(0, lane, sent.append)
    # The rest of the lane was sent before: it goes on, and its mark with it.
    assert sent == [lane[1:]] and deadlines.lanes_busy()
    monkeypatch.setattr(deadlines, "play_overdue_batches", real)
    rest = sent.pop()
    while rest:
        deadlines.play_lane(0, rest, sent.append)
        rest = sent.pop() if sent else []
    assert not deadlines.lanes_busy()
    assert [automatic_moves(game) for game in five_overdue] == [0, 1, 1, 1, 1]
    # The game of the failed step was not lost: the next sweep finds it still overdue.
    assert deadlines.sweep() == 1
    assert [automatic_moves(game) for game in five_overdue] == [1, 1, 1, 1, 1]


def test_the_last_step_of_a_lane_releases_its_mark_even_when_it_fails(five_overdue, monkeypatch):
    deadlines.lanes(pairs(five_overdue)[:1], count=1)

    def lost(batches):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(deadlines, "play_overdue_batches", lost)
    with pytest.raises(OperationalError):
        deadlines.play_lane(0, pairs(five_overdue)[:1], [].append)
    assert not deadlines.lanes_busy()


def test_a_lanes_mark_lapses_after_its_hold_without_a_word_from_it(five_overdue, monkeypatch):
    # Whole seconds: Redis keeps a key's time to live in them (DEADLINE_SWEEP_TIME_LIMIT is one).
    monkeypatch.setattr(deadlines, "LANE_HOLD", 1)
    deadlines.lanes(pairs(five_overdue))
    assert deadlines.lanes_busy()
    time.sleep(1.3)
    assert not deadlines.lanes_busy()


def test_a_lane_whose_worker_was_killed_mid_way_lets_go_of_its_games_after_its_hold(five_overdue):
    first, second = deadlines.lanes(pairs(five_overdue))
    sent = []
    # One step of the first lane is played; then its worker dies: no further step ever comes.
    assert deadlines.play_lane(0, first, sent.append) == 1
    assert deadlines.sweep(spread=sent.append) == 0 and len(sent) == 1
    # Its hold passes (as the test above shows the marks lapse): here by hand.
    cache.delete_many([deadlines._lane_key(number) for number in (0, 1)])
    assert not deadlines.lanes_busy()
    # The next sweep sends the games still overdue again, and only those.
    relisted = []
    assert deadlines.sweep(spread=relisted.append) == 0
    assert relisted == [pairs(five_overdue[1:])]
    # The step sent before the worker died, run late, finds its games moved on and plays none twice.
    assert deadlines.play_overdue_batches(relisted[0]) == 4
    assert deadlines.play_lane(0, sent[0], [].append) == 0
    assert [automatic_moves(game) for game in five_overdue] == [1, 1, 1, 1, 1]


def test_the_celery_sweep_sends_one_task_per_lane_and_each_sends_its_lanes_next(five_overdue, monkeypatch):
    sent = []
    real = tasks.expire_deadlines.apply_async

    def apply_async(args, kwargs, **options):
        sent.append((args[0], kwargs["lane"], len(kwargs["rest"]), options["expires"]))
        return real(args, kwargs, **options)

    monkeypatch.setattr(tasks.expire_deadlines, "apply_async", apply_async)
    # Run the tasks it sends here and now, as a worker would.
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    try:
        tasks.sweep_deadlines.apply()
    finally:
        celery_app.conf.task_always_eager = eager
    batches = pairs(five_overdue)
    # Each batch a task of its own, in the lane the round robin gave it, dropped only if it has not
    # started within the lane's hold.
    assert sorted(sent) == sorted(
        [(batches[index], index % 2, len(batches[index::2]) - 1, deadlines.LANE_HOLD) for index in range(5)]
    )
    assert [automatic_moves(game) for game in five_overdue] == [1, 1, 1, 1, 1]
    assert not deadlines.lanes_busy()


def test_a_batch_task_sent_before_the_lanes_is_still_expired(five_overdue):
    game = five_overdue[0]
    assert tasks.expire_deadlines.apply(([[game.pk, game.version]],)).get() == 1
    assert automatic_moves(game) == 1 and not deadlines.lanes_busy()


@pytest.mark.parametrize(("value", "message"), [
    ("0", "DEADLINE_SWEEP_LANES must be at least 1, not 0."),
    ("both", "DEADLINE_SWEEP_LANES must be a whole number, not 'both'."),
])
def test_a_lanes_count_that_is_not_a_positive_whole_number_is_refused_at_start(value, message):
    started = django_set_up(DEADLINE_SWEEP_LANES=value)
    assert started.returncode != 0
    assert message in started.stderr


def test_the_lanes_are_by_default_twice_the_workers_processes():
    started = django_set_up("from django.conf import settings; print(settings.DEADLINE_SWEEP_LANES)",
                            WORKER_CONCURRENCY="3")
    assert started.stdout.strip() == "6"
