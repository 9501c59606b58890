import json
import math
import re

from django import forms

from .models import DEFAULT_TIME_PER_MOVE, TIME_PER_MOVE_CHOICES


class NewGameForm(forms.Form):
    num_players = forms.TypedChoiceField(
        label="Players", choices=[(n, str(n)) for n in range(2, 6)], coerce=int, initial=4
    )
    short_game = forms.TypedChoiceField(
        label="Length",
        choices=[(False, "9 rounds"), (True, "6 rounds (short game)")],
        coerce=lambda value: value in (True, "True"),
        initial=False,
        widget=forms.RadioSelect,
    )
    veto = forms.BooleanField(label="Play with the veto cards", required=False, initial=True)
    show_castillo = forms.BooleanField(
        label="Show the Castillo's counts", required=False, initial=False
    )
    time_per_move = forms.TypedChoiceField(
        label="Time per move", choices=TIME_PER_MOVE_CHOICES, coerce=int,
        initial=DEFAULT_TIME_PER_MOVE,
    )
    vacations_allowed = forms.BooleanField(
        label="Vacations stop the clocks (slow games only)",
        required=False,
        initial=True,
        help_text="A player on vacation (see the settings) then has their deadlines in this game moved past it.",
    )
    rated = forms.BooleanField(
        label="Rated",
        required=False,
        initial=False,
        help_text="The result changes the players' ratings on the ladders. Only players with a verified email "
        "address can join.",
    )
    private = forms.BooleanField(
        label="Private (only people with the invitation link can join)", required=False
    )


class FiniteJSONDecoder(json.JSONDecoder):
    """JSON as the standard allows it: no NaN or Infinity, which no database's JSON type stores."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, parse_constant=self._refuse, parse_float=self._finite, **kwargs)

    @staticmethod
    def _refuse(name):
        raise ValueError(f"{name} is not a number a move can hold.")

    @staticmethod
    def _finite(text):
        number = float(text)
        if not math.isfinite(number):
            raise ValueError(f"{text} is not a number a move can hold.")
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
    return f"A move cannot hold NUL characters or lone surrogates (found in {ascii(text[:40])})."


class MoveField(forms.JSONField):
    """A move as JSON: small (a move is a few hundred characters; a forged 2 MB one would be
    stored forever), with finite numbers only, and any undecodable text a form error."""

    longest = 4000

    def to_python(self, value):
        if isinstance(value, str) and len(value) > self.longest:
            raise forms.ValidationError(f"A move is at most {self.longest} characters of JSON.")
        try:
            return super().to_python(value)
        except (ValueError, RecursionError) as error:
            if isinstance(error, forms.ValidationError):
                raise
            raise forms.ValidationError("Enter a valid JSON move.") from error

    def validate(self, value):
        super().validate(value)
        found = unstorable_text(value)
        if found is not None:
            raise forms.ValidationError(unstorable_message(found))


class MoveForm(forms.Form):
    move = MoveField(decoder=FiniteJSONDecoder)
    expected_version = forms.IntegerField(min_value=0)
    seat = forms.IntegerField(required=False, min_value=0)

    def clean(self):
        # The panel's own fields become the move (games/moves_forms.py), so every posted name
        # and value is checked, not only those of the `move` field.
        found = unstorable_text(list(self.data.lists()))
        if found is not None:
            raise forms.ValidationError(unstorable_message(found))
        return super().clean()
