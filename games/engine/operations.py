"""Small operations on a state that every rule uses: moving caballeros, parsing moves, scoring an area."""

from .board import (
    AREA_SCOREBOARDS,
    AREAS,
    CASTILLO_INDEX,
    MOBILE_SCOREBOARDS,
    MOBILE_VALUES,
    REGIONS,
    SORTED_NEIGHBOUR_INDICES,
    area_index,
)
from .errors import IllegalMove, given
from .scoring import awards_of_groups, groups_of, sole_leader
from .state import COURT, PROVINCES, added, replaced

# How a rank is named in a scoring's awards: a lone colour at position p takes the value of that
# rank; a tied group takes the next one ("tied_second" for a tie for first).
RANK_NAMES = ("first", "second", "third", "fourth", "fifth", "sixth")


def location_id(location):
    """The id of a location in events and views: an area id, `court` or `provinces`."""
    if location == COURT:
        return "court"
    if location == PROVINCES:
        return "provinces"
    return AREAS[location]


# --- where things may go ----------------------------------------------------------------------


# By the King's region: the regions but his; those and the Castillo; his neighbours and the Castillo.
_MOVABLE = tuple(tuple(region for region in range(len(REGIONS)) if region != king) for king in range(len(REGIONS)))
_DESTINATIONS = tuple(regions + (CASTILLO_INDEX,) for regions in _MOVABLE)
_PLACEMENT = tuple(neighbours + (CASTILLO_INDEX,) for neighbours in SORTED_NEIGHBOUR_INDICES)


def movable_regions(state):
    """Regions caballeros may leave or enter by a special action: all but the King's region (a tuple)."""
    return _MOVABLE[state.king]


def destinations(state):
    """Where a special action may put caballeros: any region but the King's, and the Castillo (a tuple)."""
    return _DESTINATIONS[state.king]


def placement_areas(state):
    """Where placement from court may go: the King's neighbours and the Castillo (a tuple)."""
    return _PLACEMENT[state.king]


# --- parsing the fields of a move --------------------------------------------------------------


def parse_area(value, what="region"):
    index = area_index(value)
    if index is None:
        raise IllegalMove("no_such_area", value=given(value))
    return index


def parse_region(value, what="region"):
    index = parse_area(value, what)
    if index == CASTILLO_INDEX:
        raise IllegalMove("castillo_not_allowed")
    return index


def parse_count(value, what="number of caballeros", minimum=0):
    if isinstance(value, bool) or not isinstance(value, int):
        raise IllegalMove("count_not_whole", value=given(value))
    if value < minimum:
        raise IllegalMove("count_too_small", value=value, least=minimum)
    return value


def parse_colour(state, value):
    if isinstance(value, str) and value in state.colours:
        return state.colours.index(value)
    raise IllegalMove("no_such_colour", value=given(value))


def parse_area_counts(value, what="placement"):
    """Area counts as an ordered mapping of area index to count; zero entries dropped.

    Either a mapping of area id to count, e.g. {"aragon": 2, "castillo": 1}, read in scoring order
    whatever the order of its keys (PostgreSQL's jsonb reorders keys, and a stored move must replay
    to the same game), or a list of [area id, count] pairs kept in the order given, for a taker who
    fixes the order of the steps a veto may cut (rule 9.1).
    """
    counts = {}
    for area, count in parse_area_steps(value):
        counts[area] = counts.get(area, 0) + count
    return counts


def parse_area_steps(value):
    """Area counts as a list of (area index, count) pairs in the order they are to happen; zero
    counts dropped. A mapping is read in scoring order (see parse_area_counts); a list of
    [area id, count] pairs keeps its order, an area named twice included: a taker who moves some
    caballeros into the Castillo, then one to Galicia, then another into the Castillo fixes that
    order of the steps a veto may cut (rule 9.1), which merging the two Castillo entries lost.
    """
    if isinstance(value, dict):
        pairs, ordered = value.items(), False
    elif isinstance(value, list) and all(isinstance(pair, list) and len(pair) == 2 for pair in value):
        pairs, ordered = value, True
    else:
        raise IllegalMove("counts_malformed")
    steps = []
    for area_id, count in pairs:
        area = parse_area(area_id)
        count = parse_count(count)
        if count:
            steps.append((area, count))
    return steps if ordered else sorted(steps)


def parse_order(state, value, seats, what="order", others=()):
    """A list of colours naming each of `seats` once, or None for `seats` as given.

    Colours of `others` may also be named (a form may list every opponent before the players
    concerned are known); they are left out of the order returned.
    """
    if value is None:
        return list(seats)
    if not isinstance(value, list):
        raise IllegalMove("order_not_list")
    order = [parse_colour(state, colour) for colour in value]
    named = [seat for seat in order if seat not in others or seat in seats]
    if len(set(order)) != len(order) or sorted(named) != sorted(seats):
        raise IllegalMove("order_each_player", colours=[state.colours[seat] for seat in seats])
    return named


def clockwise_from_left(state, seat):
    """Every other seat, clockwise, starting at the seat's left."""
    n = state.num_players
    return [(seat + offset) % n for offset in range(1, n)]


# --- moving caballeros ---------------------------------------------------------------------------


def count_at(state, seat, location):
    if location == COURT:
        return state.court[seat]
    if location == PROVINCES:
        return state.provinces[seat]
    return state.caballeros[location][seat]


def shift(state, seat, source, target, count):
    """Move `count` caballeros of one colour between court, provinces and areas."""
    available = count_at(state, seat, source)
    if available < count:
        raise IllegalMove(
            "caballeros_short", colour=state.colours[seat], count=available, place=location_id(source), asked=count
        )
    _add(state, seat, source, -count)
    _add(state, seat, target, count)


def _add(state, seat, location, count):
    """The one place where counts of caballeros change: each list changed is replaced by a changed
    copy, for a state made by a move shares them with the state before (GameState.successor)."""
    if location == COURT:
        state.court = added(state.court, seat, count)
    elif location == PROVINCES:
        state.provinces = added(state.provinces, seat, count)
    else:
        state.caballeros = replaced(state.caballeros, location, added(state.caballeros[location], seat, count))


# --- scoring -------------------------------------------------------------------------------------


_MOBILE_VALUES = tuple(MOBILE_VALUES[board] for board in MOBILE_SCOREBOARDS)


def area_values(state, area):
    """The values scored in an area: its own scoreboard or the mobile one lying on it."""
    if area in state.mobile:
        return _MOBILE_VALUES[state.mobile.index(area)]
    return AREA_SCOREBOARDS[area]


def area_awards(state, area, first_only=False):
    """The points one scoring of an area gives, rank by rank.

    Returns a list of steps, one per rank that scores anything: each is a list of
    [seat, points, reason]. The King's bonus and the home bonus ride with the first rank.
    """
    groups = groups_of(enumerate(state.caballeros[area]))
    if not groups:
        return []
    ranks = []
    for position, group, points in awards_of_groups(groups, area_values(state, area), state.num_players):
        if first_only and (position > 0 or len(group) > 1):
            break
        tied = len(group) > 1
        reason = ("tied_" if tied else "") + RANK_NAMES[position + (1 if tied else 0)]
        ranks.append([[seat, points, reason] for seat in group if points])
    if area != CASTILLO_INDEX:
        leader = sole_leader(groups)
        if leader is not None:
            bonuses = []
            if area == state.king:
                bonuses.append([leader, 2, "king_bonus"])
            if state.grandes[leader] == area:
                bonuses.append([leader, 2, "home_bonus"])
            if bonuses:
                if not ranks:
                    ranks.append([])
                ranks[0].extend(bonuses)
    return [awards for awards in ranks if awards]


def award(state, area, awards):
    """Add the points of one rank of a scoring to the scores and record them.

    The events are written out here rather than by `record`: points are a quarter of a game's events."""
    scores = state.scores = state.scores[:]
    area_id = AREAS[area]
    for seat, points, reason in awards:
        scores[seat] += points
        state.events.append(
            {"event": "points", "round": state.round, "seat": seat, "area": area_id, "points": points, "reason": reason}
        )


def score_area(state, area, first_only=False):
    for awards in area_awards(state, area, first_only=first_only):
        award(state, area, awards)
