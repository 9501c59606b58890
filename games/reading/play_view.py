"""The play partial of a running game as one reader sees it, from the view cache
(games/reading/view_cache.py) or rendered and kept there: the game page, the play partial's
requests, the move's answer and the spectators' sockets all read it here."""

from django.contrib.auth.models import AnonymousUser
from django.db.models import Prefetch
from django.http import Http404
from django.utils import timezone

from games import clocks
from games.models import Game
from games.play import chat
from games.reading import page_game, view_cache
from games.reading.page_game import LARGE
from games.reading.selectors import game_context, game_for_play, mark_seen, own_seat, vacation_spans

PLAY_PARTIAL = "games/partials/play.html"


def play_key(request, game):
    """The view cache's key of the play partial of `game` for `request`'s reader (None: the
    spectators), and the vacations under way that it names: the game page reads the entry in one
    trip to the cache with its frame (games/web/views.py `_cached_page`)."""
    seats = list(game.seats.all())
    spans = vacation_spans(game, seats)
    return view_cache.key(game, own_seat(request, seats), seats, spans, timezone.get_current_timezone()), spans


def cached_play(request, game, keyed=None, entry=None):
    """The view cache's entry of the play partial of `game` (a cacheable one, loaded without
    `LARGE`) for `request`'s reader (None: the spectators), rendered if it is not kept yet.
    `keyed`: `play_key`'s answer and `entry` what the cache held under it, when the caller read it."""
    key, spans = keyed or play_key(request, game)
    if keyed is None:
        entry = view_cache.get(key)
    if entry is None:
        # A game that moved on between its row and its large columns is rendered as read (the
        # page learns of the newer version from its socket and fetches it), but not kept: under
        # this version's key it would be a newer version's view.
        current = page_game.load_large(game) if game.get_deferred_fields() else True
        entry, _seen = _rendered(request, game, spans, key if current else None)
    return entry


def _rendered(request, game, spans, cache_key, seen_later=False):
    """The play partial rendered for `request`'s reader and kept under `cache_key` (unless None):
    (the entry, the seen mark left to write: `game_context`'s `seen_later`)."""
    context = {**game_context(request, game, spans=spans, seen_later=seen_later), "partial": PLAY_PARTIAL}
    entry = view_cache.render("games/partials/unlocalized.html", context, cache_key)
    return entry, context.get("seen_later")


def spectators_play(game_id):
    """The spectators' play partial of the game as it stands, for the sockets of its spectators'
    pages (games/broadcast.py): (version, body), with the clock as of now; None when the game
    is gone, is not kept in the view cache (an open or cancelled game: their pages re-fetch), or
    its body has a part of a reader's own. Exactly what a logged-out visitor's request for the
    play partial gets, from the same cache entry: no seat, no user, the site's time zone."""
    seats = clocks.with_vacation_hint(chat.seats_with_mutes(AnonymousUser()).queryset, timezone.now())
    games = Game.objects.defer(*LARGE).prefetch_related(Prefetch("seats", queryset=seats))
    game = games.filter(pk=game_id).first()
    if game is None or not view_cache.cacheable(game):
        return None
    with timezone.override(None):
        body = view_cache.body_for_reader(None, cached_play(None, game))
    return None if body is None else (game.version, body)


def readers_game(request, game_id):
    """The game as `request`'s reader would fetch its play partial now (games/web/views.py `_play`,
    from the same `game_for_play`), for `readers_play`; None when he may not see it, or its view
    is not kept in the view cache (an open or cancelled game: his page fetches it)."""
    try:
        # A socket asks for the view of a version just made, which the cache has not seen yet: the
        # large columns the render needs come in the same SELECT (one round trip fewer).
        game = game_for_play(request, game_id, large=True)
    except Http404:
        return None
    return game if view_cache.cacheable(game) else None


def readers_play(request, game):
    """The play partial of `game` (from `readers_game`) as `request`'s reader would fetch it now,
    for the socket of that reader's own page (games/live/consumers.py): (version, body, the seen
    mark to write once the page has it: `seen`). Also after the reader's own move: a page whose
    socket takes frames posts its moves asking for no view in the answer (games/web/views.py
    `move`), and gets it here, rendered once.

    A seat's view is rendered without the view cache. Its entry is keyed by the seat's seen
    version, which this very render moves on (selectors._mark_new), so no later look at this
    version could read what it would keep, and a socket's render is the first of its version and
    reader, so there is nothing to read yet: the cache's read and write were two round trips to
    Redis on the way of every move to every seat's screen, and the pickling of a 55 KB entry
    (bench/README.md, the tenth pass). The seen mark is written after the frame is sent, not
    before: a frame that never left leaves the lines new for the next look."""
    seats = list(game.seats.all())
    if own_seat(request, seats) is None:
        # A logged-in spectator in his own time zone: the entry he shares with every spectator there.
        return game.version, view_cache.body_for_reader(request, cached_play(request, game)), None
    entry, seen_mark = _rendered(request, game, vacation_spans(game, seats), None, seen_later=True)
    return game.version, view_cache.body_for_reader(request, entry), seen_mark


def seen(mark):
    """Write the seen mark `readers_play` gave: (seat id, version)."""
    mark_seen(*mark)
