"""End to end through a real SMTP server (aiosmtpd): one move, made from Sydney, mails players in
Tokyo (Italian), New York (English) and Madrid (French); each mail tells its turn report, its
deadline and the players' names in its reader's language and zone, as their own game page does."""

import json
import re

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.html import strip_tags
from django.utils.translation import gettext, ngettext

from games.engine import to_act
from games.models import Move
from games.words.log_text import COLOUR_WORDS
from games.words.texts import card_title
from tests.support.helpers import logged_in, state_of
from tests.support.notifications import veto_question as veto_question  # noqa: F401 (a fixture)
from tests.support.site_mail import body, html_part
from tests.support.site_mail import smtp_server as smtp_server  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

LANGUAGES = {"Asia/Tokyo": "it", "America/New_York": "en", "Europe/Madrid": "fr"}
# The deadline, in any of the three languages ("La tua scadenza: ...", "Votre échéance : ...").
MAIL_DEADLINE = re.compile(
    r"(?:Your deadline|La tua scadenza|Votre échéance)\s?: (?:<strong>)?"
    r"(\w+) (\d+) (\w+), (\d\d:\d\d) (\S+?)(?:</strong>)? \(([^)]+)\)"
)
PAGE_CLOCK = re.compile(r'<p class="clock">[^<]*?: (\w+)\.? (\d+) (\w+)\.?, (\d\d:\d\d) (\S+) ·')


def in_language(language, message, **values):
    with translation.override(language):
        return gettext(message) % values if values else gettext(message)


def test_one_move_mails_three_zones_and_languages_each_its_own_report_deadline_and_names(
    veto_question, smtp_server, django_capture_on_commit_callbacks  # noqa: F811
):
    game, seats, mover, move = veto_question
    for user in seats.values():
        user.language = LANGUAGES.get(user.time_zone, "en")
        user.save(update_fields=["language"])
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in(seats[mover]).post(
            reverse("move", args=[game.pk]), {"move": json.dumps(move), "expected_version": game.version}
        )
    assert response.status_code == 302
    game.refresh_from_db()
    assert set(to_act(state_of(game))) == set(seats)
    received = {tuple(recipients): message for recipients, message in smtp_server.messages}
    told = [user for index, user in seats.items() if index != mover]
    assert sorted(received) == sorted((user.email,) for user in told)
    assert sorted(user.language for user in told) == ["en", "fr", "it"]
    mover_name = seats[mover].username
    taken = next(event for events in Move.objects.filter(game=game).values_list("events", flat=True)
                 for event in events if event["event"] == "take_card" and event["seat"] == mover)
    clocks = set()
    for user in told:
        language = user.language
        message = received[(user.email,)]
        text, html = body(message), html_part(message)
        assert f'<html lang="{language}">' in html
        with translation.override(language):
            colour = str(COLOUR_WORDS[game.colours[mover]])
            places = gettext("{player} places {spread}.").split("{player}")[1].split("{spread}")[0]
            card = str(card_title(taken["card"]))
            hello = gettext("Hello %(recipient)s,") % {"recipient": user.username}
        moves = Move.objects.filter(game=game, version__gt=Move.objects.filter(
            game=game, seat__user=user).latest("version").version).count()
        with translation.override(language):
            heading = ngettext(
                "Since your last move: %(count)d move by the others",
                "Since your last move: %(count)d moves by the others",
                moves,
            ) % {"count": moves}
        for part in (text, html):
            assert hello in part
            # The report, in the reader's words: its heading, the mover by name and colour, what he
            # did and the card he took by its title.
            report = part[part.index(heading):]
            assert f"{mover_name} ({colour})" in report
            assert f"{mover_name} ({colour}){places}" in strip_tags(report)
            assert card in report
            # The deadline of the reader's own game page, in their zone and language.
            mailed = MAIL_DEADLINE.search(part)
            assert mailed, part
            weekday, day, month, time, abbreviation, zone = mailed.groups()
            page = PAGE_CLOCK.search(logged_in(user).get(reverse("game", args=[game.pk])).content.decode())
            assert page, "no deadline on the page"
            assert weekday.lower().startswith(page[1].lower()) and month.lower().startswith(page[3].lower())
            assert (day, time, abbreviation, zone) == (page[2], page[4], page[5], user.time_zone)
            clocks.add(time)
        if language == "fr":
            # French puts a non-breaking space before a colon, in the templates' labels too.
            assert not re.search(r"(?:[^\W\d_]|\)|\d) ?:(?=\s)", text), re.findall(r".{20}\S ?:\s", text)
        # None of the other languages' greetings.
        for other in set(LANGUAGES.values()) - {language}:
            assert in_language(other, "Hello %(recipient)s,", recipient=user.username) not in text
    assert len(clocks) == 3, "three zones, three clocks"
