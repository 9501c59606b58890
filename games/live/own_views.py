"""A logged-in reader's own view of a game, rendered by the process that holds his page's socket and
sent over that socket alone (games/live/consumers.py), so that a move reaches another seat's screen
without the page's HTTP request (its session load, middleware, view): issue 22.

The view is the one the page would fetch (games/reading/play_view.py `readers_play`, the same code
as games/web/views.py `_play`; a seat's without the view cache), for a request made up from the socket's handshake:
its host and cookies. The reader is who the socket's session says *now* (authenticated as
AuthenticationMiddleware would, session hash included), and must be the user the socket was opened
for: a page whose session ended or changed hands (logged out, logged in as another) is sent the
bare version, and fetches with whatever cookies its browser now has. The forms of a seat's view
carry the reader's CSRF token, masked from the CSRF cookie the handshake brought; with none (or a
bad one) the view is not sent: a token minted here would be one the browser never gets. The time
zone is the reader's; the language his setting's, else the page's (what LocaleMiddleware chose
for it). Nothing of this goes through the channel layer: notices there carry versions only."""

import gzip
import io
import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from importlib import import_module

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import auth
from django.core.handlers.asgi import ASGIRequest
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.middleware.csrf import CsrfViewMiddleware
from django.utils import timezone, translation
from django.utils.functional import SimpleLazyObject

from accounts.backends import users_read_along
from elgrande_site.database import bounded_as_a_request
from games.infra.threads import in_each_thread
from games.live.spectators import MAX_FRAME
from games.reading import play_view

logger = logging.getLogger(__name__)

# The threads the readers' views are rendered in: their own, so that neither a consumer's database
# look-up, a request, nor the spectators' hub waits behind them. A page has one render at a time.
# Two, not four: a render is mostly Python, and four of them at once shared the process's GIL
# with the requests and the event loop; under the moves' load of bench/web.py (two runs each)
# two threads made 45-47 moves a second against 27-29 with four, another seat's screen p95 278-323
# ms against 348-422, the move POST's p50 74-77 ms against 120-127; one thread made the views
# wait their turn (screen p95 308-474 ms). bench/README.md, the ninth pass.
RENDERING_THREADS = 2
_RENDERING = ThreadPoolExecutor(max_workers=RENDERING_THREADS, thread_name_prefix="own-views")
# The thread the seen marks are written in, after their frames: not a rendering one, which the
# next page's render may be waiting for.
_MARKING = ThreadPoolExecutor(max_workers=1, thread_name_prefix="seen-marks")
_POOLS = ((_RENDERING, RENDERING_THREADS), (_MARKING, 1))

# Each of these threads keeps its database connection from one call to the next, as a request's
# thread does not (Django gives it back at the request's end): a connection taken from the pool for each call
# (channels' database_sync_to_async) was the pool's check of it, a round trip, on the way of every
# move to every seat's screen, and a seen mark's own checkout (bench/README.md, the tenth pass).
# Given back, and the next call takes one from the pool (checked there):
# - after a call that failed (the pool drops a broken connection): after a database restart one
#   render per thread fails, and its page fetches;
# - before a call that comes after IDLE_SECONDS without one (a connection left idle is the one a
#   restart, a failover or a proxy's idle timeout has killed), or after KEEP_SECONDS in all;
# - after a call when the pool is small (fewer than KEEP_WITH_POOL connections: the requests need
#   them) or has a request waiting for one;
# - as the web process ends (`give_back_connections`, elgrande_site/shutdown.py).
# So while the pages are busy each web process keeps three of its pool's connections out.
IDLE_SECONDS = 60
KEEP_SECONDS = 600
KEEP_WITH_POOL = 8
_kept = threading.local()
# The threads that hold one now, or are in a call that may take one: {ident: that thread's Django
# connection}, by which a connection left held by a thread that is gone can still be closed.
_holding = {}


def _on_kept_connection(function):
    def run(*args):
        now = time.monotonic()
        since, used = getattr(_kept, "since", None), getattr(_kept, "used", None)
        if since is not None and (now - used > IDLE_SECONDS or now - since > KEEP_SECONDS):
            forget_connection()
        _holding[threading.get_ident()] = connections[DEFAULT_DB_ALIAS]
        try:
            # Each wait on the database bounded as a request's: a kept connection gone silent for
            # good would hold the thread, and every page's render behind it, for good.
            with bounded_as_a_request():
                return function(*args)
        except Exception:
            forget_connection()
            raise
        finally:
            _keep_or_give_back()

    return run


def forget_connection():
    """Give this thread's connection back now: a failed call may have left it broken."""
    connection.close()
    _kept.since = None
    _holding.pop(threading.get_ident(), None)


def _keep_or_give_back():
    if connection.connection is None or _pool_needs_it():
        forget_connection()
        return
    now = time.monotonic()
    if getattr(_kept, "since", None) is None:
        _kept.since = now
    _kept.used = now


def _pool_needs_it():
    pool = getattr(connection, "pool", None)  # PostgreSQL's with DATABASE_POOL (settings.py)
    if pool is None:
        return False
    return pool.max_size < KEEP_WITH_POOL or pool.get_stats().get("requests_waiting", 0) > 0


def holding():
    """Whether a thread holds a connection now, or is in a call that may take one."""
    return bool(_holding)


def give_back_connections():
    """Every kept connection given back, each thread of the two pools running `forget_connection`
    once, after what it was doing: at the end of a test, whose database is then emptied or
    dropped, which a connection held elsewhere would stand in the way of; and as the web process
    ends (elgrande_site/shutdown.py), so that PostgreSQL sees each connection closed rather than
    cut with the process.

    At the interpreter's exit (an atexit function) the pools' threads are gone, joined by
    concurrent.futures, and give nothing back: what they left held is closed from here instead,
    on the connections themselves, which no thread can use any more."""
    for executor, threads in _POOLS:
        if not in_each_thread(executor, threads, forget_connection):
            _close_left_behind()
            return


def _close_left_behind():
    while _holding:
        _ident, left = _holding.popitem()
        # Django's connection of another thread: closed from this one, as Django allows once told.
        left.inc_thread_sharing()
        try:
            left.close()
        except Exception:
            logger.warning("a kept database connection could not be closed", exc_info=True)
        finally:
            left.dec_thread_sharing()


_framing = sync_to_async(_on_kept_connection(lambda *args: make_frame(*args)), thread_sensitive=False,
                         executor=_RENDERING)
_marking = sync_to_async(_on_kept_connection(lambda mark: play_view.seen(mark)), thread_sensitive=False,
                         executor=_MARKING)


async def frame(scope, user_id, language, game_id):
    """`make_frame` in a rendering thread, on its kept connection."""
    return await _framing(scope, user_id, language, game_id)


def reader_request(scope):
    """A GET as the socket's handshake would make it (host, scheme, cookies), with the session its
    cookie names, the user that session holds now, and the CSRF cookie read as CsrfViewMiddleware
    reads it."""
    scheme = "https" if scope.get("scheme") in ("wss", "https") else "http"
    request = ASGIRequest({**scope, "type": "http", "method": "GET", "scheme": scheme}, io.BytesIO())
    engine = import_module(settings.SESSION_ENGINE)
    request.session = engine.SessionStore(request.COOKIES.get(settings.SESSION_COOKIE_NAME))
    # Read when first asked for, as AuthenticationMiddleware leaves it: `make_frame` asks once the
    # game's seats and their users are read (accounts/backends.py `users_read_along`).
    request.user = SimpleLazyObject(lambda: auth.get_user(request))
    CsrfViewMiddleware(lambda request: None).process_request(request)
    return request


def make_frame(scope, user_id, language, game_id):
    """What the page of user `user_id` (written in `language`) is sent for the game as it stands:
    {"version", "frame": gzip of {"version", "play": the reader's view}, "seen": the seen mark to
    write once the frame is sent, or None}, or {"version"} alone
    (the page fetches), or None (nothing to send but the version the notice told of). The mover's
    page too is sent his view of his own move: it posts asking for none in the answer."""
    try:
        request = reader_request(scope)
        # A session that holds nobody, or someone else, is not worth the game's SELECT.
        if request.session.get(auth.SESSION_KEY) != str(user_id):
            return None
        had_token = "CSRF_COOKIE" in request.META
        # The reader is read with the game's seats, one SELECT for both (a seat's player is one of
        # them): the user's own SELECT was a round trip more on the way of each move to each
        # seat's screen (bench/README.md, the tenth pass). Django then checks the session's hash.
        with users_read_along():
            game = play_view.readers_game(request, game_id)
            reader = request.user if request.user.is_authenticated else None
        if reader is None or reader.pk != user_id:
            return None
        if game is None:
            return None
        with translation.override(reader.language or language), timezone.override(reader.zone):
            found = play_view.readers_play(request, game)
    except Exception:
        logger.exception("the own view of game %s could not be rendered for user %s", game_id, user_id)
        forget_connection()
        return None
    version, body, seen = found
    if body is None or (not had_token and "CSRF_COOKIE" in request.META):
        return {"version": version}
    # gzip's fastest level: its 9 (the default) took 0.83 ms of CPU for a 55 KB view, a ninth of the
    # render, for 7.2 KB; level 1 0.10 ms for 9.0 KB (bench/README.md, "A move on another seat's
    # screen: where the time goes").
    packed = gzip.compress(json.dumps({"version": version, "play": body}).encode(), compresslevel=1, mtime=0)
    if len(packed) > MAX_FRAME:
        return {"version": version}
    # The seen mark of the lines the view shows as new: for `mark_seen`, once the frame is sent.
    return {"version": version, "frame": packed, "seen": seen}


async def mark_seen(mark):
    """Write a frame's seen mark (play_view.readers_play), in the marking thread, after the frame
    went out; a failure is logged: the lines stay new for the reader's next look."""
    try:
        await _marking(mark)
    except Exception:
        logger.exception("the seen mark %s could not be written", mark)
