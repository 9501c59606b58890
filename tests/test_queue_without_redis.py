"""While this process has just found Redis unreachable, a move queues no mail and no computer move
on the broker (which would hold the move for its timeouts): the rows wait and the sweep sends and
plays them."""

import logging
import time

import pytest

from elgrande_site import cache
from games import tasks
from games.computer import players as computer
from games.mail import outbox, unsubscribe
from games.play import answers_ahead


@pytest.fixture
def with_redis(settings, real_mail_queue, real_computer_moves):
    settings.REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.mark.parametrize("away", [False, True], ids=["redis up", "redis just found away"])
def test_a_mail_is_queued_only_while_redis_answers(with_redis, monkeypatch, caplog, away):
    queued = []
    monkeypatch.setattr(tasks.send_notification, "apply_async", lambda args, countdown: queued.extend(args))
    monkeypatch.setattr(cache, "_down_until", time.monotonic() + 60 if away else 0.0)
    with caplog.at_level(logging.WARNING, logger="games.infra.work"):
        outbox.queue_notification(7)
    assert queued == ([] if away else [7])
    assert ("mail 7 is left to the sweep" in caplog.text) == away


@pytest.mark.parametrize("away", [False, True], ids=["redis up", "redis just found away"])
def test_a_computer_move_is_queued_only_while_redis_answers(with_redis, monkeypatch, caplog, away):
    queued = []
    monkeypatch.setattr(tasks.play_computer_move, "apply_async", lambda args, countdown: queued.append(args))
    monkeypatch.setattr(cache, "_down_until", time.monotonic() + 60 if away else 0.0)
    with caplog.at_level(logging.WARNING, logger="games.infra.work"):
        computer.queue_move(12, 34)
    assert queued == ([] if away else [(12, 34)])
    assert ("game 12 is left to the sweep" in caplog.text) == away


@pytest.mark.parametrize("away", [False, True], ids=["redis up", "redis just found away"])
def test_a_move_s_notices_go_to_the_channel_layer_only_while_redis_answers(with_redis, monkeypatch, caplog, away):
    from games import broadcast

    sent = []

    monkeypatch.setattr(broadcast, "_send", sent.extend)
    monkeypatch.setattr(cache, "_down_until", time.monotonic() + 60 if away else 0.0)
    with caplog.at_level(logging.WARNING, logger="games.broadcast"):
        broadcast.send_version(5, 9)
    # The version, to the game's group and to its spectators' groups (whose hubs render their view).
    notice = {"type": "game.version", "version": 9}
    groups = ["game-5", *broadcast.spectators_groups(5)]
    assert sent == ([] if away else [(group, notice) for group in groups])
    assert ("notices not sent" in caplog.text) == away


def test_the_tasks_keep_the_names_queued_messages_and_the_beat_schedule_use(settings):
    from celery import current_app

    names = {
        f"games.tasks.{name}"
        for name in [
            "sweep_deadlines",
            "expire_deadlines",
            "play_computer_move",
            "send_notification",
            "send_daily_digests",
            "refresh_statistics",
            "answer_ahead",
        ]
    }
    assert names <= set(current_app.tasks)
    assert {task.name for task in vars(tasks).values() if hasattr(task, "apply_async")} == names
    assert {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()} <= names
    assert {outbox.SEND_MAIL, computer.PLAY_COMPUTER_MOVE, answers_ahead.ANSWER_AHEAD} <= names
    # Signed into the unsubscribe links of mails already sent.
    assert unsubscribe.UNSUBSCRIBE_SALT == "games.notifications.unsubscribe"
