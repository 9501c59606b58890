# ruff: noqa: F811 - the fixtures of tests/notifications are imported, then named as arguments
"""Faults found in review: each test fails without its fix."""

import queue
from datetime import timedelta

import pytest
from django.core.mail.backends.base import BaseEmailBackend
from django.utils import timezone

from games.infra import background
from games.mail import outbox
from games.models import Notification
from tests.support.notifications import committed, mail_sent_at_once, started  # noqa: F401 - fixtures


def test_a_due_mail_is_queued_once_per_lost_after_not_again_by_every_sweep(started, monkeypatch):
    queued = []
    monkeypatch.setattr(outbox, "queue_notification", queued.append)
    started(2)
    pending, stuck = list(queued)
    # The mailer has not reached one yet; the other's worker died mid-send.
    Notification.objects.filter(pk=stuck).update(status=Notification.Status.SENDING)
    now = timezone.now() + outbox.LOST_AFTER
    queued.clear()
    assert outbox.retry_due(now) == 2
    # The next sweeps, seconds later, while the mails still wait in the queue: nothing queued again.
    assert outbox.retry_due(now + timedelta(seconds=5)) == 0
    assert outbox.retry_due(now + timedelta(seconds=10)) == 0
    assert sorted(queued) == sorted([pending, stuck])
    # Still unsent LOST_AFTER later: queued once more.
    assert outbox.retry_due(now + outbox.LOST_AFTER) == 2


def test_a_mail_lost_in_sending_and_requeued_is_sent_once(started, monkeypatch, mailoutbox):
    queued = []
    monkeypatch.setattr(outbox, "queue_notification", queued.append)
    started(2)
    stuck = queued[0]
    Notification.objects.filter(pk=stuck).update(status=Notification.Status.SENDING)
    now = timezone.now() + outbox.LOST_AFTER
    queued.clear()
    outbox.retry_due(now)
    # The requeued task runs (twice: the lost one turned up as well): one mail.
    assert outbox.deliver(stuck, now) is True
    assert outbox.deliver(stuck, now) is False
    assert Notification.objects.get(pk=stuck).status == Notification.Status.SENT
    assert len([m for m in mailoutbox if m.to == [Notification.objects.get(pk=stuck).user.email]]) == 1


# The thread's death is the point: pytest need not warn of it.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_the_embedded_mailer_starts_a_new_thread_when_its_thread_has_died(monkeypatch):
    sent = queue.SimpleQueue()
    calls = iter([SystemExit, None])

    def send(notification_id):
        error = next(calls)
        if error is not None:
            raise error  # kills the thread: _run catches Exception only
        sent.put(notification_id)

    mailer = background.EmbeddedWorker("mailer", send)
    mailer.add(1)
    mailer._thread.join(timeout=5)
    assert not mailer._thread.is_alive()
    mailer.add(2)
    assert sent.get(timeout=5) == 2


def test_an_early_celery_retry_of_a_failed_mail_spends_no_attempt(started, monkeypatch, settings):
    queued = []
    monkeypatch.setattr(outbox, "queue_notification", queued.append)
    started(2)
    first = queued[0]
    settings.EMAIL_BACKEND = "tests.test_faults_review.RefusingBackend"
    now = timezone.now()
    with pytest.raises(outbox.SendFailed):
        outbox.deliver(first, now)
    # Celery's retry, jittered, comes seconds later, before the retry is due: it sends nothing.
    assert outbox.deliver(first, now + timedelta(seconds=5)) is False
    failed = Notification.objects.get(pk=first)
    assert failed.status == Notification.Status.FAILED and failed.attempts == 1
    # When it is due, the sweep sends it.
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    queued.clear()
    assert outbox.retry_due(failed.next_attempt_at) >= 1 and first in queued
    assert outbox.deliver(first, failed.next_attempt_at) is True


class RefusingBackend(BaseEmailBackend):
    def send_messages(self, messages):
        raise ConnectionRefusedError("mail server down")
