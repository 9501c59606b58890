"""The play partial rendered once per (game, version, reader) and served from Django's cache.

After every move each open page of the game fetches its fresh play partial (static/game.js); a
final with hundreds of spectators asked the site to build the same spectator's view hundreds of
times. Here it is built once and kept under a key that names everything that makes it differ:

- the game and its version (every visible change raises the version: games.play.saving._save), so an
  entry from before a move is never served after it;
- the reader: "spectator" (every visitor without a seat, logged in or not, sees the same view),
  or the seat's index together with its user's id: a seat's view never reaches anyone else;
- what can change without a new version: the seats' players, names and autopilot marks, the
  deadline, the vacations under way (they show as badges and move the deadline), the reader's
  time zone (the deadline is written in it) and language (every word of it), the game's status.

Only running and finished games are kept: an open game's page holds per-user forms (join, leave,
invite) and is seen by few. Replays are not cached here (games/web/replay_views.py).

Two things in the body are the reader's own and filled in on every request: the CSRF token of
the seat's forms (rendered as a placeholder, replaced by the reader's token) and the seconds left
on the clock (static/clocks.js counts down from the figure the server gives, so that a wrong clock
on the reader's machine does not matter: the figure is reckoned from the deadline kept with the
body). The body is rendered without the request, so no per-user context (user, messages) can
slip into a shared entry."""

import hashlib

from django.core.cache import cache
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.safestring import mark_safe

from games import clocks
from games.models import Game

# How long an entry is kept: the versions of a running game follow each other, so an entry is
# useful for as long as its version is the latest; a finished game's last one stays asked for.
TIMEOUT = 15 * 60

# Placeholders: HTML comments and a token no escaped user text can produce (names and log text
# are escaped, so "<" and '"' never come from them).
_SECONDS = mark_safe("<!--seconds-left-->")
_LEFT = mark_safe("<!--time-left-->")
_CSRF = "csrf-token-of-the-reader"
_CSRF_FIELD = f'name="csrfmiddlewaretoken" value="{_CSRF}"'


def cacheable(game):
    return game.status in (Game.Status.ACTIVE, Game.Status.FINISHED)


def key(game, own_seat, seats, spans, zone):
    """The cache key of `game`'s play partial at its version for the reader seated at `own_seat`
    (None: a spectator), given its `seats`, the vacations under way (`spans`, from
    clocks.vacation_spans) and the reader's time zone."""
    varying = repr(
        (
            game.seed,  # another game that once had this id (a test database) is another game
            game.status,
            game.deadline,
            sorted((s.index, s.user_id, s.display_name, s.autopilot) for s in seats),
            sorted(spans.items()),
            str(zone),
            translation.get_language(),  # every word of it: the site's, and the game's names and log
        )
    )
    digest = hashlib.blake2b(varying.encode(), digest_size=16).hexdigest()
    # A seat's log marks what others did since its player last looked (Seat.seen_version), which
    # the render then moves on: the next request of the same version renders anew, unmarked. Its
    # answers given ahead (Seat.answers_ahead) change without a version, and show on its page alone.
    reader = (
        "spectator"
        if own_seat is None
        else f"seat-{own_seat.index}-user-{own_seat.user_id}-seen-{own_seat.seen_version}"
        f"-ahead-{own_seat.answers_ahead:d}"
    )
    return f"play:{game.pk}:{game.version}:{reader}:{digest}"


def get(cache_key):
    return cache.get(cache_key)


def render(template, context, cache_key):
    """Render `template` with `context` (from selectors.game_context) with the reader's own parts
    as placeholders, keep it under `cache_key` (unless None), and return the entry."""
    clock = context.get("clock")
    shared = {**context, "csrf_token": _CSRF}
    if clock:
        shared["clock"] = {**clock, "seconds": _SECONDS, "left": _LEFT}
    entry = (render_to_string(template, shared), clock["deadline"] if clock else None)
    if cache_key is not None:
        cache.set(cache_key, entry, TIMEOUT)
    return entry


def body_for_reader(request, entry):
    """The body of a cached `entry` as `request`'s reader gets it now. Without a request (the
    spectators' body sent over their sockets) the clock is filled in as of now, and a body with
    a form, which would need its reader's CSRF token, gives None."""
    body, deadline = entry
    if deadline is not None:
        seconds = max(0, int((deadline - timezone.now()).total_seconds()))
        body = body.replace(_SECONDS, str(seconds)).replace(_LEFT, clocks.time_left_text(seconds))
    if _CSRF_FIELD in body:
        if request is None:
            return None
        body = body.replace(_CSRF_FIELD, f'name="csrfmiddlewaretoken" value="{get_token(request)}"')
    return body
