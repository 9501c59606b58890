"""The outbox: each mail recorded once as a Notification row under its key (recipient, game,
version, kind), queued, handed to the mail server at most once, and retried on a back-off when
the server refuses it."""

import logging
import smtplib
import socket
from datetime import timedelta

from allauth.account.models import EmailAddress
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone, translation

from accounts.emails import wants_mail
from games.infra import work
from games.mail import composing, kinds, links, unsubscribe
from games.models import Game, MailOptOut, Notification

logger = logging.getLogger(__name__)

# A mail that fails is tried again 1, 2, 4 … minutes later, at most 6 hours apart: its 13th
# attempt comes 26.5 hours after its first, so a mail server away for a day loses nothing.
MAX_ATTEMPTS = 13
FIRST_RETRY_AFTER = timedelta(minutes=1)
LONGEST_RETRY_AFTER = timedelta(hours=6)
# A row still `pending` or `sending` this long after it was queued or claimed was lost (a broker
# that refused the task, a worker killed before it handed the mail over): the sweep sends it.
LOST_AFTER = timedelta(minutes=10)


class SendFailed(Exception):
    """A mail server did not take a recorded mail; the failure is already recorded and logged."""


def record_mail(user, game, kind, *, state, seat, seats, verified, scope=""):
    """Record one mail about `game` for the player in `seat`, if they want that kind (`verified`:
    the ids of the players with a verified address)."""
    if not kinds.wants(user, kinds.SETTING_OF_KIND[kind], verified):
        return []
    with translation.override(user.mail_language):
        subject, text, html = composing.game_mail(kind, user=user, game=game, state=state, seat=seat, seats=seats)
    return _store(user=user, game=game, version=game.version, kind=kind, scope=scope,
                  subject=subject, text=text, html=html)


def record_message(*, user, game, version, kind, context, subject, address=""):
    subject, text, html = composing.render_mail(kind, user=user, game=game, context=context, subject=subject,
                                                address=address)
    return _store(user=user, address=address, game=game, version=version, kind=kind,
                  subject=subject, text=text, html=html)


def _store(*, user, game, version, kind, subject, text, html, scope="", address=""):
    """Store one mail under its key; [] when that key was recorded before."""
    try:
        with transaction.atomic():
            notification = Notification.objects.create(
                user=user,
                address=address if user is None else "",
                game=game,
                version=version,
                kind=kind,
                scope=scope,
                subject=subject,
                text=text,
                html=html,
                next_attempt_at=timezone.now() + LOST_AFTER,
            )
    except IntegrityError:
        return []
    return [notification.pk]


def queue_sending(ids):
    for notification_id in ids:
        queue_notification(notification_id)


# The Celery task that sends one mail (games/tasks.py).
SEND_MAIL = "games.tasks.send_notification"


def queue_notification(notification_id):
    """Have the notification sent soon, off the caller's path (a Celery worker with Redis, else the
    embedded mailer thread); a failure to queue is logged and left to the sweep, never raised
    into a move."""
    work.enqueue(SEND_MAIL, notification_id, label=f"mail {notification_id}")


def send_logged(notification_id):
    """Send one mail where nothing may be raised (a mailer thread): a failure is logged, and the
    row says when to try again."""
    try:
        deliver(notification_id)
    except SendFailed:
        pass  # recorded and logged by deliver(); the sweep sends it again when its time comes
    except Exception:
        # Anything else (the database away) leaves the row for the sweep too.
        logger.exception("mail %s was not sent", notification_id)


def deliver(notification_id, now=None):
    """Send one recorded mail unless it was sent, is being sent, or no longer applies. The claim
    is one UPDATE, so two runs of the same task send one mail. A send the server refused (or could
    not be reached for) is recorded with the time of the next attempt (doubling, at most
    MAX_ATTEMPTS), which the sweep keeps (`retry_due`), and logged, then raised as SendFailed.

    At most once: the row is marked `unknown` (committed: this runs outside a transaction) once the
    connection to the server is open and before the message is handed to it, and only a recorded
    answer moves it on, to `sent` or (the server said no) to `failed`. A mail whose answer was lost
    (the database cut while the server took its time, the server's reply never came, the worker
    killed) stays `unknown`: nothing sends it again, and the admin lists it for an operator to check
    the mail server's log. A mail sent twice by a retry cannot be taken back; one the operator
    sends again can, hence this choice over marking it sent afterwards."""
    now = now or timezone.now()
    # A failed row only when its retry is due: a task run early would spend the attempts meant to
    # stretch over a day; the sweep queues it when it is due. A `sending` row was claimed and never
    # handed over: lost, it may be claimed again.
    claimable = Q(status=Notification.Status.PENDING) | Q(
        status__in=[Notification.Status.FAILED, Notification.Status.SENDING], next_attempt_at__lte=now
    )
    claimed = (
        Notification.objects.filter(claimable, pk=notification_id)
        .update(status=Notification.Status.SENDING, attempts=F("attempts") + 1, next_attempt_at=now + LOST_AFTER)
    )
    if not claimed:
        return False
    notification = Notification.objects.select_related("user", "game").get(pk=notification_id)
    if not _still_wanted(notification):
        _finish(notification, Notification.Status.DROPPED)
        return False
    message = _message(notification)
    connection = get_connection()
    try:
        try:
            # Connecting, TLS and log-in: a failure here leaves the mail unsent for sure.
            connection.open()
        except Exception as error:
            _failed(notification, error, now)
        # From here the server may take the mail whether or not we hear its answer.
        Notification.objects.filter(pk=notification_id).update(status=Notification.Status.UNKNOWN, next_attempt_at=None)
        try:
            connection.send_messages([message])
        except REFUSED as error:
            _failed(notification, error, now)
        except Exception as error:
            Notification.objects.filter(pk=notification_id).update(last_error=_error_text(error))
            logger.error(
                "mail %s (%s to %s): no answer from the mail server (%s); it may have gone, so it is not "
                "sent again: see the mail server's log, and send it again from the admin if it did not go",
                notification_id, notification.kind, notification.user or notification.address, error,
            )
            raise SendFailed(notification_id) from error
    finally:
        connection.close()
    _finish(notification, Notification.Status.SENT, sent_at=timezone.now())
    return True


# The mail server's refusals: it answered, and did not take the mail (smtplib's errors that carry
# the server's reply, and every recipient refused), or it was never reached (a backend that
# connects only when it sends). A mail refused may be sent again.
REFUSED = (smtplib.SMTPResponseException, smtplib.SMTPRecipientsRefused, ConnectionRefusedError, socket.gaierror)


def _error_text(error):
    return f"{type(error).__name__}: {error}"[:2000]


def _failed(notification, error, now):
    """Record that the server did not take `notification` on its attempt, with the time of the next
    attempt (or given up after MAX_ATTEMPTS), log it and raise SendFailed."""
    attempts = notification.attempts
    gave_up = attempts >= MAX_ATTEMPTS
    retry_after = min(FIRST_RETRY_AFTER * 2 ** (attempts - 1), LONGEST_RETRY_AFTER)
    Notification.objects.filter(pk=notification.pk).update(
        status=Notification.Status.GAVE_UP if gave_up else Notification.Status.FAILED,
        last_error=_error_text(error),
        next_attempt_at=None if gave_up else now + retry_after,
        **(FORGOTTEN_BODY if gave_up and notification.kind == kinds.ACCOUNT_MAIL else {}),
    )
    logger.log(
        logging.ERROR if gave_up else logging.WARNING,
        "mail %s (%s to %s) failed on attempt %s: %s; %s",
        notification.pk, notification.kind, notification.user or notification.address, attempts, error,
        "giving up" if gave_up else f"retrying in {retry_after}",
    )
    raise SendFailed(notification.pk) from error


# An account mail's text and its link are not kept once it has gone, or been given up.
FORGOTTEN_BODY = {"text": "", "html": ""}


def retry_due(now):
    """Send the mails whose retry time has come, and those lost on the way. Returns how many.

    Each is queued once per LOST_AFTER, not once per sweep: a backlog the mailer or the workers
    have not reached yet (a slow mail server) is not queued again every few seconds. Each goes back
    to `pending`, so that its claim no longer waits for `next_attempt_at`; one claimed since it was
    read has a later `next_attempt_at` and is left alone."""
    due = retries_due(now)
    ids = list(due.values_list("pk", flat=True)[:500])
    due.filter(pk__in=ids).update(status=Notification.Status.PENDING, next_attempt_at=now + LOST_AFTER)
    queue_sending(ids)
    return len(ids)


def retries_due(now):
    """The mails `retry_due` sends at `now`."""
    return Notification.objects.filter(
        status__in=[Notification.Status.PENDING, Notification.Status.FAILED, Notification.Status.SENDING],
        next_attempt_at__lte=now,
    )


def _still_wanted(notification):
    user, game = notification.user, notification.game
    if notification.kind == kinds.ACCOUNT_MAIL:
        # Only while the address waits for its confirmation: not once confirmed, nor once its
        # player replaced it (a typo) or deleted the account, when the mail would tell a stranger
        # the username.
        return EmailAddress.objects.filter(email__iexact=notification.address, verified=False).exists()
    if notification.kind == "invitation" and game.status != Game.Status.OPEN:
        return False
    if user is None:
        return not MailOptOut.objects.filter(address__iexact=notification.address).exists()
    if not wants_mail(user, kinds.SETTING_OF_KIND[notification.kind]):
        return False
    if notification.kind.endswith("your_move") or notification.kind.startswith("reminder"):
        # Moved already: a late "your move" would only confuse.
        seat = game.seats.filter(user=user).values_list("index", flat=True).first()
        return game.status == Game.Status.ACTIVE and seat in game.to_act
    return True


def _finish(notification, status, **fields):
    if notification.kind == kinds.ACCOUNT_MAIL:
        fields.update(FORGOTTEN_BODY)
    Notification.objects.filter(pk=notification.pk).update(status=status, next_attempt_at=None, **fields)


def _message(notification):
    if notification.kind == kinds.ACCOUNT_MAIL:
        # allauth wrote the subject, its prefix included.
        message = EmailMultiAlternatives(
            subject=notification.subject, body=notification.text, to=[notification.address],
            headers={"Message-ID": links.message_id()},
        )
        message.attach_alternative(notification.html, "text/html")
        return message
    to = notification.user.email if notification.user is not None else notification.address
    link = unsubscribe.unsubscribe_url(notification.kind, notification.user, notification.address)
    message = EmailMultiAlternatives(
        subject=links.subject_prefix() + notification.subject,
        body=notification.text,
        to=[to],
        headers={
            "Message-ID": links.message_id(),
            # RFC 8058: a mail client may unsubscribe with one POST, no page, no log-in.
            "List-Unsubscribe": f"<{link}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(notification.html, "text/html")
    return message
