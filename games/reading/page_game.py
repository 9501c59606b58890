"""A running game's page, and its play partial, read their game, its seats and their players in one
SELECT written once per process from the models' fields, and build the model instances from its
rows themselves: the ORM's querysets, built and compiled on every GET, took 2.3-2.9 ms of CPU of a
page served from the view cache, three SELECTs written out 0.5 ms in one process (bench/README.md,
"The cached game page"), and on PostgreSQL each is a round trip more (bench/README.md, "The game
page in two web processes"); a fifth of a play partial's render was its ORM load (bench/README.md,
"The play partial's render halved"). What `viewable_page_game` gives is what
`selectors.viewable_game(request, pk, defer=LARGE)` gives: the game without its large columns,
its seats (prefetched, in their model's order) each with its user and the reader's chat marks
(`muted`, `blocked`: games/play/chat.py) and whether its player may be on vacation (`maybe_away`,
as clocks.with_vacation_hint: the others' vacations are not read), and the same 404 for a game the
reader may not see; `play_game` the same without the chat marks, which only the chat reads (as
`selectors.game_for_play` had it from the ORM)."""

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models.query import QuerySet
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.backends import read_along
from accounts.models import Vacation
from elgrande_site.sql_rows import columns as _columns
from elgrande_site.sql_rows import concrete_fields as _fields
from elgrande_site.sql_rows import converted as _converted
from elgrande_site.sql_rows import holds_id
from elgrande_site.sql_rows import instance as _instance
from elgrande_site.sql_rows import ordering as _order
from games import clocks
from games.access import can_view
from games.models import Game, Move, Seat
from games.play import chat

# The game's columns that only a render needs, not a look in the cache: left for later there.
LARGE = ("state", "first_events")


_GAME_FIELDS = _fields(Game, LARGE)
_WHOLE_GAME_FIELDS = _fields(Game)
_SEAT_FIELDS = _fields(Seat)
_USER_FIELDS = _fields(get_user_model())
_GAME_TABLE, _SEAT_TABLE, _USER_TABLE = Game._meta.db_table, Seat._meta.db_table, get_user_model()._meta.db_table
_SEAT_GAME, _SEAT_USER = Seat._meta.get_field("game").column, Seat._meta.get_field("user").column
# Whether the seat's player has a vacation around today in any time zone (clocks.with_vacation_hint,
# between the days of clocks.vacation_hint_days): only those are asked about their vacations (selectors.vacation_spans).
_AWAY = (
    f'EXISTS (SELECT 1 FROM "{Vacation._meta.db_table}" WHERE "{Vacation._meta.db_table}"."user_id"'
    f' = "{_SEAT_TABLE}"."user_id" AND "{Vacation._meta.db_table}"."start" <= %s'
    f' AND "{Vacation._meta.db_table}"."end" >= %s)'
)
# The game's row once per seat (a game has at most five), or once with NULL seats: a game of none.
_PAGE = (
    f"SELECT {{game}}, {_columns(Seat, _SEAT_FIELDS)},"
    f' {{muted}} AS "muted", {{blocked}} AS "blocked", {_AWAY} AS "maybe_away",'
    f" {_columns(get_user_model(), _USER_FIELDS)}"
    f' FROM "{_GAME_TABLE}"'
    f' LEFT OUTER JOIN "{_SEAT_TABLE}" ON "{_SEAT_TABLE}"."{_SEAT_GAME}" = "{_GAME_TABLE}"."id"'
    f' LEFT OUTER JOIN "{_USER_TABLE}" ON "{_USER_TABLE}"."id" = "{_SEAT_TABLE}"."{_SEAT_USER}"'
    f' WHERE "{_GAME_TABLE}"."id" = %s ORDER BY {_order(Seat)}'
)
_PAGE_OF_READER = _PAGE.format(game=_columns(Game, _GAME_FIELDS), muted=chat.MUTED_SQL, blocked=chat.BLOCKED_SQL)
_PAGE_OF_VISITOR = _PAGE.format(game=_columns(Game, _GAME_FIELDS), muted="FALSE", blocked="FALSE")
# The same with `LARGE` too, for a render that needs them (`play_game(..., large=True)`).
_WHOLE_PAGE_OF_VISITOR = _PAGE.format(game=_columns(Game, _WHOLE_GAME_FIELDS), muted="FALSE", blocked="FALSE")
# And with the game's row locked until the transaction ends (`play_game(..., lock=True)`): the move's.
_LOCKED_WHOLE_PAGE_OF_VISITOR = f'{_WHOLE_PAGE_OF_VISITOR} FOR UPDATE OF "{_GAME_TABLE}"'
_LARGE_FIELDS = [Game._meta.get_field(name) for name in LARGE]
_VERSION_FIELD = Game._meta.get_field("version")
_LARGE = (
    f'SELECT {_columns(Game, [*_LARGE_FIELDS, _VERSION_FIELD])} FROM "{_GAME_TABLE}" WHERE "{_GAME_TABLE}"."id" = %s'
)


_MOVE_FIELDS = [Move._meta.get_field(name) for name in ("events", "automatic", "autopilot", "seat", "version")]
_MOVES = (
    f'SELECT {_columns(Move, _MOVE_FIELDS)} FROM "{Move._meta.db_table}"'
    f' WHERE "{Move._meta.db_table}"."{Move._meta.get_field("game").column}" = %s'
    f' AND "{Move._meta.db_table}"."{Move._meta.get_field("round").column}" >= %s'
    f' AND "{Move._meta.db_table}"."{Move._meta.get_field("version").column}" <= %s'
    f' ORDER BY "{Move._meta.db_table}"."{Move._meta.get_field("version").column}"'
)


def log_moves(game, since):
    """The game's stored moves from round `since` on, oldest first, as the log reads them:
    [(events, automatic, autopilot, seat id, version)]; none newer than `game.version`, which a
    move committed since `game` was read would be (the render is kept under that version). One
    SELECT written out: the ORM's `values_list` of the same cost 0.4 ms of CPU a render,
    bench/README.md, "The play partial's render halved"."""
    with connection.cursor() as cursor:
        cursor.execute(_MOVES, [game.pk, since, game.version])
        rows = cursor.fetchall()
    return [tuple(_converted(Move, _MOVE_FIELDS, list(row))) for row in rows]


def load_large(game):
    """Read `LARGE` into `game`, loaded without them, when a render needs them: what
    `game.refresh_from_db(fields=LARGE)` does, without its queryset (1.0 ms of CPU of a play
    partial's render of 15, bench/README.md, "The play partial's render halved"). Whether they
    are the columns of `game`'s version: False when the game moved on since `game` was read (its
    state is then a newer version's, which no entry of the view cache keyed by `game.version`
    may hold)."""
    with connection.cursor() as cursor:
        cursor.execute(_LARGE, [game.pk])
        row = cursor.fetchone()
    if row is None:
        raise Game.DoesNotExist("Game matching query does not exist.")
    *large, version = _converted(Game, [*_LARGE_FIELDS, _VERSION_FIELD], list(row))
    for field, value in zip(_LARGE_FIELDS, large, strict=True):
        setattr(game, field.attname, value)
    return version == game.version


def viewable_page_game(request, pk):
    """The game page's game, its seats with the reader's chat marks."""
    return _viewable(request, pk, chat_marks=True)


def play_game(request, pk, large=False, lock=False):
    """The play partial's game (`selectors.game_for_play`): its seats without chat marks; with
    `large`, its `LARGE` columns read in the same SELECT, for a caller that renders whatever the
    cache holds (the move, which makes a new version; a socket's render of a new version): a
    second round trip fewer than `load_large` after it. With `lock` (and `large`; inside a
    transaction), the game's row is locked by the same SELECT until the transaction ends: the
    move's, whose lock was a SELECT of its own (on SQLite, whose transactions take the whole
    file's lock, there is no row lock to take)."""
    return _viewable(request, pk, chat_marks=False, large=large, lock=lock)


def _viewable(request, pk, chat_marks, large=False, lock=False):
    # An id past what the column holds is no game, as the ORM has it (tests/test_bad_input.py).
    if not holds_id(Game, pk):
        raise Http404(_("No such game."))
    user = request.user
    earliest_end, latest_start = clocks.vacation_hint_days(timezone.now())
    around = [latest_start, earliest_end, pk]
    with connection.cursor() as cursor:
        if chat_marks and user.is_authenticated:
            cursor.execute(_PAGE_OF_READER, [user.pk, user.pk, *around])
        else:
            if large and lock and connection.features.has_select_for_update:
                cursor.execute(_LOCKED_WHOLE_PAGE_OF_VISITOR, around)
            else:
                cursor.execute(_WHOLE_PAGE_OF_VISITOR if large else _PAGE_OF_VISITOR, around)
        rows = cursor.fetchall()
    if not rows:
        raise Http404(_("No such game."))
    game_fields = _WHOLE_GAME_FIELDS if large and not chat_marks else _GAME_FIELDS
    games, seats_at, users_at = len(game_fields), len(game_fields), len(game_fields) + len(_SEAT_FIELDS) + 3
    game = _instance(Game, game_fields, list(rows[0][:games]))
    seats, users = [], {}
    for row in rows:
        if row[seats_at] is None:  # a game without seats: its one row has none
            continue
        seat = _instance(Seat, _SEAT_FIELDS, list(row[seats_at:users_at - 3]))
        # SQLite gives its booleans as 0 and 1.
        muted, blocked, seat.maybe_away = (bool(mark) for mark in row[users_at - 3:users_at])
        if chat_marks:
            seat.muted, seat.blocked = muted, blocked
        if seat.user_id is not None and seat.user_id not in users:
            users[seat.user_id] = _instance(get_user_model(), _USER_FIELDS, list(row[users_at:]))
        Seat.game.field.set_cached_value(seat, game)
        Seat.user.field.set_cached_value(seat, users.get(seat.user_id))
        seats.append(seat)
    # As prefetch_related leaves them: game.seats.all() answers from these, with no query.
    prefetched = QuerySet(Seat).filter(game=game)
    prefetched._result_cache, prefetched._prefetch_done = seats, True
    game._prefetched_objects_cache = {"seats": prefetched}
    # A reader not known yet (a socket's made-up request) may be one of these: no SELECT for him.
    read_along(users.values())
    if not can_view(game, user, request.session):
        raise Http404(_("No such game."))
    return game
