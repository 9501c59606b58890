"""What changed on the map since a player last looked at the game (`Seat.seen_version`, which the
log's "New" marks use too): the areas whose caballeros differ, as the player's own seat saw them then
and sees them now. Both sides are that seat's views (games/engine view_for), so a closed Castillo
compares only what the seat may see of it; nothing of another seat's hand or choices enters.

Only the moves of others count: a player's own move, seen on his page before he next looks, marks
nothing. The position then is what the seat's last render kept of it (below), else it is rebuilt
by games/reading/replays.py (`state_after`).

Each render of a seat's view keeps what the seat saw of the areas, in this process's memory (the
`seat_areas` cache, settings.py), under the game (its id and seed), the version and the seat's
index: that seat's next render, after others' moves, compares with it instead of replaying the
position (two queries and the moves since the round began: 1.6-1.9 ms of a render's 15 ms of CPU,
bench/README.md, "The play partial's render halved"). It is the seat's own view, read back only
for the same seat of the same game; and a version's position never changes (every change of a
game raises its version)."""

from django.core.cache import caches

from games.engine import IllegalMove, view_for
from games.reading.replays import NotReplayable, state_after


def _caballeros(view):
    """{area: what the seat sees of its caballeros} of a view."""
    seen = {region["id"]: dict(region["caballeros"]) for region in view["regions"]}
    castillo = view["castillo"]
    seen["castillo"] = (dict(castillo["caballeros"]) if castillo["caballeros"] is not None else None, castillo["own"])
    return seen


def _key(game, version, index):
    return f"{game.pk}:{game.seed}:{version}:{index}"


def changed_areas(game, seats, own, view, log_entries):
    """The ids of the areas whose caballeros changed by others' moves since `own` (one of the
    `seats` of `game`) last looked, compared with `view` (the seat's view now); empty on a first
    look. `log_entries` (the page's log, games/reading/selectors.py) tell without a query whether others
    moved; only then is the old position looked for: kept by the seat's render of it, else rebuilt."""
    if own.index is None:
        return set()
    now = _caballeros(view)
    store = caches["seat_areas"]
    store.set(_key(game, game.version, own.index), now)
    seen = own.seen_version
    if not seen or seen >= game.version:
        return set()
    if not any(entry["version"] > seen and entry.get("mover") != own.index for entry in log_entries):
        return set()
    before = store.get(_key(game, seen, own.index))
    if before is None:
        try:
            then = state_after(game, seen, seats)
        except (NotReplayable, IllegalMove, KeyError, TypeError, ValueError):
            return set()
        before = _caballeros(view_for(then, own.index))
    return {area for area, caballeros in now.items() if before.get(area) != caballeros}
