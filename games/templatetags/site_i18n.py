"""The words the page's scripts say, in the page's language (static/clocks.js reads them)."""

from django import template
from django.utils.html import json_script
from django.utils.translation import gettext, pgettext_lazy

from games import clocks
from games.words import texts
from games.words.log_text import COLOUR_WORDS

register = template.Library()


@register.simple_tag
def your_move_prefix():
    """The title's prefix while the reader has a move to make."""
    return clocks.your_move_prefix()


@register.simple_tag
def clock_texts():
    """A JSON script element with the countdown's patterns (clocks.time_left_text's) and the
    title's prefix, so that the script counts down in the reader's language."""
    return json_script(
        {
            "prefix": clocks.your_move_prefix(),
            "up": gettext("time is up"),
            **clocks.left_patterns(),
        },
        "clock-texts",
    )


@register.filter
def area_in_words(area_id):
    """A region's name in the reader's language (games/words/texts.py), for figures kept in the cache in
    whichever language computed them (the statistics)."""
    return texts.area_name(area_id)


@register.filter
def card_in_words(card_id):
    """An action card's title in the reader's language (games/words/texts.py)."""
    return texts.card_title(card_id)


# The engine's phases (GameState.phase) in words.
PHASES = {
    "bid": pgettext_lazy("phase of a round", "bidding"),
    "court": pgettext_lazy("phase of a round", "court"),
    "card": pgettext_lazy("phase of a round", "taking a card"),
    "action": pgettext_lazy("phase of a round", "action"),
    "special": pgettext_lazy("phase of a round", "special action"),
    "castillo": pgettext_lazy("phase of a round", "Castillo choices"),
    "over": pgettext_lazy("phase of a round", "over"),
}


@register.filter
def phase_in_words(phase):
    return PHASES.get(phase, phase)


@register.filter
def colour_in_words(colour):
    """A player's colour in the reader's words, as the log says it (games/words/log_text.py)."""
    return COLOUR_WORDS.get(colour, colour)
