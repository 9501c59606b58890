import json
import math

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
    rated = forms.BooleanField(label="Rated (the rating ladders are not computed yet)", required=False, initial=False)
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


class MoveForm(forms.Form):
    move = MoveField(decoder=FiniteJSONDecoder)
    expected_version = forms.IntegerField(min_value=0)
    seat = forms.IntegerField(required=False, min_value=0)
