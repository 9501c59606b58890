"""Seating, standings and tie-breaks of a tournament: pure functions of plain data, no Django.

Players are any hashable ids (the site passes user ids). A finished game is a `GameResult`: its
players with their places (equal scores share a place, as on the site) and game scores.
docs/tournaments.md explains the formats, the pairing and the tie-breaks in words.
"""

import itertools
import random
from dataclasses import dataclass, field

DEFAULT_POINTS = (5, 3, 2, 1, 0)
SMALLEST_TABLE, LARGEST_TABLE = 2, 5
# Seatings of one round tried one by one (an exact search) when there are no more than this many;
# beyond, a greedy seating improved by swaps.
EXACT_SEARCH_LIMIT = 20000


class PairingError(ValueError):
    """Entrants that no seating fits (too few for a table)."""


@dataclass(frozen=True)
class GameResult:
    """One finished game: `places` and `scores` map each of its players to their place (1 is
    best; equal scores share a place) and their game score."""

    places: dict
    scores: dict

    @property
    def players(self):
        return list(self.places)


# ---- table sizes ------------------------------------------------------------------------------


def table_sizes(count, size):
    """The sizes of the tables that seat `count` players around tables of `size` (3 to 5): all of
    `size` when it divides, else tables of a neighbouring size (size - 1 or size + 1), as few
    players away from `size` as will do and then as many tables of `size` as can be, largest
    first. Raises PairingError when no such seating exists."""
    best = None
    for tables in range(1, count + 1):
        base, extra = divmod(count, tables)
        sizes = [base + 1] * extra + [base] * (tables - extra)
        if min(sizes) < max(SMALLEST_TABLE, size - 1) or max(sizes) > min(LARGEST_TABLE, size + 1):
            continue
        key = (sum(abs(each - size) for each in sizes), -sizes.count(size))
        if best is None or key < best[0]:
            best = (key, sizes)
    if best is None:
        raise PairingError(f"{count} players cannot sit at tables of {size} (or {size - 1} to {size + 1})")
    return best[1]


# ---- points, standings, tie-breaks --------------------------------------------------------------


def game_points(result, points=DEFAULT_POINTS):
    """{player: tournament points} of one game: the points of the place each took; players who tie
    share the place (the site's ranking) and each gets its points. A place beyond the list scores 0."""
    return {player: (points[place - 1] if place - 1 < len(points) else 0) for player, place in result.places.items()}


@dataclass
class Standing:
    player: object
    points: int = 0
    score: int = 0
    opponents_points: int = 0
    games: int = 0
    rank: int = 0
    withdrawn: bool = False
    # Head-to-head against every opponent met: games placed better minus games placed worse.
    head_to_head: dict = field(default_factory=dict)


def standings(players, results, points=DEFAULT_POINTS, withdrawn=()):
    """The ranking of `players` after `results` (finished games), best first: tournament points,
    then total game score, then opponents' tournament points (the sum, over every game played, of
    the tournament points of the others at its table), then head-to-head among the players still
    tied (games placed better against each other). Players tied on all four share a rank, and are
    listed in the order of `players`. `withdrawn` players keep their points and are marked."""
    table = {player: Standing(player, withdrawn=player in withdrawn) for player in players}
    for result in results:
        for player, got in game_points(result, points).items():
            if player in table:
                table[player].points += got
                table[player].score += result.scores.get(player, 0)
                table[player].games += 1
    for result in results:
        for player in result.players:
            if player not in table:
                continue
            for other in result.players:
                if other == player or other not in table:
                    continue
                table[player].opponents_points += table[other].points
                mine, theirs = result.places[player], result.places[other]
                better = (mine < theirs) - (mine > theirs)
                table[player].head_to_head[other] = table[player].head_to_head.get(other, 0) + better
    order = list(players)
    first = {p: (table[p].points, table[p].score, table[p].opponents_points) for p in order}
    ranked = sorted(order, key=lambda p: tuple(-v for v in first[p]))
    keys = {}
    for _key, tied in itertools.groupby(ranked, key=first.get):
        tied = set(tied)
        for player in tied:
            # Head-to-head only among the players tied on the three before.
            record = sum(value for other, value in table[player].head_to_head.items() if other in tied)
            keys[player] = (*first[player], record)
    ranked = sorted(order, key=lambda p: tuple(-v for v in keys[p]))
    out = [table[p] for p in ranked]
    for index, standing in enumerate(out):
        shared = index and keys[standing.player] == keys[out[index - 1].player]
        standing.rank = out[index - 1].rank if shared else index + 1
    return out


# ---- seating a round ----------------------------------------------------------------------------


def meetings(tables_so_far):
    """{frozenset({a, b}): how many times a and b shared a table} over `tables_so_far` (lists of
    players)."""
    met = {}
    for table in tables_so_far:
        for a, b in itertools.combinations(table, 2):
            key = frozenset((a, b))
            met[key] = met.get(key, 0) + 1
    return met


def first_round(players, size, ratings=None, seed=0):
    """The tables of the first round: by rating (`ratings` {player: number}, best first; the
    unrated after the rated, drawn at random) or, without ratings, at random. Neighbours in that
    order sit together."""
    rng = random.Random(seed)
    shuffled = list(players)
    rng.shuffle(shuffled)
    if ratings:
        shuffled.sort(key=lambda p: (p not in ratings, -ratings.get(p, 0)))
    return _blocks(shuffled, table_sizes(len(shuffled), size))


def swiss_round(order, size, history):
    """The tables of a later Swiss round. `order`: the players still in, best first (their
    standings); `history`: the tables they sat at so far (lists of players).

    The seating is the one that, in this order of importance, (1) keeps lowest the most times any
    two players will then have met, (2) seats the fewest pairs who met before (each earlier
    meeting counting more), (3) seats players of the closest standings together (the sum, over the
    tables, of the distance in the standings between the best and the worst seated there). Among
    several seatings equal on all three, the first in the order of the standings."""
    sizes = table_sizes(len(order), size)
    met = meetings(history)
    if _seatings_count(sizes) <= EXACT_SEARCH_LIMIT:
        return _exact(order, sizes, met)
    return _improved(order, sizes, met)


def groups(players, size, ratings=None, seed=0):
    """The groups of the "groups then a final" format: the first round's tables, each group seated
    together for every game of the group stage. By rating, the groups are dealt like cards (a
    snake: 1, 2, 3, 3, 2, 1, ...) so that each has its share of the strongest."""
    rng = random.Random(seed)
    shuffled = list(players)
    rng.shuffle(shuffled)
    sizes = table_sizes(len(shuffled), size)
    if not ratings:
        return _blocks(shuffled, sizes)
    shuffled.sort(key=lambda p: (p not in ratings, -ratings.get(p, 0)))
    tables = [[] for _ in sizes]
    lanes = list(range(len(sizes)))
    snake = itertools.cycle(lanes + lanes[::-1])
    for player in shuffled:
        lane = next(snake)
        while len(tables[lane]) >= sizes[lane]:
            lane = next(snake)
        tables[lane].append(player)
    return tables


def finalists(group_standings, size):
    """The final table of the "groups then a final" format: the best of each group, then (when
    there are fewer groups than `size`) the second best of each, and so on, up to `size` players
    (at most 5). `group_standings`: each group's players best first."""
    seats = min(size, LARGEST_TABLE, sum(len(group) for group in group_standings))
    chosen = []
    # No group left (every entrant withdrew): no final, rather than max() of nothing.
    for rank in range(max((len(group) for group in group_standings), default=0)):
        for group in group_standings:
            if rank < len(group) and len(chosen) < seats:
                chosen.append(group[rank])
    return chosen


def _blocks(order, sizes):
    tables, start = [], 0
    for each in sizes:
        tables.append(list(order[start:start + each]))
        start += each
    return tables


def _table_cost(table, met, position):
    most, repeats = 0, 0
    for a, b in itertools.combinations(table, 2):
        before = met.get(frozenset((a, b)), 0)
        most = max(most, before + 1)
        repeats += before
    ranks = [position[p] for p in table]
    return (most, repeats, max(ranks) - min(ranks))


def _total(costs):
    return (max(cost[0] for cost in costs), sum(cost[1] for cost in costs), sum(cost[2] for cost in costs))


def _cost(tables, met, position):
    return _total([_table_cost(table, met, position) for table in tables])


def _seatings_count(sizes):
    count, left = 1, sum(sizes)
    for each in sizes:
        count *= _choose(left, each)
        left -= each
    return count


def _choose(n, k):
    result = 1
    for i in range(k):
        result = result * (n - i) // (i + 1)
    return result


def _seatings(players, sizes):
    """Every way to seat `players` at tables of `sizes`, in that order."""
    if not sizes:
        yield []
        return
    first, rest = sizes[0], sizes[1:]
    for table in itertools.combinations(players, first):
        chosen = set(table)
        left = [p for p in players if p not in chosen]
        for others in _seatings(left, rest):
            yield [list(table), *others]


def _exact(order, sizes, met):
    position = {p: index for index, p in enumerate(order)}
    best, best_cost = None, None
    for tables in _seatings(order, sizes):
        cost = _cost(tables, met, position)
        if best_cost is None or cost < best_cost:
            best, best_cost = tables, cost
    return best


def _improved(order, sizes, met):
    """Greedy seating from the top of the standings, then swaps of two players at different
    tables while a swap lowers the cost."""
    position = {p: index for index, p in enumerate(order)}
    left = list(order)
    tables = []
    for each in sizes:
        table = [left.pop(0)]
        while len(table) < each:
            pick = min(left, key=lambda p: (max(met.get(frozenset((p, q)), 0) for q in table), position[p]))
            left.remove(pick)
            table.append(pick)
        tables.append(table)
    costs = [_table_cost(table, met, position) for table in tables]
    cost = _total(costs)
    improved = True
    while improved:
        improved = False
        for i, j in itertools.combinations(range(len(tables)), 2):
            for a, b in itertools.product(range(len(tables[i])), range(len(tables[j]))):
                tables[i][a], tables[j][b] = tables[j][b], tables[i][a]
                new_i, new_j = _table_cost(tables[i], met, position), _table_cost(tables[j], met, position)
                new = _total([*costs[:i], new_i, *costs[i + 1:j], new_j, *costs[j + 1:]])
                if new < cost:
                    cost, costs[i], costs[j], improved = new, new_i, new_j, True
                else:
                    tables[i][a], tables[j][b] = tables[j][b], tables[i][a]
    return tables
