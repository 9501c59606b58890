"""A mail goes to its recipient at most once (games.mail.outbox.deliver), through a real SMTP server
(aiosmtpd, started by the test): one the server took while the database was cut, or whose answer
never came, is left `unknown` for an operator and never sent again by the retries; one the server
refused, before the handover or with its answer to the message, is retried as before."""

import asyncio
import email
import logging
from datetime import timedelta
from email import policy

import pytest
from aiosmtpd.controller import Controller
from django.db import OperationalError, connection
from django.utils import timezone

from games import tasks
from games.mail import outbox
from games.models import Notification
from tests.support.helpers import free_port
from tests.support.site_mail import mail_through
from tests.support.site_mail import smtp_server as smtp_server  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def one_mail(started, monkeypatch):
    """A recorded mail not yet sent (the first "game started" mail of a new game), and its address;
    the other mails of the game are dropped. The tasks queued from here on run at once."""
    queued = []
    monkeypatch.setattr(outbox, "queue_notification", queued.append)
    started(2)
    first = Notification.objects.get(pk=queued[0])
    Notification.objects.exclude(pk=first.pk).update(status=Notification.Status.DROPPED, next_attempt_at=None)
    monkeypatch.setattr(outbox, "queue_notification", outbox.send_logged)
    return first.pk, first.user.email


def the_retries_run(mail_id):
    """Every way a mail is sent again, later than any retry or lost mail is due: the sweep, the
    task queued again, deliver itself."""
    later = timezone.now() + outbox.LOST_AFTER + outbox.LONGEST_RETRY_AFTER
    outbox.retry_due(later)
    tasks.send_notification(mail_id)
    outbox.deliver(mail_id, now=later)


def received_by(mailbox, address):
    return [message for recipients, message in mailbox.messages if recipients == [address]]


@pytest.mark.django_db(transaction=True)
def test_a_mail_the_server_took_while_the_database_was_cut_is_never_sent_again(
    one_mail, smtp_server, admin_client, caplog  # noqa: F811
):
    mail_id, address = one_mail

    def cut_once_the_server_has_it(execute, sql, params, many, context):
        # The server has the message and is about to answer: the database is gone from here on.
        if smtp_server.messages:
            raise OperationalError("server closed the connection unexpectedly")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(cut_once_the_server_has_it):
        outbox.send_logged(mail_id)  # as the mailer thread or a worker runs it: logged, not raised
    assert len(received_by(smtp_server, address)) == 1
    assert "server closed the connection unexpectedly" in caplog.text

    # The database is back; every retry passes over the mail.
    the_retries_run(mail_id)
    assert len(received_by(smtp_server, address)) == 1
    mail = Notification.objects.get(pk=mail_id)
    assert (mail.status, mail.attempts, mail.next_attempt_at) == (Notification.Status.UNKNOWN, 1, None)
    # An operator finds it in the admin, under its own status.
    listed = admin_client.get("/admin/games/notification/?status=unknown")
    assert list(listed.context["cl"].result_list) == [mail]
    assert "Handed to the mail server, outcome unknown" in listed.content.decode()


class SilentMailbox:
    """An SMTP server that takes each message and answers it only after `delay` seconds."""

    def __init__(self, delay):
        self.delay = delay
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((envelope.rcpt_tos, email.message_from_bytes(envelope.original_content,
                                                                          policy=policy.default)))
        await asyncio.sleep(self.delay)
        return "250 Message accepted for delivery"


class RefusingOnceMailbox:
    """An SMTP server that refuses the first message with a temporary error, then takes them."""

    def __init__(self):
        self.refused = 0
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        if not self.refused:
            self.refused += 1
            return "451 4.3.0 Mailbox busy, try again later"
        self.messages.append((envelope.rcpt_tos, email.message_from_bytes(envelope.original_content,
                                                                          policy=policy.default)))
        return "250 Message accepted for delivery"


@pytest.fixture
def serve(settings, tmp_path):
    """Serve the site's mail with a given aiosmtpd handler on a free port."""
    controllers = []

    def start(handler):
        port = free_port()
        controller = Controller(handler, hostname="127.0.0.1", port=port)
        controller.start()
        controllers.append(controller)
        mail_through(settings, tmp_path, port)
        return handler

    yield start
    for controller in controllers:
        controller.stop()


def test_a_mail_whose_answer_never_came_is_left_unknown_and_not_sent_again(one_mail, serve, settings, caplog):
    mail_id, address = one_mail
    mailbox = serve(SilentMailbox(delay=2))
    settings.EMAIL_TIMEOUT = 0.5
    with caplog.at_level(logging.ERROR, logger="games.mail.outbox"):
        outbox.send_logged(mail_id)
    mail = Notification.objects.get(pk=mail_id)
    assert mail.status == Notification.Status.UNKNOWN
    assert "timed out" in mail.last_error
    assert "it may have gone, so it is not sent again" in caplog.text
    the_retries_run(mail_id)
    assert len(received_by(mailbox, address)) == 1
    assert Notification.objects.get(pk=mail_id).status == Notification.Status.UNKNOWN


def test_a_mail_the_server_refused_to_connect_is_retried_as_before(
    one_mail, smtp_server, settings, tmp_path  # noqa: F811
):
    mail_id, address = one_mail
    port = settings.EMAIL_PORT
    mail_through(settings, tmp_path, free_port())  # nothing listens there: the connection is refused
    outbox.send_logged(mail_id)
    mail = Notification.objects.get(pk=mail_id)
    assert mail.status == Notification.Status.FAILED
    assert mail.next_attempt_at == pytest.approx(timezone.now() + outbox.FIRST_RETRY_AFTER,
                                                 abs=timedelta(seconds=30))
    assert "ConnectionRefusedError" in mail.last_error

    mail_through(settings, tmp_path, port)  # the server is back
    the_retries_run(mail_id)
    assert len(received_by(smtp_server, address)) == 1
    mail = Notification.objects.get(pk=mail_id)
    assert (mail.status, mail.attempts) == (Notification.Status.SENT, 2)


def test_a_mail_the_server_answered_with_a_refusal_is_retried_as_before(one_mail, serve):
    mail_id, address = one_mail
    mailbox = serve(RefusingOnceMailbox())
    outbox.send_logged(mail_id)
    mail = Notification.objects.get(pk=mail_id)
    assert (mail.status, mailbox.refused) == (Notification.Status.FAILED, 1)
    assert "SMTPDataError" in mail.last_error
    the_retries_run(mail_id)
    assert len(received_by(mailbox, address)) == 1
    mail = Notification.objects.get(pk=mail_id)
    assert (mail.status, mail.attempts) == (Notification.Status.SENT, 2)


def test_an_operator_sends_again_from_the_admin_a_mail_of_unknown_outcome_that_did_not_go(
    one_mail, smtp_server, admin_client  # noqa: F811
):
    mail_id, address = one_mail
    # As deliver leaves a mail whose answer was lost.
    Notification.objects.filter(pk=mail_id).update(status=Notification.Status.UNKNOWN, attempts=1)
    response = admin_client.post(
        "/admin/games/notification/", {"action": "send_again", "_selected_action": [mail_id]}, follow=True
    )
    assert "1 mail(s) of unknown outcome will be sent again by the next sweep." in response.content.decode()
    outbox.retry_due(timezone.now())
    assert len(received_by(smtp_server, address)) == 1
    mail = Notification.objects.get(pk=mail_id)
    assert (mail.status, mail.attempts) == (Notification.Status.SENT, 2)
