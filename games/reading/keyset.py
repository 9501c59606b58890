"""Pages of games cut by keyset instead of OFFSET: a page is read from where the last one ended,
by the position (a time, the game's id) of a game in the list's order, newest first. Reading the
thousandth page then costs what the first does, from an index on (time, id).

A `Cursor` is that position and the way the page goes from it: to older games ("after" it in the
list) or to newer ones ("before" it). Its token, in the page's URL, is two numbers: microseconds
since 1970 and the game's id.
"""

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db.models import Q
from django.utils.translation import gettext as _

from games.reading import listing

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_TOKEN = re.compile(r"(\d{1,17})-(\d{1,18})")
LAST_YEAR = 2999


@dataclass(frozen=True)
class Cursor:
    at: datetime
    game_id: int
    older: bool = True

    def token(self):
        return f"{(self.at - _EPOCH) // timedelta(microseconds=1)}-{self.game_id}"

    @classmethod
    def parse(cls, token, older=True):
        """Read a token made by `token()`; ValueError with the reason when it is not one."""
        match = _TOKEN.fullmatch(token)
        if match is None:
            raise ValueError(_("it should be two numbers joined by a dash"))
        micros, game_id = int(match[1]), int(match[2])
        if game_id >= 2**63:
            raise ValueError(_("its game number is too large"))
        at = _EPOCH + timedelta(microseconds=micros)
        if at.year > LAST_YEAR:
            raise ValueError(_("its time is out of range"))
        return cls(at, game_id, older)


def cursor_in(query, after, before):
    """The cursor a query string names by its parameter `after` (to older games) or `before` (to
    newer ones), or None; ValueError with a reason the player can read."""
    if query.get(after) and query.get(before):
        raise ValueError(_("A page goes on either after a game or before one, not both."))
    token = query.get(after) or query.get(before)
    if not token:
        return None
    try:
        return Cursor.parse(token, older=bool(query.get(after)))
    except ValueError as error:
        raise ValueError(
            _("This page link is damaged: %(reason)s. Start again from the first page.") % {"reason": error}
        ) from None


@dataclass
class Page:
    rows: list
    # Where the pages of newer and of older games start; None when there are none.
    newer: Cursor | None = None
    older: Cursor | None = None


def page_keys(queryset, cursor, limit, time_field, id_field, also=()):
    """[(time, game id)] of up to `limit` rows of `queryset` from `cursor` on (None: the newest),
    in the page's direction: newest first going to older games, oldest first going back. The
    fields `also` follow in each key (the open games' versions: games/reading/selectors.py)."""
    if cursor is None or cursor.older:
        order, beyond, bound = (f"-{time_field}", f"-{id_field}"), "lt", "lte"
    else:
        order, beyond, bound = (time_field, id_field), "gt", "gte"
    if cursor is not None:
        at = cursor.at
        queryset = queryset.filter(
            Q(**{f"{time_field}__{beyond}": at}) | Q(**{time_field: at, f"{id_field}__{beyond}": cursor.game_id}),
            # Redundant, but it is what lets the index scan start at the cursor instead of the top.
            **{f"{time_field}__{bound}": at},
        )
    return list(queryset.order_by(*order).values_list(time_field, id_field, *also)[:limit])


def page_of(found, cursor, size, viewer, time_field, rows_of=None):
    """The page of up to `size` games out of `found`, keys from one or more `page_keys()` calls with
    `limit` size + 1 each (a time and an id unique to each key, so the fields after them are never
    compared): its rows (listing.rows_of for `viewer`: the games and their seats as
    plain rows, two queries) and its links. `rows_of`, when given, makes the rows instead: {game
    id: row} for a list of ids, each row's "game" with `pk` and `time_field` (listing.finished_rows:
    the archive's slimmer rows)."""
    backwards = cursor is not None and not cursor.older
    found = sorted(found, reverse=not backwards)
    more = len(found) > size
    found = found[:size]
    if backwards:
        found.reverse()
    ids = [key[1] for key in found]
    if rows_of is not None:
        by_id = rows_of(ids) if ids else {}
    else:
        by_id = listing.rows_of(ids, viewer)
    page = Page(rows=[by_id[game_id] for game_id in ids if game_id in by_id])
    games = [each["game"] for each in page.rows]
    if games:
        # A page reached going to older games has newer ones: at least the one it started after;
        # and one reached going back has older ones.
        if (backwards and more) or (cursor is not None and cursor.older):
            page.newer = Cursor(getattr(games[0], time_field), games[0].pk, older=False)
        if (not backwards and more) or backwards:
            page.older = Cursor(getattr(games[-1], time_field), games[-1].pk, older=True)
    return page
