"""Every mail tells its deadline in its recipient's time zone, as their own game page shows it, through
a real SMTP server (aiosmtpd, started by the test): the "your move" mails of one move made by a player
in Sydney to players in Tokyo, New York and Madrid, the reminders the sweep sends (UTC active), and a
digest sent by Celery beat's task (UTC active too)."""

import json
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse
from django.utils import timezone

from games.engine import to_act
from games.mail import digests, reminders
from games.play import moving
from tests.support.helpers import logged_in, state_of
from tests.support.notifications import ZONES, veto_question  # noqa: F401 (a fixture)
from tests.support.site_mail import body, html_part
from tests.support.site_mail import smtp_server as smtp_server  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


# The deadline as the game page's clock shows it ("D j M, H:i T") and as mails say it ("l j F, H:i T").
PAGE_CLOCK = re.compile(r'<p class="clock">Your deadline: (\w+) (\d+) (\w+), (\d\d:\d\d) (\S+) ·')
MAIL_DEADLINE = re.compile(
    r"Your deadline: (?:<strong>)?(\w+) (\d+) (\w+), (\d\d:\d\d) (\S+?)(?:</strong>)? \(([^)]+)\)"
)
DIGEST_DEADLINE = re.compile(r"\(deadline (\w+) (\d+) (\w+), (\d\d:\d\d) (\S+), ([^)]+)\)")


def shown_on_page(user, game):
    """(weekday, day, month, time, zone abbreviation) of the deadline on `user`'s own game page."""
    page = logged_in(user).get(reverse("game", args=[game.pk])).content.decode()
    match = PAGE_CLOCK.search(page)
    assert match, "no deadline on the page"
    return match.groups()


def assert_same_deadline(mailed, page, zone):
    """The mail's long names begin with the page's short ones; day, time and zone are the same."""
    weekday, day, month, time, abbreviation, zone_name = mailed
    assert weekday.startswith(page[0]) and month.startswith(page[2]), (mailed, page)
    assert (day, time, abbreviation, zone_name) == (page[1], page[3], page[4], zone), (mailed, page)


def assert_mail_says_the_pages_deadline(message, user, game, pattern=MAIL_DEADLINE):
    page = shown_on_page(user, game)
    for part in (body(message), html_part(message)):
        match = pattern.search(part)
        assert match, part
        assert_same_deadline(match.groups(), page, user.time_zone)


def test_one_move_mails_tokyo_new_york_and_madrid_each_the_deadline_of_their_own_page(
    veto_question, smtp_server, django_capture_on_commit_callbacks  # noqa: F811
):
    game, seats, mover, move = veto_question
    # The move is posted from Sydney: the site runs the request, and decides its mails, in his zone.
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in(seats[mover]).post(
            reverse("move", args=[game.pk]), {"move": json.dumps(move), "expected_version": game.version}
        )
    assert response.status_code == 302
    game.refresh_from_db()
    assert set(to_act(state_of(game))) == set(seats), "the move opened a question to every other seat"

    received = {tuple(recipients): message for recipients, message in smtp_server.messages}
    told = [user for index, user in seats.items() if index != mover]
    assert sorted(received) == sorted((user.email,) for user in told)
    assert sorted(user.time_zone for user in told) == sorted(ZONES)
    for user in told:
        assert_mail_says_the_pages_deadline(received[(user.email,)], user, game)
    # Three zones, three different clocks (Madrid, New York and Tokyo never share an hour).
    assert len({MAIL_DEADLINE.search(body(message)).group(4) for message in received.values()}) == 3


def test_the_sweeps_reminders_say_each_players_own_deadline(veto_question, smtp_server, committed):  # noqa: F811
    game, seats, mover, move = veto_question
    committed(moving.submit_move, game, user=seats[mover], move=move, expected_version=game.version)
    game.refresh_from_db()
    smtp_server.messages.clear()
    # The sweep runs in a worker with no player's zone active: UTC.
    with timezone.override(UTC):
        assert reminders.send_due_reminders(game.deadline - timedelta(hours=35)) == 4
    received = {tuple(recipients): message for recipients, message in smtp_server.messages}
    assert len(received) == 4
    for user in seats.values():
        message = received[(user.email,)]
        assert message["Subject"].endswith("(half your time is gone)")
        assert_mail_says_the_pages_deadline(message, user, game)


def test_a_digest_sent_by_celery_beat_says_the_deadline_of_the_players_page(veto_question, smtp_server, committed):  # noqa: F811
    game, seats, mover, move = veto_question
    committed(moving.submit_move, game, user=seats[mover], move=move, expected_version=game.version)
    game.refresh_from_db()
    tokyo = next(user for user in seats.values() if user.time_zone == "Asia/Tokyo")
    tokyo.digest = "daily"
    tokyo.save(update_fields=["digest"])
    smtp_server.messages.clear()
    # Noon in Tokyo, past the digest hour; beat's task runs with UTC active.
    noon = datetime.now(ZoneInfo("Asia/Tokyo")).replace(hour=12, minute=0, second=0, microsecond=0)
    with timezone.override(UTC):
        assert digests.send_digests(noon.astimezone(UTC)) == 1
    recipients, message = smtp_server.take()
    assert recipients == [tokyo.email]
    assert_mail_says_the_pages_deadline(message, tokyo, game, pattern=DIGEST_DEADLINE)
