"""How every list of games shows a game (the lobby's lists, the archive): its players with their
colours, whose move it is, and the final ranking. Rows are built from the public summary services
store on Game (round, colours, standings, to_act, deadline) and the seats with their users; the
stored state, which holds the whole log, is never loaded for a list."""

from dataclasses import dataclass, field
from datetime import datetime

from django.urls import reverse

from accounts.models import DELETED_NAME, User
from games.engine.state import num_rounds
from games.models import TIME_PER_MOVE_CHOICES, Game, Seat
from games.words.texts import colour_letter, computer_name, seat_name


def _row(game, seats, user):
    """A list's row of `game` (a RowGame) with its `seats` in their order, for `user`."""
    players = [_player(game, seat, user) for seat in seats]
    by_seat = {player["seat"]: player for player in players if player["seat"] is not None}
    ranking = [
        {**by_seat[seat], "place": place, "score": score}
        for place, seat, score in game.standings
        if seat in by_seat
    ]
    return {
        "game": game,
        "players": players,
        "free_seats": game.num_players - len(seats),
        "your_move": any(player["you"] and player["to_act"] for player in players),
        "to_move": [player for player in players if player["to_act"]],
        "ranking": ranking,
    }


def _player(game, seat, user):
    colour = game.colours[seat.index] if seat.index is not None and game.colours else None
    return {
        "seat": seat.index,
        "username": seat_name(seat),
        # None for a player who is not a user of the site (an imported game).
        "user": seat.user,
        "colour": colour,
        "label": colour_letter(colour),
        "you": seat.user_id is not None and seat.user_id == user.pk,
        "to_act": seat.index is not None and seat.index in game.to_act,
        "autopilot": seat.autopilot and game.status == Game.Status.ACTIVE,
        "computer": seat.computer,
    }


# ---- finished games from plain rows: the archive --------------------------------------------------


@dataclass(slots=True)
class ListedGame:
    """A finished game as the archive shows it, from a `values()` row: what its page and its JSON
    read of a Game (`pk`, options, finish time, link), without a model instance."""

    pk: int
    finished_at: datetime
    num_players: int
    short_game: bool
    veto: bool
    rated: bool
    practice: bool
    private: bool
    imported: bool

    @property
    def num_rounds(self):
        return num_rounds(self.short_game)

    def get_absolute_url(self):
        return reverse("game", args=[self.pk])


@dataclass(slots=True)
class ListedUser:
    """A seat's player as the archive's links read it (`pk`, `username`, `deleted_at`)."""

    pk: int
    username: str
    deleted_at: datetime | None


_LISTED_FIELDS = ("num_players", "short_game", "veto", "rated", "practice", "private", "imported")


def finished_rows(ids):
    """{game id: its row} for the finished games `ids`, as `row` makes it for the archive's
    needs ("game" and "ranking"), from two `values()` queries (the games, their seats with their
    users' names): no model instance, which for a page of 100 games was most of its time."""
    games = (
        Game.objects.filter(pk__in=ids).order_by().values("pk", "finished_at", "standings", "colours", *_LISTED_FIELDS)
    )
    seats_of = {}
    seats = Seat.objects.filter(game_id__in=ids).order_by().values_list(
        "game_id", "index", "name", "computer", "user_id", "user__username", "user__deleted_at"
    )
    for game_id, index, name, computer, user_id, username, deleted_at in seats:
        if index is None:
            continue
        user = None if user_id is None else ListedUser(user_id, username, deleted_at)
        if user is None:
            shown = name
        elif computer and not deleted_at:
            shown = computer_name(username, computer)
        else:
            shown = str(DELETED_NAME) if deleted_at else username
        seats_of.setdefault(game_id, {})[index] = (shown, user)
    rows = {}
    # A colour's letter once per page, not once per seat (a translation lookup each).
    letters = {}
    for values in games:
        game = ListedGame(values["pk"], values["finished_at"], *(values[name] for name in _LISTED_FIELDS))
        seats, colours = seats_of.get(game.pk, {}), values["colours"]
        ranking = []
        for place, seat, score in values["standings"]:
            if seat not in seats:
                continue
            shown, user = seats[seat]
            colour = colours[seat] if colours else None
            if colour not in letters:
                letters[colour] = colour_letter(colour)
            ranking.append({
                "seat": seat, "username": shown, "user": user, "colour": colour, "label": letters[colour],
                "place": place, "score": score,
            })
        rows[game.pk] = {"game": game, "ranking": ranking}
    return rows


# ---- any list's games from plain rows: the lobby's lists, the profile's ---------------------------

_TIME_LABELS = dict(TIME_PER_MOVE_CHOICES)
_ROW_FIELDS = (
    "status", "num_players", "short_game", "veto", "show_castillo", "time_per_move", "vacations_allowed", "rated",
    "practice", "private", "imported", "round", "to_act", "colours", "standings", "deadline", "creator_id",
    "created_at", "started_at", "finished_at",
)


@dataclass(slots=True)
class RowGame:
    """A game as the lobby's and the profile's lists read it, from a `values()` row: the fields
    of Game they show, and its seats (`RowSeat`), without a model instance."""

    pk: int
    status: str
    num_players: int
    short_game: bool
    veto: bool
    show_castillo: bool
    time_per_move: int
    vacations_allowed: bool
    rated: bool
    practice: bool
    private: bool
    imported: bool
    round: int | None
    to_act: list
    colours: list
    standings: list
    deadline: datetime | None
    creator_id: int | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    seats: list = field(default_factory=list)

    # Game's own rules, read from the same fields.
    num_rounds = property(Game.num_rounds.fget)
    slow = property(Game.slow.fget)
    clocks_stop_for_vacations = property(Game.clocks_stop_for_vacations.fget)
    get_absolute_url = Game.get_absolute_url

    def get_time_per_move_display(self):
        """As Game's: the choice's label, or the number of seconds for one no longer offered."""
        return self._time_label(self.time_per_move)

    @staticmethod
    def _time_label(seconds):
        label = _TIME_LABELS.get(seconds)
        return seconds if label is None else str(label)


@dataclass(slots=True)
class RowUser:
    """A seat's player as the lists read it (`pk`, `username`, `deleted_at`, and the time zone
    that a vacation's days are counted in)."""

    pk: int
    username: str
    deleted_at: datetime | None
    time_zone: str

    zone = property(User.zone.fget)
    display_name = property(User.display_name.fget)
    get_absolute_url = User.get_absolute_url


@dataclass(slots=True)
class RowSeat:
    """A seat as the lists read it: what `games.words.texts.seat_name` and the clocks read."""

    index: int | None
    name: str
    user_id: int | None
    user: RowUser | None
    autopilot: bool
    computer: str

    display_name = property(Seat.display_name.fget)


def rows_of(ids, viewer):
    """{game id: its row} for the games `ids`, as `row` makes it for `viewer` (the same keys and
    values; "game" a `RowGame`), from two `values()` queries: the games, and their seats with
    their users' names. No model instance: for a page of the lobby they were most of its time."""
    if not ids:
        return {}
    seats_of = {}
    seats = Seat.objects.filter(game_id__in=ids).order_by(*Seat._meta.ordering).values_list(
        "game_id", "index", "name", "user_id", "autopilot", "computer",
        "user__username", "user__deleted_at", "user__time_zone",
    )
    for game_id, index, name, user_id, autopilot, computer, username, deleted_at, time_zone in seats:
        user = None if user_id is None else RowUser(user_id, username, deleted_at, time_zone)
        seats_of.setdefault(game_id, []).append(RowSeat(index, name, user_id, user, autopilot, computer))
    rows = {}
    for values in Game.objects.filter(pk__in=ids).order_by().values("pk", *_ROW_FIELDS):
        game = RowGame(**values, seats=seats_of.get(values["pk"], []))
        rows[game.pk] = _row(game, game.seats, viewer)
    return rows
