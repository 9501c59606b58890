"""The lists of finished games kept in Django's cache: the archive's page (all but the site's
header) and its JSON, and the lobby's recently finished games, each rendered once per finished
games' generation and reader (games/infra/finished_generation.py), so that a request is one or two
cache reads instead of the form's, the keys' and the rows' queries and their rendering.

An entry's key names everything that makes two answers differ:

- the generation, raised once any change to the finished games or their players has committed: an
  entry from before a game finished is never read after it;
- the reader: a logged-in reader by id, since the viewer's own private games are in their lists
  (never anyone else's); every logged-out visitor shares one entry;
- the language and time zone (every word and date; the date filters are days in the reader's zone);
- the scheme and host (the JSON's links are absolute) and the query string, its parameters sorted.

Only answers that are lists are kept: a refused filter (a 400) is rendered each time.

The lobby's "my games" keep each game's row (`rows_by_version`) instead: the list changes with
every move in any of the reader's games, one row each time.
"""

import hashlib
from urllib.parse import urlencode

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.safestring import mark_safe

from games.infra import finished_generation

# How long an entry is kept at most: the generation usually retires it sooner.
TIMEOUT = 15 * 60
# Raised whenever the rows kept by `rows_by_version` hold something else (a key, a type).
ROW_FORMAT = 3


# `rows_by_version`'s generation when its caller has not read it: read there.
READ = object()


def generation_of(request):
    """The finished games' generation, read once for `request` however many of its lists ask (a
    cache round trip each: three a lobby)."""
    try:
        return request._finished_generation
    except AttributeError:
        request._finished_generation = finished_generation.current()
        return request._finished_generation


def key(request, kind, query=True):
    """The cache key of the list `kind` as `request`'s reader gets it now (with its query string
    unless `query` is false), or None when the cache cannot be reached (then nothing is kept)."""
    generation = generation_of(request)
    if generation is None:
        return None
    user = request.user
    varying = repr(
        (
            user.pk if user.is_authenticated else None,
            translation.get_language(),
            timezone.get_current_timezone_name(),
            request.scheme,
            request.get_host(),
            urlencode(sorted(request.GET.lists()), doseq=True) if query else "",
        )
    )
    digest = hashlib.blake2b(varying.encode(), digest_size=16).hexdigest()
    return f"finished-list:{generation}:{kind}:{digest}"


def rendered(request, kind, template, context_of, query=True):
    """`template` rendered for `request` with the context `context_of()` makes: from the cache under
    `key(request, kind, query)` while no finished game changed, else rendered and kept there."""
    cache_key = key(request, kind, query)
    html = get(cache_key)
    if html is None:
        html = keep(cache_key, render_to_string(template, context_of(), request))
    return mark_safe(html)


def get(cache_key):
    return None if cache_key is None else cache.get(cache_key)


def keep(cache_key, value):
    if cache_key is not None:
        cache.set(cache_key, value, TIMEOUT)
    return value


def rows_by_version(viewer, versions, build, generation=READ):
    """{game id: row} of the games `versions` ({game id: its version, or a string naming it and
    more, without spaces}) as `build` (ids -> {game id: row}, e.g. listing.rows_of for `viewer`)
    makes them, each kept per game version, reader, language and finished games' generation (a
    player's name or account changed raises it): every change of a game raises its version, so a
    kept row is read only while its game is as it was. Only the rows not found are built, in one
    call. `generation`: the finished games' generation when the caller has read it (`generation_of`),
    else it is read here."""
    if generation is READ:
        generation = finished_generation.current()
    if generation is None:
        return build(list(versions))
    language = translation.get_language()
    # ROW_FORMAT names what a kept row holds: a release that changes it must not read older ones.
    keys = {
        game_id: f"list-row:{ROW_FORMAT}:{generation}:{viewer.pk}:{language}:{game_id}:{version}"
        for game_id, version in versions.items()
    }
    found = cache.get_many(list(keys.values()))
    rows = {game_id: found[key] for game_id, key in keys.items() if key in found}
    missing = [game_id for game_id in versions if game_id not in rows]
    if missing:
        built = build(missing)
        cache.set_many({keys[game_id]: row for game_id, row in built.items()}, TIMEOUT)
        rows.update(built)
    return rows
