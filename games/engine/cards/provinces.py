"""Stack 2's cards that send caballeros to the provinces, and the Court card of stack 4."""

from ..board import AREAS, CASTILLO_INDEX
from ..errors import IllegalMove
from ..operations import (
    clockwise_from_left,
    count_at,
    movable_regions,
    parse_area,
    parse_colour,
    parse_count,
    parse_order,
    parse_region,
)
from ..state import COURT, PROVINCES
from .base import CardKind, ids


class Decay(CardKind):
    """Every other player sends caballeros from court to the provinces, in the taker's order."""

    def __init__(self, *, count=None, **card):
        super().__init__(**card)
        self.count = count  # None: the whole court

    def plan(self, state, taker, move):
        return {"order": parse_order(state, move.get("order"), clockwise_from_left(state, taker))}

    def steps(self, state, taker, plan, choices):
        steps = []
        for seat in plan["order"]:
            count = state.court[seat] if self.count is None else min(self.count, state.court[seat])
            if count:
                steps.append(["shift", [[seat, COURT, PROVINCES, count]]])
        return steps

    def options(self, state, taker):
        return {"action": "order", "order": [state.colours[s] for s in clockwise_from_left(state, taker)]}


class KingReturns(CardKind):
    """Every other player in turn, clockwise from the taker's left, sends 3 own caballeros to the
    provinces from regions and/or court (as many as he can, if fewer). Not secret: each sees the
    shares already sent before choosing his own (seeds 002 and 001 §9.2)."""

    choice = "share"
    count = 3

    def plan(self, state, taker, move):
        return {"order": clockwise_from_left(state, taker)}

    def holdings(self, state, seat):
        """[source, count] for each place a sharer's caballeros may come from: court, then the
        regions but the King's, where he has any."""
        court = state.court[seat]
        held = [[COURT, court]] if court else []
        caballeros = state.caballeros
        held.extend([region, caballeros[region][seat]] for region in movable_regions(state) if caballeros[region][seat])
        return held

    def needed(self, state, seat):
        return min(self.count, sum(count for _source, count in self.holdings(state, seat)))

    def must_choose(self, state, seat):
        """A share is a decision only when there is a real choice of where the caballeros come from:
        more than one source and more than the share to choose from."""
        held = self.holdings(state, seat)
        return len(held) > 1 and sum(count for _source, count in held) > self.count

    def forced_share(self, state, seat):
        """The share of a sharer without a choice: everything he has, or 3 from his one source."""
        share, left = [], self.needed(state, seat)
        for source, count in self.holdings(state, seat):
            count = min(left, count)
            share.append([source, count])
            left -= count
        return share

    def check_share(self, state, seat, move):
        """A sharer's move, as [[source, count], ...] in the order of the sources."""
        if move.get("type") != "share":
            raise IllegalMove("share_expected")
        raw = move.get("from")
        # A map of places to counts, or a list of [place, count] pairs as everywhere a map of
        # counts is taken (README.md, "Moves"); a share is sent at once, in the order of its sources.
        if isinstance(raw, dict):
            pairs = raw.items()
        elif isinstance(raw, list) and all(isinstance(pair, list) and len(pair) == 2 for pair in raw):
            pairs = raw
        else:
            raise IllegalMove("share_malformed")
        share = {}
        for place, count in pairs:
            source = COURT if place == "court" else parse_area(place)
            if source == CASTILLO_INDEX:
                raise IllegalMove("castillo_closed")
            if source == state.king:
                raise IllegalMove("king_region_closed")
            count = parse_count(count)
            # What the share takes from this place in all: a place named twice asks for the sum.
            wanted = share.get(source, 0) + count
            if wanted > count_at(state, seat, source):
                raise IllegalMove("share_source_short", count=wanted, place=place)
            if count:
                share[source] = share.get(source, 0) + count
        needed = self.needed(state, seat)
        if sum(share.values()) != needed:
            raise IllegalMove("share_exactly", count=needed)
        return [[source, count] for source, count in sorted(share.items())]

    def share_step(self, seat, share):
        return ["shift", [[seat, source, PROVINCES, count] for source, count in share]]

    def share_options(self, state, seat):
        """What a sharer may send: how many in all, and at most how many from each source."""
        return {
            "needed": self.needed(state, seat),
            "sources": [
                {"id": "court" if source == COURT else AREAS[source], "max": count}
                for source, count in self.holdings(state, seat)
            ],
        }

    def taker_may_cut(self, plan, steps):
        return True

    def options(self, state, taker):
        return {"action": "none"}


class OneEachToProvinces(CardKind):
    """The taker sends one caballero of every player, own included, from a region to the provinces."""

    def owners(self, state):
        return [
            seat for seat in range(state.num_players) if any(state.caballeros[r][seat] for r in movable_regions(state))
        ]

    def plan(self, state, taker, move):
        picks = move.get("picks")
        if not isinstance(picks, list):
            raise IllegalMove("picks_missing")
        chosen = []
        for pick in picks:
            if not isinstance(pick, dict):
                raise IllegalMove("pick_malformed")
            seat = parse_colour(state, pick.get("colour"))
            region = parse_region(pick.get("region"))
            if region == state.king:
                raise IllegalMove("king_region_closed")
            if not state.caballeros[region][seat]:
                raise IllegalMove("pick_no_caballero", colour=state.colours[seat], area=AREAS[region])
            chosen.append([seat, region])
        owners = self.owners(state)
        if sorted(seat for seat, _ in chosen) != owners:
            raise IllegalMove("picks_each_player", colours=[state.colours[seat] for seat in owners])
        return {"picks": chosen}

    def steps(self, state, taker, plan, choices):
        return [["shift", [[seat, region, PROVINCES, 1]]] for seat, region in plan["picks"]]

    def options(self, state, taker):
        picks = []
        for seat in [taker] + [s for s in self.owners(state) if s != taker]:
            regions = [r for r in movable_regions(state) if state.caballeros[r][seat]]
            if regions:
                picks.append({"colour": state.colours[seat], "regions": ids(regions)})
        return {"action": "picks", "picks": picks}


class SecretToProvinces(CardKind):
    """Every other player secretly picks a region of theirs and sends caballeros to the provinces:
    `count` from a region holding that many (from one holding fewer if none does), or all."""

    choice = "region"

    def __init__(self, *, count=None, **card):
        super().__init__(**card)
        self.count = count

    def plan(self, state, taker, move):
        return {"order": parse_order(state, move.get("order"), clockwise_from_left(state, taker))}

    def choice_options(self, state, seat, plan):
        held = [r for r in movable_regions(state) if state.caballeros[r][seat]]
        if self.count is not None:
            enough = [r for r in held if state.caballeros[r][seat] >= self.count]
            return enough or held
        return held

    def choosers(self, state, taker, plan):
        return [seat for seat in plan["order"] if len(self.choice_options(state, seat, plan)) > 1]

    def steps(self, state, taker, plan, choices):
        steps = []
        for seat in plan["order"]:
            region = choices[seat]
            if region is None:
                options = self.choice_options(state, seat, plan)
                if not options:
                    continue
                region = options[0]
            present = state.caballeros[region][seat]
            count = present if self.count is None else min(self.count, present)
            steps.append(["shift", [[seat, region, PROVINCES, count]]])
        return steps

    def options(self, state, taker):
        return {"action": "order", "order": [state.colours[s] for s in clockwise_from_left(state, taker)]}


class CourtFromProvinces(CardKind):
    """Move 2 own caballeros from the provinces to court (all there are, if fewer)."""

    def __init__(self, *, count, **card):
        super().__init__(**card)
        self.count = count

    def steps(self, state, taker, plan, choices):
        count = min(self.count, state.provinces[taker])
        return [["shift", [[taker, PROVINCES, COURT, 1]]] for _ in range(count)]
