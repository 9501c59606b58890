"""Each language's typography, loaded as a builtin so that every page and mail uses it.

`colon`: the colon after a label, with the non-breaking space French puts before it ("Scores :").
`date`: Django's `date` filter as each language writes its short month names: Italian writes them
in lower case ("27 nov 2026") and French with its own abbreviations ("27 nov. 2026"). Django's "M"
capitalises the month whatever the catalogue says, so "M" becomes "b" (lower case) in Italian and
"N" (the press's abbreviations) in French."""

from django import template
from django.template.defaultfilters import date as django_date
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from games.words import texts

register = template.Library()

SHORT_MONTH = {"it": "b", "fr": "N"}


def spoken_format(format_string, language):
    """`format_string` with each unescaped "M" written as `language` writes a short month."""
    letter = SHORT_MONTH.get((language or "")[:2])
    if not format_string or letter is None:
        return format_string
    out, escaped = [], False
    for char in format_string:
        out.append(letter if char == "M" and not escaped else char)
        escaped = char == "\\" and not escaped
    return "".join(out)


@register.filter(expects_localtime=True, is_safe=False)
def date(value, arg=None):
    return django_date(value, spoken_format(arg, get_language()))


@register.simple_tag
def colon():
    """A colon after a label: French puts a non-breaking space before it, as before ';', '!', '?'."""
    return mark_safe(texts.colon())
