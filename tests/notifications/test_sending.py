"""Sending: a task run twice sends one mail; a failed send never fails the move, is logged and is
retried later with back-off, over more than a day, until it goes out (or, after MAX_ATTEMPTS, is
given up, loudly); the embedded mailer thread sends off the request's path."""

import asyncio
import email
import socket
import time
from datetime import timedelta
from email import policy

import pytest
from aiosmtpd.controller import Controller
from django.utils import timezone

from accounts.models import User
from elgrande_site.email_url import email_settings
from games import tasks
from games.engine import legal_moves, to_act
from games.mail import outbox, reminders
from games.models import Game, Notification
from games.play import lifecycle, moving
from tests.support.helpers import state_of

pytestmark = pytest.mark.django_db

REAL_QUEUE = outbox.queue_notification


def closed_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def mail_server_down(settings, tmp_path):
    for name, value in email_settings(f"smtp://127.0.0.1:{closed_port()}?starttls=off", file_path=tmp_path).items():
        setattr(settings, name, value)


def mail_server_back(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def test_running_the_send_task_twice_sends_one_mail(started, monkeypatch, mailoutbox):
    queued = []
    monkeypatch.setattr(outbox, "queue_notification", queued.append)
    game, users = started(2)
    first = queued[0]
    tasks.send_notification(first)
    tasks.send_notification(first)
    tasks.send_notification.apply(args=(first,))
    assert len(mailoutbox) == 1
    notification = Notification.objects.get(pk=first)
    assert notification.status == Notification.Status.SENT and notification.attempts == 1


def test_a_failed_send_does_not_fail_the_move_is_logged_and_retried_with_back_off(
    started, committed, settings, tmp_path, caplog, mailoutbox
):
    game, users = started(3)
    mailoutbox.clear()
    mail_server_down(settings, tmp_path)
    state = state_of(game)
    bidder = to_act(state)[0]
    before = timezone.now()
    committed(
        moving.submit_move,
        game,
        user=users[bidder],
        move=legal_moves(state, bidder)[0],
        expected_version=game.version,
    )
    game.refresh_from_db()
    assert game.version == Game.objects.get(pk=game.pk).version and bidder not in game.to_act

    notification = Notification.objects.get(kind="your_move")
    assert notification.status == Notification.Status.FAILED
    assert notification.attempts == 1
    assert "ConnectionRefusedError" in notification.last_error
    assert before + timedelta(minutes=1) <= notification.next_attempt_at <= timezone.now() + timedelta(minutes=1)
    assert any(f"mail {notification.pk} (your_move" in r.getMessage() and "retrying in 0:01:00" in r.getMessage()
               for r in caplog.records)

    # Still down at the next attempt: the wait doubles.
    outbox.retry_due(notification.next_attempt_at)
    notification.refresh_from_db()
    assert notification.attempts == 2 and notification.status == Notification.Status.FAILED

    mail_server_back(settings)
    assert outbox.retry_due(notification.next_attempt_at - timedelta(seconds=1)) == 0
    assert reminders.send_due_reminders(notification.next_attempt_at) >= 1
    notification.refresh_from_db()
    assert notification.status == Notification.Status.SENT and notification.attempts == 3
    assert [m.subject for m in mailoutbox] == ["[El Grande] " + notification.subject]


@pytest.fixture
def failing_mail(started, settings, tmp_path, monkeypatch):
    """(the id of a mail recorded at a game's start while the mail server is down, the list the
    mails queued from then on go to instead of being sent)."""
    queued = []
    monkeypatch.setattr(outbox, "queue_notification", queued.append)
    started(2)
    mail_server_down(settings, tmp_path)
    return queued[0], queued


def test_a_mail_that_keeps_failing_is_given_up_after_max_attempts_and_logged(failing_mail, caplog):
    notification_id, queued = failing_mail
    for _ in range(outbox.MAX_ATTEMPTS):
        # Each attempt when its retry is due (an early one is not claimed).
        Notification.objects.filter(pk=notification_id).exclude(next_attempt_at=None).update(
            next_attempt_at=timezone.now()
        )
        outbox.send_logged(notification_id)
    notification = Notification.objects.get(pk=notification_id)
    assert notification.status == Notification.Status.GAVE_UP and notification.next_attempt_at is None
    assert notification.attempts == outbox.MAX_ATTEMPTS
    assert [r.levelname for r in caplog.records if "giving up" in r.getMessage()] == ["ERROR"]
    queued.clear()
    outbox.retry_due(timezone.now() + timedelta(days=30))
    assert notification_id not in queued


def test_the_celery_task_leaves_a_failed_send_to_the_sweep_at_its_retry_time(failing_mail, caplog):
    notification_id, queued = failing_mail
    before = timezone.now()
    assert tasks.send_notification.run(notification_id) is False
    notification = Notification.objects.get(pk=notification_id)
    assert notification.status == Notification.Status.FAILED and notification.attempts == 1
    assert "ConnectionRefusedError" in notification.last_error
    assert [r.levelname for r in caplog.records if "retrying in 0:01:00" in r.getMessage()] == ["WARNING"]
    # Run again before its time (a duplicate task), it sends nothing and spends no attempt.
    assert tasks.send_notification.run(notification_id) is False
    assert Notification.objects.get(pk=notification_id).attempts == 1
    queued.clear()
    assert outbox.retry_due(before + timedelta(seconds=59)) == 0
    assert outbox.retry_due(notification.next_attempt_at) == 1 and queued == [notification_id]


def test_a_failing_mail_is_tried_again_over_more_than_a_day_before_it_is_given_up(failing_mail):
    notification_id, queued = failing_mail
    now = first = timezone.now()
    waits = []
    while True:
        with pytest.raises(outbox.SendFailed):
            outbox.deliver(notification_id, now=now)
        notification = Notification.objects.get(pk=notification_id)
        if notification.next_attempt_at is None:
            break
        waits.append(notification.next_attempt_at - now)
        # Not a moment before its time: nothing is claimed.
        assert outbox.deliver(notification_id, now=notification.next_attempt_at - timedelta(seconds=1)) is False
        now = notification.next_attempt_at
    assert notification.status == Notification.Status.GAVE_UP
    minutes = [wait / timedelta(minutes=1) for wait in waits]
    assert minutes == [1, 2, 4, 8, 16, 32, 64, 128, 256, 360, 360, 360]
    assert now - first > timedelta(days=1)


def test_a_lost_mail_pending_or_stuck_in_sending_is_sent_by_the_sweep(started, monkeypatch, mailoutbox):
    queued = []
    monkeypatch.setattr(outbox, "queue_notification", queued.append)
    started(2)
    # One task was never delivered by the broker; the other's worker died mid-send.
    lost, stuck = queued
    Notification.objects.filter(pk=stuck).update(status=Notification.Status.SENDING)
    monkeypatch.setattr(outbox, "queue_notification", outbox.send_logged)
    assert outbox.retry_due(timezone.now()) == 0
    # LOST_AFTER later:
    Notification.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    assert outbox.retry_due(timezone.now()) == 2
    assert len(mailoutbox) == 2


def test_queueing_with_a_broker_that_is_down_is_logged_and_raises_nothing(
    settings, monkeypatch, caplog, real_mail_queue
):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"

    def refuse(*args, **kwargs):
        raise ConnectionRefusedError("no broker")

    monkeypatch.setattr(tasks.send_notification, "apply_async", refuse)
    REAL_QUEUE(12345)
    assert any("could not queue mail 12345" in record.getMessage() for record in caplog.records)


class SlowMailbox:
    """An SMTP server that takes `delay` seconds to accept each message."""

    def __init__(self, delay):
        self.delay = delay
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        await asyncio.sleep(self.delay)
        self.messages.append(email.message_from_bytes(envelope.original_content, policy=policy.default))
        return "250 Message accepted for delivery"


def wait_for(mailbox, count, seconds=20):
    deadline = time.monotonic() + seconds
    while len(mailbox.messages) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(mailbox.messages) == count


@pytest.mark.django_db(transaction=True)
def test_embedded_the_mailer_thread_sends_while_the_move_returns_at_once(
    settings, tmp_path, monkeypatch, password, real_mail_queue
):
    """No broker: a move whose mail takes the server 2 s answers at once; the mail follows."""
    from allauth.account.models import EmailAddress

    monkeypatch.setattr(outbox, "queue_notification", REAL_QUEUE)
    settings.REDIS_URL = ""
    port = closed_port()
    mailbox = SlowMailbox(delay=2)
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        for name, value in email_settings(f"smtp://127.0.0.1:{port}?starttls=off", file_path=tmp_path).items():
            setattr(settings, name, value)
        users = []
        for name in ("ana", "ben"):
            user = User.objects.create_user(name, f"{name}@example.org", password, notify_game_started=False)
            EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
            users.append(user)
        game = lifecycle.create_game(users[0], num_players=2)
        began = time.monotonic()
        lifecycle.join_game(game, user=users[1])
        assert time.monotonic() - began < 1.5
        wait_for(mailbox, 1)
        state = state_of(game)
        bidder = to_act(state)[0]
        began = time.monotonic()
        moving.submit_move(
            game,
            user=game.seats.get(index=bidder).user,
            move=legal_moves(state, bidder)[0],
            expected_version=game.version,
        )
        assert time.monotonic() - began < 1.5
        wait_for(mailbox, 2)
        assert [m["Subject"] for m in mailbox.messages] == [f"[El Grande] Game {game.pk}, round 1: your bid"] * 2
        deadline = time.monotonic() + 10
        while Notification.objects.exclude(status=Notification.Status.SENT).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert set(Notification.objects.values_list("status", flat=True)) == {Notification.Status.SENT}
    finally:
        controller.stop()


def test_the_admin_lists_failed_mails_with_their_error(started, settings, tmp_path, admin_client):
    started(2)
    mail_server_down(settings, tmp_path)
    failed = Notification.objects.first()
    Notification.objects.filter(pk=failed.pk).update(status=Notification.Status.PENDING)
    outbox.send_logged(failed.pk)
    response = admin_client.get("/admin/games/notification/?status=failed")
    assert response.status_code == 200
    assert list(response.context["cl"].result_list) == [Notification.objects.get(pk=failed.pk)]
    page = admin_client.get(f"/admin/games/notification/{failed.pk}/change/").content.decode()
    assert "ConnectionRefusedError" in page
