"""A posted move as JSON: the form field that reads it, and the checks that keep what no database
can store (NaN, Infinity, NUL, lone surrogates) out of a move."""

import json
import math
import re

from django import forms
from django.utils.translation import gettext as _


class FiniteJSONDecoder(json.JSONDecoder):
    """JSON as the standard allows it: no NaN or Infinity, which no database's JSON type stores."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, parse_constant=self._refuse, parse_float=self._finite, **kwargs)

    @staticmethod
    def _refuse(name):
        raise ValueError(_("%(number)s is not a number a move can hold.") % {"number": name})

    @staticmethod
    def _finite(text):
        number = float(text)
        if not math.isfinite(number):
            raise ValueError(_("%(number)s is not a number a move can hold.") % {"number": text})
        return number


# NUL and lone surrogates (U+D800 to U+DFFF: the JSON escape "\ud800" decodes to one) are text
# that PostgreSQL cannot store and UTF-8 cannot encode, so no move may carry them.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def unstorable_text(value):
    """The first string in `value` (JSON as decoded, keys included, or lists and tuples of
    strings) holding a NUL character or a lone surrogate; None when there is none."""
    if isinstance(value, str):
        return value if UNSTORABLE.search(value) else None
    if isinstance(value, dict):
        value = [*value.keys(), *value.values()]
    if isinstance(value, (list, tuple)):
        for item in value:
            found = unstorable_text(item)
            if found is not None:
                return found
    return None


def unstorable_message(text):
    return _("A move cannot hold NUL characters or lone surrogates (found in %(text)s).") % {"text": ascii(text[:40])}


class MoveField(forms.JSONField):
    """A move as JSON: small (a move is a few hundred characters; a forged 2 MB one would be
    stored forever), with finite numbers only, and any undecodable text a form error."""

    longest = 4000

    def to_python(self, value):
        if isinstance(value, str) and len(value) > self.longest:
            raise forms.ValidationError(
                _("A move is at most %(count)d characters of JSON.") % {"count": self.longest}
            )
        try:
            return super().to_python(value)
        except (ValueError, RecursionError) as error:
            if isinstance(error, forms.ValidationError):
                raise
            raise forms.ValidationError(_("Enter a valid JSON move.")) from error

    def validate(self, value):
        super().validate(value)
        found = unstorable_text(value)
        if found is not None:
            raise forms.ValidationError(unstorable_message(found))
