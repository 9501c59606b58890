
from django import forms
from django.utils.translation import gettext, gettext_lazy

from games.models import DEFAULT_TIME_PER_MOVE, TIME_PER_MOVE_CHOICES


class NewGameForm(forms.Form):
    num_players = forms.TypedChoiceField(
        label=gettext_lazy("Players"), choices=[(n, str(n)) for n in range(2, 6)], coerce=int, initial=4
    )
    short_game = forms.TypedChoiceField(
        label=gettext_lazy("Length"),
        choices=[(False, gettext_lazy("9 rounds")), (True, gettext_lazy("6 rounds (short game)"))],
        coerce=lambda value: value in (True, "True"),
        initial=False,
        widget=forms.RadioSelect,
    )
    veto = forms.BooleanField(label=gettext_lazy("Play with the veto cards"), required=False, initial=True)
    show_castillo = forms.BooleanField(
        label=gettext_lazy("Show the Castillo's counts"), required=False, initial=False
    )
    time_per_move = forms.TypedChoiceField(
        label=gettext_lazy("Time per move"), choices=TIME_PER_MOVE_CHOICES, coerce=int,
        initial=DEFAULT_TIME_PER_MOVE,
    )
    vacations_allowed = forms.BooleanField(
        label=gettext_lazy("Vacations stop the clocks (slow games only)"),
        required=False,
        initial=True,
        help_text=gettext_lazy(
            "A player on vacation (see the settings) then has their deadlines in this game moved past it."
        ),
    )
    rated = forms.BooleanField(
        label=gettext_lazy("Rated"),
        required=False,
        initial=False,
        help_text=gettext_lazy(
            "The result changes the players' ratings on the ladders. Only players with a verified email "
            "address can join."
        ),
    )
    private = forms.BooleanField(
        label=gettext_lazy("Private (only people with the invitation link can join)"), required=False
    )
    # Practice games: seats given to computer players, so many of each level.
    computer_random = forms.IntegerField(
        label=gettext_lazy("Computer players: random"), min_value=0, max_value=4, initial=0, required=False,
        help_text=gettext_lazy("Plays any legal move."),
    )
    computer_greedy = forms.IntegerField(
        label=gettext_lazy("Computer players: greedy"), min_value=0, max_value=4, initial=0, required=False,
        help_text=gettext_lazy("Looks one move ahead."),
    )
    computer_strong = forms.IntegerField(
        label=gettext_lazy("Computer players: strong"), min_value=0, max_value=4, initial=0, required=False,
        help_text=gettext_lazy(
            "Searches for about a second a decision. A game with computer players is a practice game: "
            "unrated for its human players."
        ),
    )

    COMPUTER_LEVELS = ("random", "greedy", "strong")

    def clean(self):
        data = super().clean()
        counts = {level: data.get(f"computer_{level}") or 0 for level in self.COMPUTER_LEVELS}
        computers = [level for level in self.COMPUTER_LEVELS for _ in range(counts[level])]
        for level in self.COMPUTER_LEVELS:
            data.pop(f"computer_{level}", None)
        num_players = data.get("num_players")
        if computers and num_players is not None and len(computers) >= num_players:
            raise forms.ValidationError(
                gettext("A game of %(players)d players has room for at most %(most)d computer players besides you.")
                % {"players": num_players, "most": num_players - 1}
            )
        if computers and data.get("rated"):
            self.add_error("rated", gettext("A game with computer players is a practice game: it cannot be rated."))
        data["computers"] = computers
        return data


class InviteForm(forms.Form):
    """Whom the creator of a private game invites: a username or an email address. Checked before
    any look-up: PostgreSQL refuses a NUL in a query, and SQLite a case-insensitive look-up of
    100,000 characters."""

    who = forms.CharField(
        max_length=254, error_messages={"required": gettext_lazy("Name a player or an email address to invite.")}
    )
