"""Stack 1, the intrigue cards, and the Eviction: caballeros moved between regions and the Castillo.

Begun means whole (seed 001, rule 4): a card without "up to" is carried out in full once begun,
or as far as the board allows when it holds too few.
"""

from ..board import AREAS, REGIONS
from ..errors import IllegalMove
from ..operations import (
    clockwise_from_left,
    destinations,
    movable_regions,
    parse_area,
    parse_area_steps,
    parse_colour,
    parse_count,
    parse_order,
    parse_region,
)
from ..state import COURT
from .base import CardKind, check_special_move, ids


def movable_caballeros(state, seat):
    """A seat's caballeros a special action may move: in regions but the King's, not the Castillo."""
    return sum(state.caballeros[region][seat] for region in movable_regions(state))


class MoveCaballeros(CardKind):
    """Move caballeros between regions and into the Castillo. `own`/`foreign` limit the colours
    (0: any colour, up to `total`); `exact` cards move their full counts (as many as the board
    allows, if fewer); the others move up to them. `one_source`: all from one region."""

    def __init__(self, *, own=0, foreign=0, total=0, one_source=False, exact=False, **card):
        super().__init__(**card)
        self.own = own
        self.foreign = foreign
        self.total = total or own + foreign
        self.one_source = one_source
        self.exact = exact
        self.up_to = not exact

    def limits(self, state, taker):
        """(least, most) moves of own and of foreign caballeros, as {"own": [..], "foreign": [..]}."""
        if self.own and not self.foreign:
            most = {"own": self.own, "foreign": 0}
        elif self.foreign and not self.own:
            most = {"own": 0, "foreign": self.foreign}
        elif self.own and self.foreign:
            most = {"own": self.own, "foreign": self.foreign}
        else:
            most = {"own": self.total, "foreign": self.total}
        least = {"own": 0, "foreign": 0}
        if self.exact:
            own = movable_caballeros(state, taker)
            foreign = sum(movable_caballeros(state, seat) for seat in range(state.num_players) if seat != taker)
            least = {"own": min(most["own"], own), "foreign": min(most["foreign"], foreign)}
        return {side: [least[side], most[side]] for side in ("own", "foreign")}

    def plan(self, state, taker, move):
        entries = move.get("plan")
        if not isinstance(entries, list):
            raise IllegalMove("plan_missing")
        moves = []
        for entry in entries:
            if not isinstance(entry, dict):
                raise IllegalMove("plan_entry_malformed")
            seat = parse_colour(state, entry.get("colour"))
            source = parse_area(entry.get("from"))
            target = parse_area(entry.get("to"))
            count = parse_count(entry.get("count", 1), minimum=1)
            if len(moves) + count > self.total:
                raise IllegalMove("moves_too_many", most=self.total)
            moves.extend([[seat, source, target]] * count)
        self._check_moves(state, taker, moves)
        return {"moves": moves}

    def _check_moves(self, state, taker, moves):
        limits = self.limits(state, taker)
        own = sum(1 for seat, _s, _t in moves if seat == taker)
        foreign = len(moves) - own
        if not limits["foreign"][1] and foreign:
            raise IllegalMove("own_caballeros_only")
        if not limits["own"][1] and own:
            raise IllegalMove("foreign_caballeros_only")
        if self.own and self.foreign:
            if own > self.own:
                raise IllegalMove("own_too_many", most=self.own)
            if foreign > self.foreign:
                raise IllegalMove("foreign_too_many", most=self.foreign)
        if moves and own < limits["own"][0]:
            raise IllegalMove("in_full_own", count=limits["own"][0])
        if moves and foreign < limits["foreign"][0]:
            raise IllegalMove("in_full_foreign", count=limits["foreign"][0])
        if self.one_source and len({source for _seat, source, _t in moves}) > 1:
            raise IllegalMove("one_source_region")
        for _seat, source, target in moves:
            check_special_move(state, source, target)

    def steps(self, state, taker, plan, choices):
        return [["shift", [[seat, source, target, 1]]] for seat, source, target in plan["moves"]]

    def options(self, state, taker):
        limits = self.limits(state, taker)
        colours = [
            colour
            for seat, colour in enumerate(state.colours)
            if limits["own" if seat == taker else "foreign"][1]
        ]
        return {
            "action": "move_caballeros",
            "most": self.total,
            "own": limits["own"],
            "foreign": limits["foreign"],
            "one_source": self.one_source,
            "sources": ids(movable_regions(state)),
            "destinations": ids(destinations(state)),
            "colours": colours,
        }


class OwnRegion(CardKind):
    """Take all own caballeros from one region and redistribute them freely (some may go back)."""

    # Keeping some back in their region is part of the card, so any prefix of the plan is a plan.
    up_to = True

    def plan(self, state, taker, move):
        region = parse_region(move.get("region"))
        if region == state.king:
            raise IllegalMove("king_region_closed")
        present = state.caballeros[region][taker]
        if not present:
            raise IllegalMove("no_own_caballero_in_region", area=AREAS[region])
        spread = parse_area_steps(move.get("to"))
        total = sum(count for _target, count in spread)
        if total != present:
            raise IllegalMove("redistribute_all", count=present, area=AREAS[region], given=total)
        if any(target == state.king for target, _count in spread):
            raise IllegalMove("king_region_closed")
        moves = []
        for target, count in spread:
            if target != region:
                moves.extend([[region, target]] * count)
        return {"region": region, "moves": moves}

    def steps(self, state, taker, plan, choices):
        return [["shift", [[taker, source, target, 1]]] for source, target in plan["moves"]]

    def options(self, state, taker):
        regions = [r for r in movable_regions(state) if state.caballeros[r][taker]]
        return {"action": "redistribute", "regions": ids(regions), "destinations": ids(destinations(state))}


class CourtToRegions(CardKind):
    """Put `count` more caballeros from court into any regions or the Castillo (all of them if
    the court holds fewer): begun means whole."""

    def __init__(self, *, count, **card):
        super().__init__(**card)
        self.count = count

    def needed(self, state, taker):
        return min(self.count, state.court[taker])

    def plan(self, state, taker, move):
        spread = parse_area_steps(move.get("to"))
        total = sum(count for _target, count in spread)
        needed = self.needed(state, taker)
        if total > self.count:
            raise IllegalMove("court_card_too_many", most=self.count)
        if total > state.court[taker]:
            raise IllegalMove("court_holds_only", count=state.court[taker])
        if total and total != needed:
            raise IllegalMove("in_full_court", count=needed)
        if any(target == state.king for target, _count in spread):
            raise IllegalMove("king_region_closed")
        moves = []
        for target, count in spread:
            moves.extend([target] * count)
        return {"moves": moves}

    def steps(self, state, taker, plan, choices):
        return [["shift", [[taker, COURT, target, 1]]] for target in plan["moves"]]

    def options(self, state, taker):
        return {
            "action": "court_to_regions",
            "count": self.needed(state, taker),
            "destinations": ids(destinations(state)),
        }


class EitherOf(CardKind):
    """The taker picks one of two special actions (cards of the catalogue, by id)."""

    def __init__(self, *, options, **card):
        super().__init__(**card)
        self.option_ids = options
        self.choices_of = {}

    def resolve(self, cards):
        self.choices_of = {
            "court" if isinstance(cards[card_id], CourtToRegions) else "own_region": cards[card_id]
            for card_id in self.option_ids
        }

    def _option(self, move):
        name = move.get("option")
        if not isinstance(name, str) or name not in self.choices_of:
            raise IllegalMove("choose_option", options=list(self.choices_of))
        return name

    def plan(self, state, taker, move):
        name = self._option(move)
        return {"option": name, "plan": self.choices_of[name].plan(state, taker, move)}

    def steps(self, state, taker, plan, choices):
        return self.choices_of[plan["option"]].steps(state, taker, plan["plan"], choices)

    def taker_may_cut(self, plan, steps):
        return self.choices_of[plan["option"]].taker_may_cut(plan["plan"], steps)

    def options(self, state, taker):
        return {
            "action": "either",
            "options": {name: kind.options(state, taker) for name, kind in self.choices_of.items()},
        }


class Eviction(CardKind):
    """The taker names a region; every other player there secretly picks where theirs all go
    (the King's region or the same region sends them to court)."""

    choice = "region"

    def plan(self, state, taker, move):
        region = parse_region(move.get("region"))
        if region == state.king:
            raise IllegalMove("king_region_closed")
        others = clockwise_from_left(state, taker)
        present = [s for s in others if state.caballeros[region][s]]
        order = parse_order(state, move.get("order"), present, others=others)
        return {"region": region, "order": order}

    def choosers(self, state, taker, plan):
        return list(plan["order"])

    def choice_options(self, state, seat, plan):
        return list(range(len(REGIONS)))

    def steps(self, state, taker, plan, choices):
        source = plan["region"]
        steps = []
        for seat in plan["order"]:
            target = choices[seat]
            if target in (source, state.king):
                target = COURT
            steps.append(["shift", [[seat, source, target, state.caballeros[source][seat]]]])
        return steps

    def options(self, state, taker):
        others = [state.colours[s] for s in clockwise_from_left(state, taker)]
        return {"action": "evict", "regions": ids(movable_regions(state)), "order": others}
