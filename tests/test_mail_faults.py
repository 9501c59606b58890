"""A mail goes out at most once through a database fault, as it happened: a real Celery worker hands
a mail to an SMTP server that takes 4 s to answer, and meanwhile the worker's database, reached
through a relay, goes silent for 8 s (or refuses). Then every retry runs: the server has received
the mail once (games.mail.outbox.deliver leaves it `unknown`, never to be sent again by itself)."""

import time

import pytest
from django.db import connection
from django.utils import timezone

from games.mail import outbox
from games.models import Notification
from tests.support.processes import Proxy, database_url, environment, needs_celery, processes, start_worker
from tests.support.site_mail import mail_through
from tests.support.smtp import smtp_server

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["processes"]  # a fixture


def the_mail(start_game, queued_mail):
    """The first "game started" mail of a new game, not yet sent; the game's other mails dropped."""
    start_game(2)
    first = queued_mail[0]
    Notification.objects.exclude(pk=first).update(status=Notification.Status.DROPPED, next_attempt_at=None)
    return first


@needs_celery
@pytest.mark.parametrize("fault", ["silent", "down"])
def test_a_mail_handed_over_while_the_worker_s_database_went_away_reaches_its_recipient_once(
    start_game, queued_mail, processes, tmp_path, settings, fault  # noqa: F811
):
    from games.tasks import send_notification

    mail_id = the_mail(start_game, queued_mail)
    address = Notification.objects.get(pk=mail_id).user.email
    db = connection.settings_dict
    relay = Proxy((db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432)))
    relay.up()
    try:
        with smtp_server(delay=4) as (box, port):
            env = environment(DATABASE_URL=database_url("127.0.0.1", relay.port),
                              EMAIL_URL=f"smtp://127.0.0.1:{port}?starttls=off")
            start_worker(processes, tmp_path, "mailer", env)
            send_notification.delay(mail_id)
            assert box.arrived.wait(60), "the worker sent nothing"
            # The server has the message and takes its time to answer: the database goes away.
            relay.silent() if fault == "silent" else relay.down()
            time.sleep(8)
            relay.up()
            time.sleep(6)  # the server's answer, and whatever the worker does with it

            # Every way the mail is sent again, later than any retry or lost mail is due.
            mail_through(settings, tmp_path, port)
            later = timezone.now() + outbox.LOST_AFTER + outbox.LONGEST_RETRY_AFTER
            outbox.retry_due(later)
            outbox.deliver(mail_id, now=later)
            send_notification.delay(mail_id)
            time.sleep(6)
            assert [message["To"] for message in box.messages] == [address]
    finally:
        if relay.running:
            relay.down()
    mail = Notification.objects.get(pk=mail_id)
    assert mail.status in (Notification.Status.UNKNOWN, Notification.Status.SENT)
