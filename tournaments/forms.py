from datetime import timedelta

from django import forms
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from games.play import chat
from games.web.forms import NewGameForm

from .models import Tournament
from .pairing import DEFAULT_POINTS


class TournamentForm(forms.Form):
    """What an organiser sets: the tournament, and its games' options as on the new-game form
    (the same fields, taken from games.web.forms.NewGameForm)."""

    name = forms.CharField(label=gettext_lazy("Name"), max_length=100)
    description = forms.CharField(
        label=gettext_lazy("Description"), max_length=2000, required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    format = forms.ChoiceField(label=gettext_lazy("Format"), choices=Tournament.Format.choices)
    first_round = forms.ChoiceField(
        label=gettext_lazy("First round seated"), choices=Tournament.FirstRound.choices
    )
    table_size = forms.TypedChoiceField(
        label=gettext_lazy("Players per table"), choices=[(n, str(n)) for n in (3, 4, 5)], coerce=int, initial=4,
        help_text=gettext_lazy("Tables of one more or one fewer are made when the entrants do not divide evenly."),
    )
    rounds = forms.IntegerField(label=gettext_lazy("Rounds (games per player)"), min_value=1, max_value=9, initial=3)
    points = forms.CharField(
        label=gettext_lazy("Tournament points by place"), initial=", ".join(map(str, DEFAULT_POINTS)), max_length=40,
        help_text=gettext_lazy("First place first, separated by commas; players who tie share the place."),
    )
    signup_days = forms.IntegerField(
        label=gettext_lazy("Sign-up open for (days)"), min_value=1, max_value=60, initial=7,
        help_text=gettext_lazy("It starts then, or earlier when you start it."),
    )
    short_game = NewGameForm.base_fields["short_game"]
    veto = NewGameForm.base_fields["veto"]
    show_castillo = NewGameForm.base_fields["show_castillo"]
    time_per_move = NewGameForm.base_fields["time_per_move"]
    vacations_allowed = NewGameForm.base_fields["vacations_allowed"]
    rated = NewGameForm.base_fields["rated"]

    def clean_name(self):
        # A name of characters that print as nothing (Hangul fillers...) listed a blank tournament.
        name = self.cleaned_data["name"]
        if not chat.without_invisible(name):
            raise forms.ValidationError(self.fields["name"].error_messages["required"], code="required")
        return name

    def clean_points(self):
        text = self.cleaned_data["points"]
        try:
            points = [int(part) for part in text.replace(";", ",").split(",") if part.strip()]
        except ValueError:
            raise forms.ValidationError(gettext("Write the points as whole numbers separated by commas.")) from None
        if not 1 <= len(points) <= 5 or any(not 0 <= p <= 100 for p in points):
            raise forms.ValidationError(gettext("Give one to five numbers of points, each from 0 to 100."))
        if points != sorted(points, reverse=True):
            raise forms.ValidationError(gettext("A better place cannot earn fewer points than a worse one."))
        return points

    def clean(self):
        data = super().clean()
        if data.get("format") == Tournament.Format.GROUPS and (data.get("rounds") or 0) < 2:
            self.add_error(
                "rounds", gettext("Groups then a final needs at least 2 rounds: the groups, then the final.")
            )
        return data

    def tournament_fields(self):
        data = dict(self.cleaned_data)
        data["signup_closes_at"] = timezone.now() + timedelta(days=data.pop("signup_days"))
        return data
