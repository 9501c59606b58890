"""How good a position is for one seat: every seat's score projected to the end, then a margin.

A seat's projection is its score plus what the board is likely to bring it:

- each region's ranks, taken softly: the further away its scoring, the more a lead may still
  change, so a colour's chance of standing above another grows smoothly with its margin
  (`area_points`), and its expected rank gives its expected points. The next general scoring counts in
  full, together with the scoring cards likely to strike before it; the later general scorings
  count less, with much softer ranks. The King's region changes only when the King moves.
- the King's and home bonuses, by the chance of being the sole leader;
- the Castillo, scored at the next general scoring, and its caballeros, which then join a region
  of their owner's choice;
- caballeros in court (to be placed) and in the provinces (to be brought to court), while rounds
  remain to use them; the power cards left (the higher, the more a card is worth as a bid) and the
  veto cards held.

The value of a position for a seat is its projection less a blend of the best and the average
projection of the others: winning is what counts, but a point taken from any rival helps.
"""

import math

from games.engine.board import CASTILLO_INDEX, REGIONS
from games.engine.operations import area_values
from games.engine.scoring import rank_groups, rank_points, sole_leader, values_in_play

AREAS_COUNT = len(REGIONS) + 1

# Weights, in points.
COURT_VALUE = 0.45  # a caballero in court, while it can still be placed
PROVINCE_VALUE = 0.12  # a caballero in the provinces, while it can still come to court
CASTILLO_CABALLERO = 0.6  # a Castillo caballero, which joins a region of its owner's choice
VETO_VALUE = 1.5
CARD_VALUE = 0.12  # a power card in hand, per point of its number, while rounds remain to play it
BONUS = 2
SCORING_CARDS_PER_ROUND = 0.12  # the chance that a scoring card scores a given region in a round
LATER_SCORING_WEIGHT = 0.45
LATER_SOFTNESS = 2.5
BEST_RIVAL = 0.5  # the share of the best rival in the margin (the rest: the average rival)


def _chances(tau):
    """(ahead, tied): ahead[x + 40] is the chance that a colour with x caballeros more than another
    ends strictly above it at the scoring, tied[x + 40] that the two end level. The margin drifts
    by a logistic amount of scale tau; tau near 0 gives the board as it stands."""

    def above(x):
        return 1.0 / (1.0 + math.exp(-x / tau)) if tau > 0 else float(x > 0)

    ahead = [above(x - 0.5) for x in range(-40, 41)]
    tied = [above(x + 0.5) - above(x - 0.5) for x in range(-40, 41)]
    return ahead, tied


_TABLES = {}
NOW = 0.0  # the softness of a scoring that happens now: ranks as they stand


def chance_tables(tau):
    key = round(tau, 2)
    tables = _TABLES.get(key)
    if tables is None:
        tables = _TABLES[key] = _chances(key)
    return tables


_HARD = chance_tables(NOW)


def area_points(counts, values, tables, king_bonus, homes):
    """Each seat's expected points from one scoring of an area (rank points and bonuses).

    counts: caballeros by seat; values: the values in play (0 beyond them); tables: chance_tables;
    king_bonus: whether the sole leader takes the King's bonus; homes: the seats whose Grande
    stands there (booleans by seat), or None for the Castillo.

    A colour's expected rank position is the chance of each other colour ending above it (one
    absent now included: it may come before the scoring), plus the chance that it ends tied (a
    tied group takes the next value, docs/rules.md); between two positions its points are
    interpolated. Counted colour by colour, a group of three or more tied above a colour would
    push it down by its size instead of by two: that case is set right by the exact points of the
    board as it stands (`_tie_correction`).
    """
    points = _pairwise(counts, values, tables, king_bonus, homes)
    present = [s for s in range(len(counts)) if counts[s]]
    if len(present) >= 3:
        _tie_correction(counts, values, king_bonus, homes, points, present)
    return points


def _pairwise(counts, values, tables, king_bonus, homes):
    ahead, tied = tables
    n = len(counts)
    points = [0.0] * n
    present = [s for s in range(n) if counts[s]]
    if not present:
        return points
    last = len(values) - 1
    for p in present:
        cp = counts[p] - 40
        position = 0.0
        alone = 1.0
        leads = 1.0
        for o in range(n):  # a colour absent now may still come before the scoring
            if o != p:
                x = counts[o] - cp
                position += ahead[x]
                alone *= 1.0 - tied[x]
                leads *= 1.0 - ahead[x] - tied[x]
        position += 1.0 - alone
        index = int(position)
        if index >= last:
            value = values[last] * (1 - (position - last)) if position < last + 1 else 0.0
        else:
            frac = position - index
            value = values[index] * (1 - frac) + values[index + 1] * frac
        if homes is not None:
            bonuses = (1 if king_bonus else 0) + (1 if homes[p] else 0)
            if bonuses:
                value += BONUS * bonuses * leads
        points[p] = value
    return points


def _tie_correction(counts, values, king_bonus, homes, points, present):
    level = [counts[s] for s in present]
    if all(level.count(c) < 3 for c in level):
        return
    exact = rank_points(dict(enumerate(counts)), values, len(counts))
    leader = sole_leader(rank_groups({s: counts[s] for s in present}))
    if homes is not None and leader is not None:
        exact[leader] = exact.get(leader, 0) + BONUS * ((1 if king_bonus else 0) + (1 if homes[leader] else 0))
    counted = _pairwise(counts, values, _HARD, king_bonus, homes)
    for s in present:
        points[s] += exact.get(s, 0) - counted[s]


class Horizon:
    """What the rest of the game holds, as seen from a position: how far the next general scoring
    is and how many follow it."""

    __slots__ = ("near", "later", "rounds_left", "castillo_weight", "tables")

    def __init__(self, state):
        n = state.num_players
        scorings = state.scoring_rounds
        remaining = [r for r in scorings if r >= state.round] if not state.is_over else []
        if state.phase == "bid":
            current_left = 1.0
        elif state.phase in ("court", "card", "action", "special"):
            current_left = (n - state.turn_index - 0.5) / n
        else:  # castillo: the scoring is now
            current_left = 0.0
        if remaining:
            distance = remaining[0] - state.round + current_left
            later_rounds = state.num_rounds - remaining[0]
        else:
            distance = 0.0
            later_rounds = 0
        self.rounds_left = (state.num_rounds - state.round + current_left) if not state.is_over else 0.0
        near_weight = (1.0 + SCORING_CARDS_PER_ROUND * distance) if remaining else 0.0
        later_weight = LATER_SCORING_WEIGHT * (len(remaining) - 1) + SCORING_CARDS_PER_ROUND * later_rounds * 0.5
        if not remaining:
            later_weight = 0.0
        self.near = (near_weight, 0.35 + 0.55 * distance, 0.35 + 0.2 * distance)
        self.later = later_weight
        self.castillo_weight = 1.0 if remaining else 0.0
        self.tables = (
            chance_tables(self.near[1]),
            chance_tables(self.near[2]),
            chance_tables(LATER_SOFTNESS),
        )


class Context:
    """What values an area's caballeros in a position: the horizon, the values in force, the King
    and the homes. Positions a few moves apart share it, and with it the areas already valued."""

    def __init__(self, state):
        n = state.num_players
        self.horizon = Horizon(state)
        self.values = [values_in_play(area_values(state, a), n) for a in range(AREAS_COUNT)]
        self.homes = [tuple(state.grandes[s] == a for s in range(n)) for a in range(len(REGIONS))]
        self.king = state.king
        self.known = {}

    def area(self, a, counts):
        """Every seat's expected points from area `a` holding `counts`."""
        key = (a, *counts)
        part = self.known.get(key)
        if part is None:
            if len(self.known) > 50_000:
                self.known.clear()
            part = self.known[key] = self._area(a, counts)
        return part

    def _area(self, a, counts):
        h = self.horizon
        n = len(counts)
        if a == CASTILLO_INDEX:
            if not h.castillo_weight:
                return (0.0,) * n
            points = area_points(counts, self.values[a], h.tables[0], False, None)
            return tuple(h.castillo_weight * points[s] + CASTILLO_CABALLERO * counts[s] for s in range(n))
        king = a == self.king
        near = area_points(counts, self.values[a], h.tables[1] if king else h.tables[0], king, self.homes[a])
        if not h.later:
            return tuple(h.near[0] * x for x in near)
        later = area_points(counts, self.values[a], h.tables[2], king, self.homes[a])
        return tuple(h.near[0] * x + h.later * y for x, y in zip(near, later))


_CONTEXTS = {}


def context(state):
    key = (
        state.num_players,
        state.short_game,
        state.round,
        state.phase,
        state.turn_index,
        state.king,
        tuple(state.grandes),
        tuple(state.mobile),
    )
    found = _CONTEXTS.get(key)
    if found is None:
        if len(_CONTEXTS) > 500:
            _CONTEXTS.clear()
        found = _CONTEXTS[key] = Context(state)
    return found


class Evaluation:
    """Every seat's projection, kept area by area so that a change to one or two areas is cheap
    to value (`with_areas`)."""

    def __init__(self, state, seat):
        self.state = state
        self.seat = seat
        self.context = context(state)
        self.horizon = self.context.horizon
        self.area = self.context.area
        self.parts = [self.area(a, state.caballeros[a]) for a in range(AREAS_COUNT)]
        self.base = self._base(state)
        n = state.num_players
        self.totals = [self.base[s] + sum(part[s] for part in self.parts) for s in range(n)]

    def _base(self, state):
        h = self.horizon
        left = h.rounds_left
        base = []
        for s in range(state.num_players):
            value = state.scores[s]
            if left > 0:
                value += court_value(state.court[s], left)
                value += PROVINCE_VALUE * min(state.provinces[s], 4 * max(0.0, left - 1))
                value += hand_value(state.hands[s], bids_left(state, s))
            value += VETO_VALUE * sum(1 for holder, _round in state.vetoes if holder == s)
            base.append(value)
        return base

    def commit(self, changes, seat=None, extra=0.0):
        """Make the changes of `with_areas` (and `extra` points to `seat`) part of the evaluation."""
        for a, counts in changes.items():
            new = self.area(a, counts)
            old = self.parts[a]
            for s in range(len(self.totals)):
                self.totals[s] += new[s] - old[s]
            self.parts[a] = new
        if seat is not None:
            self.totals[seat] += extra

    def delta(self, a, counts):
        """How every seat's projection changes if area `a` held `counts`."""
        new = self.area(a, counts)
        return [x - y for x, y in zip(new, self.parts[a])]

    def utility(self, totals=None):
        totals = self.totals if totals is None else totals
        return margin(totals, self.seat)

    def with_areas(self, changes, seat=None, extra=0.0):
        """The utility if the areas in `changes` ({area: counts}) held those counts instead (and
        `seat` had `extra` points more)."""
        totals = list(self.totals)
        if seat is not None:
            totals[seat] += extra
        for a, counts in changes.items():
            old = self.parts[a]
            new = self.area(a, counts)
            for s in range(len(totals)):
                totals[s] += new[s] - old[s]
        return margin(totals, self.seat)


def bids_left(state, seat):
    """How many more power cards the seat will bid: this round's too while it has not bid."""
    return state.num_rounds - state.round + (1 if state.phase == "bid" and state.bids[seat] is None else 0)


def hand_value(hand, bids):
    """The power cards a player will still bid, the highest first: a high card buys an early turn."""
    if bids <= 0:
        return 0.0
    key = (tuple(hand), bids)
    value = _HANDS.get(key)
    if value is None:
        if len(_HANDS) > 100_000:
            _HANDS.clear()
        value = _HANDS[key] = CARD_VALUE * sum(sorted(hand, reverse=True)[:bids])
    return value


_HANDS = {}


def court_value(court, rounds_left):
    """What a court of that size is worth with that many rounds left to place from it."""
    if rounds_left <= 0:
        return 0.0
    return COURT_VALUE * min(court, 5 * rounds_left) * min(1.0, rounds_left)


def margin_weights(totals, seat):
    """How much each seat's projection counts in `margin` as it stands: a small change to the
    projections changes the margin by the sum of the changes times these weights."""
    n = len(totals)
    if n == 1:
        return [1.0]
    best = max((s for s in range(n) if s != seat), key=lambda s: totals[s])
    weights = [-(1 - BEST_RIVAL) / (n - 1)] * n
    weights[seat] = 1.0
    weights[best] -= BEST_RIVAL
    return weights


def margin(totals, seat):
    others = [t for s, t in enumerate(totals) if s != seat]
    if not others:
        return totals[seat]
    best = max(others)
    mean = sum(others) / len(others)
    return totals[seat] - BEST_RIVAL * best - (1 - BEST_RIVAL) * mean


def evaluate(state, seat):
    """The value of the position for `seat` (see the module's notes)."""
    if state.is_over:
        return margin([float(x) for x in state.scores], seat)
    return Evaluation(state, seat).utility()
