"""The languages' own typography: French puts a non-breaking space before ':' ';' '!' and '?';
Italian writes month and day names in lower case, on pages and in mails."""

import datetime
import re
from pathlib import Path

import pytest
from django.template import Context, Template
from django.utils import translation

from tests.support.po import read

FRENCH = Path(__file__).resolve().parents[2] / "locale" / "fr" / "LC_MESSAGES" / "django.po"
# A mark ending a clause (a space, a quote, a bracket, a tag or the end after it), right after an
# ordinary space or with no space at all after a word, a placeholder or a closing mark.
MARK = r"[:;!?](?=[\s\"»)<]|$)"
WITHOUT_SPACE = re.compile(r"(?: |[^\W\d_]|\)s|[)»}]|\d)" + MARK)


def test_french_puts_a_non_breaking_space_before_colons_and_the_other_double_marks():
    wrong = [
        (entry.msgid, text)
        for entry in read(FRENCH) if entry.msgid and not entry.obsolete
        for text in entry.msgstr if WITHOUT_SPACE.search(text)
    ]
    assert wrong == [], f"{len(wrong)} French entries, e.g. {wrong[:3]}"


@pytest.mark.parametrize("language, expected", [
    ("it", "venerdì 27 novembre 2026, ven 27 · 27 novembre"),
    ("fr", "vendredi 27 novembre 2026, ven 27 · 27 novembre"),
    ("en", "Friday 27 November 2026, Fri 27 · 27 November"),
])
def test_month_and_day_names_are_written_as_each_language_writes_them(language, expected):
    day = datetime.datetime(2026, 11, 27, 15, 0)
    template = Template('{{ day|date:"l j F Y, D j" }} · {{ day|date:"j E" }}')
    with translation.override(language):
        assert template.render(Context({"day": day})) == expected



@pytest.mark.parametrize("language, expected", [
    ("it", "ven 27 nov, 15:00 · 27 nov 2026 · M"),
    ("fr", "ven 27 nov., 15:00 · 27 nov. 2026 · M"),
    ("en", "Fri 27 Nov, 15:00 · 27 Nov 2026 · M"),
])
def test_short_month_names_are_written_as_each_language_writes_them(language, expected):
    """Django's "M" capitalises a month whatever the catalogue says ("Nov" in Italian): the site's
    date filter (games.templatetags.typography.py) writes it in lower case in Italian and with
    the French abbreviations in French; an escaped M stays a letter."""
    day = datetime.datetime(2026, 11, 27, 15, 0)
    template = Template('{{ day|date:"D j M, H:i" }} · {{ day|date:"j M Y" }} · {{ day|date:"\\M" }}')
    with translation.override(language):
        assert template.render(Context({"day": day})) == expected

# Placeholders that stand for a card's or an area's name, whose French article varies: "de
# l'Intrigue", "d'Aragon", "du Pays basque", "au Pays basque". A sentence must not put "de", "en",
# "du" or "au" right before one.
NAMED = r"(?:\{(?:card|region|area|from|to|where|home|king)\}|%\((?:card|region|area|from|to|where|home|king)\)s)"
BARE_ARTICLE = re.compile(r"\b(?:de|en|du|au)\s" + NAMED)


def test_french_never_puts_a_bare_de_or_en_before_a_card_or_region_name():
    wrong = [
        (entry.msgid, text)
        for entry in read(FRENCH) if entry.msgid and not entry.obsolete
        for text in entry.msgstr if BARE_ARTICLE.search(text)
    ]
    assert wrong == [], wrong
