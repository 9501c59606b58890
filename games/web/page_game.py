"""A running game's page reads its game, seats and their players by three SELECTs written once per
process from the models' fields, rather than by the ORM's querysets built and compiled on every
GET: in one process these took 2.3-2.9 ms of CPU of a page served from the view cache, the
SELECTs written out 0.5 (bench/README.md, "The cached game page"). What comes back is what
`selectors.viewable_game(request, pk, defer=LARGE)` gives: the game without its large columns,
its seats (prefetched, in their model's order) each with its user and the reader's chat marks
(`muted`, `blocked`: games/play/chat.py) and whether its player may be on vacation (`maybe_away`,
as clocks.with_vacation_hint: the others' vacations are not read), and the same 404 for a game
the reader may not see."""

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models.query import QuerySet
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Vacation
from games import clocks
from games.access import can_view
from games.models import Game, Seat
from games.play import chat
from games.reading.selectors import LARGE


def _columns(model, leave_out=()):
    table = model._meta.db_table
    return ", ".join(
        f'"{table}"."{field.column}"' for field in model._meta.concrete_fields if field.name not in leave_out
    )


def _order(model):
    table = model._meta.db_table
    return ", ".join(
        f'"{table}"."{model._meta.get_field("id" if name == "pk" else name).column}"' for name in model._meta.ordering
    )


_GAME = f'SELECT {_columns(Game, LARGE)} FROM "{Game._meta.db_table}" WHERE "{Game._meta.db_table}"."id" = %s'
# Whether the seat's player has a vacation around today in any time zone (clocks.with_vacation_hint,
# between the days of clocks.vacation_hint_days): only those are asked about their vacations (selectors.vacation_spans).
_AWAY = (
    f'EXISTS (SELECT 1 FROM "{Vacation._meta.db_table}" WHERE "{Vacation._meta.db_table}"."user_id"'
    f' = "{Seat._meta.db_table}"."user_id" AND "{Vacation._meta.db_table}"."start" <= %s'
    f' AND "{Vacation._meta.db_table}"."end" >= %s)'
)
_SEATS = (
    f'SELECT {_columns(Seat)}, {{muted}} AS "muted", {{blocked}} AS "blocked", {_AWAY} AS "maybe_away"'
    f' FROM "{Seat._meta.db_table}"'
    f' WHERE "{Seat._meta.db_table}"."{Seat._meta.get_field("game").column}" = %s ORDER BY {_order(Seat)}'
)
_SEATS_OF_READER = _SEATS.format(muted=chat.MUTED_SQL, blocked=chat.BLOCKED_SQL)
_SEATS_OF_VISITOR = _SEATS.format(muted="FALSE", blocked="FALSE")


def _users_sql(count):
    User = get_user_model()
    table = User._meta.db_table
    return f'SELECT {_columns(User)} FROM "{table}" WHERE "{table}"."id" IN ({", ".join(["%s"] * count)})'


def viewable_page_game(request, pk):
    # An id past what the column holds is no game, as the ORM has it (tests/test_bad_input.py).
    low, high = connection.ops.integer_field_range(Game._meta.pk.get_internal_type())
    if not low <= pk <= high:
        raise Http404(_("No such game."))
    game = next(iter(Game.objects.raw(_GAME, [pk])), None)
    if game is None:
        raise Http404(_("No such game."))
    user = request.user
    earliest_end, latest_start = clocks.vacation_hint_days(timezone.now())
    around = [latest_start, earliest_end, game.pk]
    if user.is_authenticated:
        seats = list(Seat.objects.raw(_SEATS_OF_READER, [user.pk, user.pk, *around]))
    else:
        seats = list(Seat.objects.raw(_SEATS_OF_VISITOR, around))
    ids = sorted({seat.user_id for seat in seats if seat.user_id is not None})
    users = {u.pk: u for u in get_user_model().objects.raw(_users_sql(len(ids)), ids)} if ids else {}
    for seat in seats:
        # SQLite gives its booleans as 0 and 1.
        seat.muted, seat.blocked, seat.maybe_away = bool(seat.muted), bool(seat.blocked), bool(seat.maybe_away)
        Seat.game.field.set_cached_value(seat, game)
        Seat.user.field.set_cached_value(seat, users.get(seat.user_id))
    # As prefetch_related leaves them: game.seats.all() answers from these, with no query.
    prefetched = QuerySet(Seat).filter(game=game)
    prefetched._result_cache, prefetched._prefetch_done = seats, True
    game._prefetched_objects_cache = {"seats": prefetched}
    if not can_view(game, user, request.session):
        raise Http404(_("No such game."))
    return game
