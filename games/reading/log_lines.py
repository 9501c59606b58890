"""Each stored move's log lines, said once per reader and language and then kept.

The game page shows the log of this round and the last, some 30 to 60 moves; saying each of their
events again on every render (format_html, gettext, the cards' disclosures) was a fifth of a
render's CPU, for lines that never change: a stored move's events are written once. So the lines of
one move are kept, in this process's memory (the `log_lines` cache, settings.py), under a key that
names everything they depend on:

- the game (its id and seed: another game that once had this id is another game), the move's
  version and its events (a site event is added to the last move's events later);
- the reader: "spectator", or the seat's index, since a private event (a power card taken back)
  is said to its own seat alone (engine.visible_events): a seat's lines never reach another seat
  nor the spectators;
- the language, and the players' names as the page shows them (a seat taken over or a user
  deleted changes them without a new move);
- who moved and how (by the site, on autopilot), and the first round the page shows.
"""

import hashlib

from django.core.cache import caches
from django.utils import translation

from games.words.log_text import move_log


def names_key(names):
    """What of the game's `Names` the lines say: the seats' colours and players' names."""
    text = repr((names.colours, sorted(names.users.items())))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def key(game, version, events, reader, names_digest, mover, automatic, autopilot, since):
    who = "spectator" if reader is None else f"seat-{reader}"
    how = f"{mover}-{automatic:d}-{autopilot:d}"
    # The events themselves: a site event (a seat handed to the computer or taken back, answers
    # given ahead) is added to the last stored move's events, after its lines may have been kept.
    # Their repr (half the CPU of json.dumps): the events read from the database, each time in
    # the same order of keys.
    said = hashlib.blake2b(repr(events).encode(), digest_size=12).hexdigest()
    return f"{game.pk}:{game.seed}:{version}:{said}:{who}:{translation.get_language()}:{names_digest}:{how}:{since}"


def moves_lines(game, moves, names, reader, since):
    """The log lines of the stored `moves` ([(events, automatic, autopilot, mover, version)], in
    order) as `reader` (a seat, None: a spectator) reads them in the current language:
    [{"round", "html", "version", "mover"}], from the cache where they were said before."""
    store = caches["log_lines"]
    digest = names_key(names)
    keys = [key(game, version, events, reader, digest, mover, automatic, autopilot, since)
            for events, automatic, autopilot, mover, version in moves]
    kept = store.get_many(keys) if keys else {}
    missing = {}
    rendered = []
    for cache_key, (events, automatic, autopilot, mover, version) in zip(keys, moves, strict=True):
        lines = kept.get(cache_key)
        if lines is None:
            lines = tuple(
                {**line, "version": version, "mover": mover}
                for line in move_log(events, names, reader, mover=mover, automatic=automatic,
                                     autopilot=autopilot, since=since)
            )
            missing[cache_key] = lines
        # The store keeps its values as they are (not pickled) and the page marks its lines new
        # (selectors._mark_new): each render gets lines of its own.
        rendered += [dict(line) for line in lines]
    if missing:
        store.set_many(missing)
    return rendered
