"""The archive: finished games, newest first, filtered by players, options and dates, a page at a
time; from the rows of `Result`, one per seat, written when a game finishes (games/play/results.py).

A page is cut by keyset, never by OFFSET (games/reading/keyset.py): a cursor is the position (finish
time, game id) of the game the page goes on from, so the hundredth page costs what the first does.
A page takes a fixed number of queries, each answered from an index:

- the public games: without a player filter, from Game's partial index `game_archive_idx`; with
  one, from that player's rows of `Result` (`result_player_idx`), a second player looked up in
  each of those games by the unique (game, user) index;
- the viewer's own private games, which nobody else is ever shown: from the viewer's `Result` rows;
- then the page's games, and their seats with the users.

Both lists of keys are read in archive order up to one more than a page, merged, and cut.
"""

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django import forms
from django.apps import apps
from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from games.models import Game, Result
from games.reading import keyset, listing
from games.words.texts import colon

PAGE_SIZE = 25
MOST_PER_PAGE = 100
# El Grande was published in 1995: no game finished before. The far end only keeps dates sane.
FIRST_DATE = date(1995, 1, 1)
LAST_DATE = date(2999, 12, 31)


# ---- reading: the filters, the cursor, a page -------------------------------------------------


@dataclass(frozen=True)
class Filters:
    """What the archive is asked for; None: either. `players`: users who all sat in the game.
    `since` and `until` are instants: from `since` on, before `until`."""

    players: tuple = ()
    num_players: int | None = None
    short_game: bool | None = None
    veto: bool | None = None
    rated: bool | None = None
    practice: bool | None = None
    since: datetime | None = None
    until: datetime | None = None
    # The games of one tournament (tournaments.Tournament), or None.
    tournament: object = None

    def apply(self, queryset):
        """Narrow a queryset of Game or of Result (which repeats these fields) to the options
        and dates asked for."""
        for name in ("num_players", "short_game", "veto", "rated", "practice"):
            if getattr(self, name) is not None:
                queryset = queryset.filter(**{name: getattr(self, name)})
        if self.since is not None:
            queryset = queryset.filter(finished_at__gte=self.since)
        if self.until is not None:
            queryset = queryset.filter(finished_at__lt=self.until)
        if self.tournament is not None:
            table = "tournament_table" if queryset.model is Game else "game__tournament_table"
            queryset = queryset.filter(**{f"{table}__tournament": self.tournament})
        return queryset


def page(viewer, filters=Filters(), cursor=None, size=None, listed=False):
    """The page of the archive `viewer` (perhaps anonymous) asked for: public games, and private
    ones only to a viewer who sat in them. `size`: games a page, by default PAGE_SIZE.

    `listed`: rows of what the archive's page and JSON show alone (a "game" that is not a model
    instance, its "ranking"), read as plain values (listing.finished_rows); else the rows of
    every list of games (listing.rows_of), as the profile and the lobby read them."""
    size = size or PAGE_SIZE
    keys = _public_keys(filters, cursor, size + 1)
    if viewer.is_authenticated:
        keys += _private_keys(viewer, filters, cursor, size + 1)
    rows_of = listing.finished_rows if listed else None
    return keyset.page_of(keys, cursor, size, viewer, "finished_at", rows_of=rows_of)


def _public_keys(filters, cursor, limit):
    if filters.players:
        results = _with_players(Result.objects.filter(user=filters.players[0], private=False), filters.players[1:])
        return keyset.page_keys(filters.apply(results), cursor, limit, "finished_at", "game_id")
    games = Game.objects.filter(status=Game.Status.FINISHED, private=False)
    return keyset.page_keys(filters.apply(games), cursor, limit, "finished_at", "id")


def _private_keys(viewer, filters, cursor, limit):
    others = [player for player in filters.players if player.pk != viewer.pk]
    results = _with_players(Result.objects.filter(user=viewer, private=True), others)
    return keyset.page_keys(filters.apply(results), cursor, limit, "finished_at", "game_id")


def _with_players(results, players):
    for player in players:
        results = results.filter(Exists(Result.objects.filter(game=OuterRef("game"), user=player)))
    return results


# ---- the filters as a form: the archive's URL -------------------------------------------------

YES_NO = [("", gettext_lazy("either")), ("yes", gettext_lazy("yes")), ("no", gettext_lazy("no"))]


class ArchiveForm(forms.Form):
    """The archive's query string: every filter and the page's cursor. Anything it refuses gets
    a 400 with the reason, and no list."""

    player = forms.CharField(required=False, max_length=150, label=gettext_lazy("Player"))
    against = forms.CharField(required=False, max_length=150, label=gettext_lazy("Against"))
    players = forms.TypedChoiceField(
        required=False, label=gettext_lazy("Players"), coerce=int, empty_value=None,
        choices=[("", gettext_lazy("any"))] + [(str(n), str(n)) for n in range(2, 6)],
    )
    rounds = forms.TypedChoiceField(
        required=False,
        label=gettext_lazy("Rounds"),
        coerce=int,
        empty_value=None,
        choices=[("", gettext_lazy("any")), ("9", "9"), ("6", "6")],
    )
    veto = forms.ChoiceField(required=False, label=gettext_lazy("Veto cards"), choices=YES_NO)
    rated = forms.ChoiceField(required=False, label=gettext_lazy("Rated"), choices=YES_NO)
    practice = forms.ChoiceField(required=False, label=gettext_lazy("With computer players"), choices=YES_NO)
    since = forms.DateField(
        required=False, label=gettext_lazy("Finished from"), widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        required=False,
        label=pgettext_lazy("archive filter: finished from a date to another", "to"),
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    after = forms.CharField(required=False, max_length=40, widget=forms.HiddenInput)
    before = forms.CharField(required=False, max_length=40, widget=forms.HiddenInput)
    tournament = forms.IntegerField(
        required=False, min_value=1, max_value=2**31 - 1, label=gettext_lazy("Tournament"), widget=forms.HiddenInput
    )

    def clean_tournament(self):
        number = self.cleaned_data["tournament"]
        if number is None:
            return None
        tournament = apps.get_model("tournaments", "Tournament").objects.filter(pk=number).first()
        if tournament is None:
            raise forms.ValidationError(_("There is no tournament %(number)d.") % {"number": number})
        return tournament

    def clean_player(self):
        return self._player("player")

    def clean_against(self):
        return self._player("against")

    def _player(self, name):
        username = self.cleaned_data[name].strip()
        if not username:
            return None
        user = get_user_model().objects.filter(username=username, deleted_at__isnull=True).first()
        if user is None:
            raise forms.ValidationError(_("No player is called “%(name)s”.") % {"name": username})
        return user

    def _date(self, name):
        value = self.cleaned_data[name]
        if value is not None and not FIRST_DATE <= value <= LAST_DATE:
            raise forms.ValidationError(
                _("Give a date from %(first)s (El Grande was published in 1995) to %(last)s.")
                % {"first": date_format(FIRST_DATE, "j F Y"), "last": LAST_DATE.year}
            )
        return value

    def clean_since(self):
        return self._date("since")

    def clean_until(self):
        return self._date("until")

    def _cursor(self, name, older):
        token = self.cleaned_data[name]
        if not token:
            return None
        try:
            return keyset.Cursor.parse(token, older=older)
        except ValueError as error:
            message = _("This page link is damaged: %(reason)s. Start again from the first page.") % {"reason": error}
            raise forms.ValidationError(message) from None

    def clean_after(self):
        return self._cursor("after", older=True)

    def clean_before(self):
        return self._cursor("before", older=False)

    def clean(self):
        data = super().clean()
        player, against = data.get("player"), data.get("against")
        if player is not None and against is not None and player.pk == against.pk:
            self.add_error("against", _("Name two different players."))
        since, until = data.get("since"), data.get("until")
        if since is not None and until is not None and since > until:
            self.add_error("until", _("The dates are the wrong way round: this one is before the first."))
        if data.get("after") is not None and data.get("before") is not None:
            raise forms.ValidationError(_("A page goes on either after a game or before one, not both."))
        return data

    def filters(self):
        """The valid form's filters. Dates are whole days in the current time zone (the viewer's)."""
        data = self.cleaned_data
        zone = timezone.get_current_timezone()
        return Filters(
            players=tuple(user for user in (data["player"], data["against"]) if user is not None),
            num_players=data["players"],
            short_game=None if data["rounds"] is None else data["rounds"] == 6,
            veto=_yes_no(data["veto"]),
            rated=_yes_no(data["rated"]),
            practice=_yes_no(data["practice"]),
            since=datetime.combine(data["since"], time.min, zone) if data["since"] else None,
            until=datetime.combine(data["until"] + timedelta(days=1), time.min, zone) if data["until"] else None,
            tournament=data.get("tournament"),
        )

    def cursor(self):
        return self.cleaned_data["after"] or self.cleaned_data["before"]

    def error_text(self):
        """Every reason the form was refused, in one sentence per field."""
        messages = []
        for name, errors in self.errors.items():
            label = self.fields[name].label if name in self.fields else None
            text = " ".join(errors)
            messages.append(f"{label}{colon()} {text}" if label and name not in ("after", "before") else text)
        return " ".join(messages)


def _yes_no(value):
    return {"yes": True, "no": False}.get(value)
