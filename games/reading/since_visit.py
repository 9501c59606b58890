"""What changed on the map since a player last looked at the game (`Seat.seen_version`, which the
log's "New" marks use too): the areas whose caballeros differ, as the player's own seat saw them then
and sees them now. Both sides are that seat's views (games/engine view_for), so a closed Castillo
compares only what the seat may see of it; nothing of another seat's hand or choices enters.

Only the moves of others count: a player's own move, seen on his page before he next looks, marks
nothing. The position then is rebuilt by games/reading/replays.py (`state_after`)."""

from games.engine import IllegalMove, view_for
from games.reading.replays import NotReplayable, state_after


def _caballeros(view):
    """{area: what the seat sees of its caballeros} of a view."""
    seen = {region["id"]: dict(region["caballeros"]) for region in view["regions"]}
    castillo = view["castillo"]
    seen["castillo"] = (dict(castillo["caballeros"]) if castillo["caballeros"] is not None else None, castillo["own"])
    return seen


def changed_areas(game, seats, own, view, log_entries):
    """The ids of the areas whose caballeros changed by others' moves since `own` (one of the
    `seats` of `game`) last looked, compared with `view` (the seat's view now); empty on a first
    look. `log_entries` (the page's log, games/reading/selectors.py) tell without a query whether others
    moved; only then is the old position rebuilt."""
    seen = own.seen_version
    if not seen or seen >= game.version or own.index is None:
        return set()
    if not any(entry["version"] > seen and entry.get("mover") != own.index for entry in log_entries):
        return set()
    try:
        then = state_after(game, seen, seats)
    except (NotReplayable, IllegalMove, KeyError, TypeError, ValueError):
        return set()
    before = _caballeros(view_for(then, own.index))
    now = _caballeros(view)
    return {area for area, caballeros in now.items() if before.get(area) != caballeros}
