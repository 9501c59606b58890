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
    rated = forms.BooleanField(label="Rated", required=False, initial=False)
    private = forms.BooleanField(
        label="Private (only people with the invitation link can join)", required=False
    )


class MoveForm(forms.Form):
    move = forms.JSONField()
    expected_version = forms.IntegerField(min_value=0)
    seat = forms.IntegerField(required=False, min_value=0)
