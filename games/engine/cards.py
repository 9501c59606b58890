"""The action cards: a catalogue (data) and one handler per kind of special action.

A handler turns the taker's announced plan into steps. A step is plain data, run by `steps.py`:

    ["shift", [[seat, from, to, count], ...]]   caballeros of one or more colours change place
    ["points", area, [[seat, points, reason], ...]]   one rank of one area's scoring
    ["king", region]  ["mobile", scoreboard index, area]  ["grande", seat, region]
    ["retake", seat, power card]  ["keep_veto", seat]

Steps are the units a veto may cut before. Cards that others carry out (secret disks, the King's
return) first collect those players' choices; the steps are fixed once every choice is in.
"""

from .board import AREAS, CASTILLO_INDEX, MOBILE_SCOREBOARDS, NEIGHBOUR_INDICES, REGION_NAMES, REGIONS
from .errors import IllegalMove
from .operations import (
    area_awards,
    area_values,
    clockwise_from_left,
    count_at,
    destinations,
    movable_regions,
    parse_area,
    parse_area_counts,
    parse_colour,
    parse_count,
    parse_order,
    parse_region,
    plural,
)
from .state import COURT, PROVINCES


def _ids(areas):
    return [AREAS[area] for area in areas]


class CardKind:
    """One kind of action card. Subclasses say what the special action does."""

    choice = None  # "region" or "share" when other players must decide before the steps exist

    def __init__(self, card_id, stack, copies, title, text):
        self.id = card_id
        self.stack = stack
        self.copies = copies
        self.title = title
        self.text = text

    @property
    def placement(self):
        """How many caballeros the card lets its taker place from court."""
        return self.stack

    def plan(self, state, taker, move):
        """Check the move's fields against the position and return the plan as plain data."""
        return {}

    def choosers(self, state, taker, plan):
        """The seats that must decide (all at once, in secret) before the steps can be fixed."""
        return []

    def choice_options(self, state, seat, plan):
        """The regions a chooser may pick (for region choices)."""
        return []

    def check_choice(self, state, seat, plan, move):
        """Validate a chooser's move and return the choice as plain data."""
        if move.get("type") != "choose_region":
            raise IllegalMove("Choose a region for this action.")
        region = parse_region(move.get("region"))
        if region not in self.choice_options(state, seat, plan):
            raise IllegalMove(f"{REGION_NAMES[AREAS[region]]} is not a choice you can make here.")
        return region

    def steps(self, state, taker, plan, choices):
        raise NotImplementedError

    def random_plan(self, state, taker, rng):
        """A legal special move for this card (its fields), or None if it cannot do anything."""
        return {}

    def special_form(self, state, taker):
        """What the taker's form needs: its kind and the choices the rules allow, as plain data
        (area ids, colours). The engine still checks the move itself."""
        return {"form": "confirm"}


# --- stack 1: intrigue -------------------------------------------------------------------------


class MoveCaballeros(CardKind):
    """Move up to N caballeros from regions to regions or the Castillo, with colour limits."""

    def __init__(self, *args, own=0, foreign=0, total=0, one_source=False):
        super().__init__(*args)
        self.own = own
        self.foreign = foreign
        self.total = total or own + foreign
        self.one_source = one_source

    def plan(self, state, taker, move):
        entries = move.get("plan")
        if not isinstance(entries, list):
            raise IllegalMove("List the caballeros to move under 'plan'.")
        moves = []
        for entry in entries:
            if not isinstance(entry, dict):
                raise IllegalMove("Each entry of the plan must say from, to, colour and count.")
            seat = parse_colour(state, entry.get("colour"))
            source = parse_area(entry.get("from"))
            target = parse_area(entry.get("to"))
            count = parse_count(entry.get("count", 1), minimum=1)
            if len(moves) + count > self.total:
                raise IllegalMove(f"This card moves at most {plural(self.total)}.")
            moves.extend([[seat, source, target]] * count)
        self._check_moves(state, taker, moves)
        return {"moves": moves}

    def _check_moves(self, state, taker, moves):
        if len(moves) > self.total:
            raise IllegalMove(f"This card moves at most {plural(self.total)}.")
        own = sum(1 for seat, _s, _t in moves if seat == taker)
        foreign = len(moves) - own
        if self.own and not self.foreign and foreign:
            raise IllegalMove("This card moves only your own caballeros.")
        if self.foreign and not self.own and own:
            raise IllegalMove("This card moves only other players' caballeros.")
        if self.own and self.foreign:
            if own > self.own:
                raise IllegalMove(f"This card moves at most {plural(self.own)} of your own.")
            if foreign > self.foreign:
                raise IllegalMove(f"This card moves at most {plural(self.foreign)} of other players.")
        if self.one_source and len({source for _seat, source, _t in moves}) > 1:
            raise IllegalMove("All the caballeros must come from one region.")
        for _seat, source, target in moves:
            check_special_move(state, source, target)

    def steps(self, state, taker, plan, choices):
        return [["shift", [[seat, source, target, 1]]] for seat, source, target in plan["moves"]]

    def random_plan(self, state, taker, rng):
        work = [row[:] for row in state.caballeros]
        sources = movable_regions(state)
        if self.one_source:
            candidates = [r for r in sources if sum(work[r])]
            if not candidates:
                return None
            sources = [rng.choice(candidates)]
        if self.own or self.foreign:
            limit_own, limit_foreign = self.own, self.foreign
        else:
            limit_own = limit_foreign = self.total
        own = foreign = 0
        entries = []
        for _ in range(rng.randint(1, self.total)):
            options = [
                (seat, region)
                for region in sources
                for seat in range(state.num_players)
                if work[region][seat] and (own < limit_own if seat == taker else foreign < limit_foreign)
            ]
            if not options:
                break
            seat, source = rng.choice(options)
            target = rng.choice([d for d in destinations(state) if d != source])
            work[source][seat] -= 1
            work[target][seat] += 1
            if seat == taker:
                own += 1
            else:
                foreign += 1
            entries.append({"from": AREAS[source], "to": AREAS[target], "colour": state.colours[seat], "count": 1})
            if own + foreign >= self.total:
                break
        return {"plan": entries} if entries else None

    def special_form(self, state, taker):
        own = [state.colours[taker]] if self.own or not self.foreign else []
        foreign = [c for s, c in enumerate(state.colours) if s != taker] if self.foreign or not self.own else []
        return {
            "form": "plan",
            "rows": self.total,
            "sources": _ids(movable_regions(state)),
            "destinations": _ids(destinations(state)),
            "colours": [c for c in state.colours if c in own + foreign],
        }


def check_special_move(state, source, target):
    if source == CASTILLO_INDEX:
        raise IllegalMove("Nothing leaves the Castillo before the general scoring.")
    if source == state.king or target == state.king:
        raise IllegalMove("Nothing enters or leaves the King's region.")
    if source == target:
        raise IllegalMove(f"A caballero moved from {REGION_NAMES[AREAS[source]]} must go elsewhere.")


class OwnRegion(CardKind):
    """Take all own caballeros from one region and redistribute them freely."""

    def plan(self, state, taker, move):
        region = parse_region(move.get("region"))
        if region == state.king:
            raise IllegalMove("Nothing enters or leaves the King's region.")
        present = state.caballeros[region][taker]
        if not present:
            raise IllegalMove(f"You have no caballero in {REGION_NAMES[AREAS[region]]}.")
        spread = parse_area_counts(move.get("to"), "redistribution")
        if sum(spread.values()) != present:
            raise IllegalMove(
                f"All {plural(present)} you have in {REGION_NAMES[AREAS[region]]} must be "
                f"redistributed, not {sum(spread.values())}."
            )
        for target in spread:
            if target == state.king:
                raise IllegalMove("Nothing enters or leaves the King's region.")
        moves = []
        for target, count in spread.items():
            if target != region:
                moves.extend([[region, target]] * count)
        return {"region": region, "moves": moves}

    def steps(self, state, taker, plan, choices):
        return [["shift", [[taker, source, target, 1]]] for source, target in plan["moves"]]

    def random_plan(self, state, taker, rng):
        regions = [r for r in movable_regions(state) if state.caballeros[r][taker]]
        if not regions:
            return None
        region = rng.choice(regions)
        spread = {}
        for _ in range(state.caballeros[region][taker]):
            target = AREAS[rng.choice(destinations(state))]
            spread[target] = spread.get(target, 0) + 1
        return {"region": AREAS[region], "to": spread}

    def special_form(self, state, taker):
        regions = [r for r in movable_regions(state) if state.caballeros[r][taker]]
        return {"form": "own_region", "regions": _ids(regions), "destinations": _ids(destinations(state))}


class CourtToRegions(CardKind):
    """Put up to N caballeros from court into any regions or the Castillo."""

    def __init__(self, *args, count=2):
        super().__init__(*args)
        self.count = count

    def plan(self, state, taker, move):
        spread = parse_area_counts(move.get("to"))
        total = sum(spread.values())
        if total > self.count:
            raise IllegalMove(f"This card puts at most {plural(self.count)} from court.")
        if total > state.court[taker]:
            raise IllegalMove(f"Your court holds only {plural(state.court[taker])}.")
        if state.king in spread:
            raise IllegalMove("Nothing enters or leaves the King's region.")
        moves = []
        for target, count in spread.items():
            moves.extend([target] * count)
        return {"moves": moves}

    def steps(self, state, taker, plan, choices):
        return [["shift", [[taker, COURT, target, 1]]] for target in plan["moves"]]

    def random_plan(self, state, taker, rng):
        count = rng.randint(0, min(self.count, state.court[taker]))
        if not count:
            return None
        spread = {}
        for _ in range(count):
            target = AREAS[rng.choice(destinations(state))]
            spread[target] = spread.get(target, 0) + 1
        return {"to": spread}

    def special_form(self, state, taker):
        return {"form": "court_spread", "count": self.count, "destinations": _ids(destinations(state))}


class EitherOf(CardKind):
    """The player picks one of two special actions."""

    def __init__(self, *args, options):
        super().__init__(*args)
        self.options = options

    def _option(self, move):
        name = move.get("option")
        if not isinstance(name, str) or name not in self.options:
            raise IllegalMove(f"Choose one option of this card: {' or '.join(self.options)}.")
        return name

    def plan(self, state, taker, move):
        name = self._option(move)
        return {"option": name, "plan": self.options[name].plan(state, taker, move)}

    def steps(self, state, taker, plan, choices):
        return self.options[plan["option"]].steps(state, taker, plan["plan"], choices)

    def random_plan(self, state, taker, rng):
        names = list(self.options)
        rng.shuffle(names)
        for name in names:
            fields = self.options[name].random_plan(state, taker, rng)
            if fields is not None:
                return {"option": name, **fields}
        return None

    def special_form(self, state, taker):
        form = {"form": "either", "options": list(self.options)}
        for option in self.options.values():
            form.update({k: v for k, v in option.special_form(state, taker).items() if k != "form"})
        return form


# --- stack 2 -----------------------------------------------------------------------------------


class KeepVeto(CardKind):
    def steps(self, state, taker, plan, choices):
        return [["keep_veto", taker]]

    def special_form(self, state, taker):
        return {"form": "veto"}


class Decay(CardKind):
    """Every other player sends caballeros from court to the provinces, in the taker's order."""

    def __init__(self, *args, count=None):
        super().__init__(*args)
        self.count = count  # None: the whole court

    def plan(self, state, taker, move):
        order = parse_order(state, move.get("order"), clockwise_from_left(state, taker))
        return {"order": order}

    def steps(self, state, taker, plan, choices):
        steps = []
        for seat in plan["order"]:
            count = state.court[seat] if self.count is None else min(self.count, state.court[seat])
            if count:
                steps.append(["shift", [[seat, COURT, PROVINCES, count]]])
        return steps

    def random_plan(self, state, taker, rng):
        order = clockwise_from_left(state, taker)
        rng.shuffle(order)
        return {"order": [state.colours[seat] for seat in order]}

    def special_form(self, state, taker):
        return {"form": "order", "order": [state.colours[s] for s in clockwise_from_left(state, taker)]}


class KingReturns(CardKind):
    """Every other player, clockwise from the taker's left, sends 3 own caballeros to the provinces
    from regions and/or court, as many as they can if fewer."""

    choice = "share"
    count = 3

    def _sources(self, state, seat):
        return [COURT] + movable_regions(state)

    def _available(self, state, seat):
        return sum(count_at(state, seat, source) for source in self._sources(state, seat))

    def _must_choose(self, state, seat):
        holding = [s for s in self._sources(state, seat) if count_at(state, seat, s)]
        return len(holding) > 1 and self._available(state, seat) > self.count

    def choosers(self, state, taker, plan):
        return [seat for seat in clockwise_from_left(state, taker) if self._must_choose(state, seat)]

    def check_choice(self, state, seat, plan, move):
        if move.get("type") != "share":
            raise IllegalMove("Say where your caballeros come from: {'type': 'share', 'from': {...}}.")
        raw = move.get("from")
        if not isinstance(raw, dict):
            raise IllegalMove("'from' must map 'court' and regions to numbers of caballeros.")
        share = {}
        for place, count in raw.items():
            source = COURT if place == "court" else parse_area(place)
            if source == CASTILLO_INDEX:
                raise IllegalMove("Nothing leaves the Castillo before the general scoring.")
            if source == state.king:
                raise IllegalMove("Nothing enters or leaves the King's region.")
            count = parse_count(count)
            if count > count_at(state, seat, source):
                raise IllegalMove(f"You do not have {plural(count)} there.")
            if count:
                share[source] = share.get(source, 0) + count
        needed = min(self.count, self._available(state, seat))
        if sum(share.values()) != needed:
            raise IllegalMove(f"You must send exactly {plural(needed)} to the provinces.")
        return [[source, count] for source, count in sorted(share.items())]

    def _forced_share(self, state, seat):
        share = []
        for source in self._sources(state, seat):
            count = count_at(state, seat, source)
            if count:
                share.append([source, min(count, self.count)])
        return share

    def steps(self, state, taker, plan, choices):
        steps = []
        for seat in clockwise_from_left(state, taker):
            share = choices[seat] if choices[seat] is not None else self._forced_share(state, seat)
            if share:
                steps.append(["shift", [[seat, source, PROVINCES, count] for source, count in share]])
        return steps

    def share_form(self, state, seat):
        """What a sharer may send: how many in all, and at most how many from each source."""
        sources = [source for source in self._sources(state, seat) if count_at(state, seat, source)]
        return {
            "needed": min(self.count, self._available(state, seat)),
            "sources": [
                {"id": "court" if source == COURT else AREAS[source], "max": count_at(state, seat, source)}
                for source in sources
            ],
        }

    def random_share(self, state, seat, rng):
        pool = []
        for source in self._sources(state, seat):
            pool.extend([source] * count_at(state, seat, source))
        picked = rng.sample(pool, min(self.count, len(pool)))
        share = {}
        for source in picked:
            name = "court" if source == COURT else AREAS[source]
            share[name] = share.get(name, 0) + 1
        return {"type": "share", "from": share}


class OneEachToProvinces(CardKind):
    """The taker sends one caballero of every player, own included, from a region to the provinces."""

    def _owners(self, state):
        return [
            seat for seat in range(state.num_players) if any(state.caballeros[r][seat] for r in movable_regions(state))
        ]

    def plan(self, state, taker, move):
        picks = move.get("picks")
        if not isinstance(picks, list):
            raise IllegalMove("List one pick per player under 'picks': {'colour', 'region'}.")
        chosen = []
        for pick in picks:
            if not isinstance(pick, dict):
                raise IllegalMove("Each pick must name a colour and a region.")
            seat = parse_colour(state, pick.get("colour"))
            region = parse_region(pick.get("region"))
            if region == state.king:
                raise IllegalMove("Nothing enters or leaves the King's region.")
            if not state.caballeros[region][seat]:
                raise IllegalMove(
                    f"{state.colours[seat].capitalize()} has no caballero in {REGION_NAMES[AREAS[region]]}."
                )
            chosen.append([seat, region])
        owners = self._owners(state)
        if sorted(seat for seat, _ in chosen) != owners:
            names = ", ".join(state.colours[seat] for seat in owners) or "nobody"
            raise IllegalMove(f"Pick exactly one caballero of each of these players: {names}.")
        return {"picks": chosen}

    def steps(self, state, taker, plan, choices):
        return [["shift", [[seat, region, PROVINCES, 1]]] for seat, region in plan["picks"]]

    def random_plan(self, state, taker, rng):
        picks = []
        for seat in self._owners(state):
            regions = [r for r in movable_regions(state) if state.caballeros[r][seat]]
            picks.append({"colour": state.colours[seat], "region": AREAS[rng.choice(regions)]})
        rng.shuffle(picks)
        return {"picks": picks} if picks else None

    def special_form(self, state, taker):
        picks = []
        for seat in [taker] + [s for s in self._owners(state) if s != taker]:
            regions = [r for r in movable_regions(state) if state.caballeros[r][seat]]
            if regions:
                picks.append({"colour": state.colours[seat], "regions": _ids(regions)})
        return {"form": "picks", "picks": picks}


class SecretToProvinces(CardKind):
    """Every other player secretly picks a region of theirs and sends caballeros to the provinces."""

    choice = "region"

    def __init__(self, *args, count=None):
        super().__init__(*args)
        self.count = count  # 2: two from a region holding two (one if none does); None: all

    def plan(self, state, taker, move):
        order = parse_order(state, move.get("order"), clockwise_from_left(state, taker))
        return {"order": order}

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

    random_plan = Decay.random_plan
    special_form = Decay.special_form


class ScoreChosenArea(CardKind):
    """Score one region of the taker's choice; the King's region and the Castillo may be chosen."""

    def plan(self, state, taker, move):
        return {"area": parse_area(move.get("region"))}

    def steps(self, state, taker, plan, choices):
        return score_steps(state, [plan["area"]])

    def random_plan(self, state, taker, rng):
        return {"region": rng.choice(AREAS)}

    def special_form(self, state, taker):
        return {"form": "score_region", "areas": list(AREAS)}


def score_steps(state, areas, first_only=False):
    return [
        ["points", area, awards] for area in sorted(areas) for awards in area_awards(state, area, first_only=first_only)
    ]


# --- stack 3: scorings -----------------------------------------------------------------------


class ScoreByFirstValue(CardKind):
    """Score every region whose current 1st value is one of the card's; never the Castillo."""

    def __init__(self, *args, firsts):
        super().__init__(*args)
        self.firsts = firsts

    def steps(self, state, taker, plan, choices):
        areas = [r for r in range(len(REGIONS)) if area_values(state, r)[0] in self.firsts]
        return score_steps(state, areas)


class ScoreCastillo(CardKind):
    def steps(self, state, taker, plan, choices):
        return score_steps(state, [CASTILLO_INDEX])


class ScoreFirstOnly(CardKind):
    def steps(self, state, taker, plan, choices):
        return score_steps(state, range(len(REGIONS)), first_only=True)


class ScoreByTotal(CardKind):
    """Score the region(s) with the most (or fewest) caballeros; empty regions never count."""

    def __init__(self, *args, most):
        super().__init__(*args)
        self.most = most

    def steps(self, state, taker, plan, choices):
        totals = {r: sum(state.caballeros[r]) for r in range(len(REGIONS))}
        totals = {r: total for r, total in totals.items() if total}
        if not totals:
            return []
        target = max(totals.values()) if self.most else min(totals.values())
        return score_steps(state, [r for r, total in totals.items() if total == target])


# --- stack 4 -----------------------------------------------------------------------------------


class MobileScoreboard(CardKind):
    def plan(self, state, taker, move):
        board = move.get("scoreboard")
        if board not in MOBILE_SCOREBOARDS:
            raise IllegalMove(f"Choose a mobile scoreboard: {' or '.join(MOBILE_SCOREBOARDS)}.")
        index = MOBILE_SCOREBOARDS.index(board)
        target = parse_area(move.get("to"))
        current = state.mobile[index]
        if current == state.king:
            raise IllegalMove("A scoreboard in the King's region cannot leave it.")
        if target == state.king:
            raise IllegalMove("A scoreboard cannot go into the King's region.")
        if target == current:
            raise IllegalMove(f"The {board} scoreboard already lies there.")
        if target == state.mobile[1 - index]:
            raise IllegalMove("The two mobile scoreboards cannot lie on the same place.")
        return {"scoreboard": index, "area": target}

    def steps(self, state, taker, plan, choices):
        return [["mobile", plan["scoreboard"], plan["area"]]]

    def random_plan(self, state, taker, rng):
        options = []
        for index, board in enumerate(MOBILE_SCOREBOARDS):
            if state.mobile[index] == state.king:
                continue
            for area in range(len(AREAS)):
                if area not in (state.king, state.mobile[index], state.mobile[1 - index]):
                    options.append({"scoreboard": board, "to": AREAS[area]})
        return rng.choice(options) if options else None

    def special_form(self, state, taker):
        boards = [
            {"id": board, "where": AREAS[where] if where is not None else None}
            for board, where in zip(MOBILE_SCOREBOARDS, state.mobile)
            if where != state.king
        ]
        return {"form": "mobile", "scoreboards": boards, "targets": _ids(destinations(state))}


class MoveKing(CardKind):
    def __init__(self, *args, neighbours_only):
        super().__init__(*args)
        self.neighbours_only = neighbours_only

    def _targets(self, state):
        if self.neighbours_only:
            return sorted(NEIGHBOUR_INDICES[state.king])
        return [r for r in range(len(REGIONS)) if r != state.king]

    def plan(self, state, taker, move):
        region = parse_region(move.get("to"))
        if region not in self._targets(state):
            where = "a region next to the King" if self.neighbours_only else "another region"
            raise IllegalMove(f"The King can only move to {where}.")
        return {"region": region}

    def steps(self, state, taker, plan, choices):
        return [["king", plan["region"]]]

    def random_plan(self, state, taker, rng):
        return {"to": AREAS[rng.choice(self._targets(state))]}

    def special_form(self, state, taker):
        return {"form": "king", "targets": _ids(self._targets(state))}


class Eviction(CardKind):
    """The taker names a region; every other player there secretly picks where theirs all go."""

    choice = "region"

    def plan(self, state, taker, move):
        region = parse_region(move.get("region"))
        if region == state.king:
            raise IllegalMove("Nothing enters or leaves the King's region.")
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

    def random_plan(self, state, taker, rng):
        return {"region": AREAS[rng.choice(movable_regions(state))]}

    def special_form(self, state, taker):
        others = [state.colours[s] for s in clockwise_from_left(state, taker)]
        return {"form": "eviction", "regions": _ids(movable_regions(state)), "order": others}


class MoveGrande(CardKind):
    def plan(self, state, taker, move):
        region = parse_region(move.get("to"))
        if state.grandes[taker] == state.king:
            raise IllegalMove("Your Grande stands in the King's region and cannot leave it.")
        if region == state.king:
            raise IllegalMove("Your Grande cannot enter the King's region.")
        if region == state.grandes[taker]:
            raise IllegalMove("Your Grande already stands there.")
        return {"region": region}

    def steps(self, state, taker, plan, choices):
        return [["grande", taker, plan["region"]]]

    def random_plan(self, state, taker, rng):
        if state.grandes[taker] == state.king:
            return None
        options = [r for r in movable_regions(state) if r != state.grandes[taker]]
        return {"to": AREAS[rng.choice(options)]}

    def special_form(self, state, taker):
        if state.grandes[taker] == state.king:
            return {"form": "grande", "targets": []}
        return {"form": "grande", "targets": _ids(r for r in movable_regions(state) if r != state.grandes[taker])}


class RetakePowerCard(CardKind):
    def plan(self, state, taker, move):
        card = move.get("card")
        if isinstance(card, bool) or not isinstance(card, int) or card not in state.played[taker]:
            raise IllegalMove("You can take back only one of your own played power cards.")
        return {"card": card}

    def steps(self, state, taker, plan, choices):
        return [["retake", taker, plan["card"]]]

    def random_plan(self, state, taker, rng):
        return {"card": rng.choice(state.played[taker])} if state.played[taker] else None

    def special_form(self, state, taker):
        return {"form": "retake", "cards": list(state.played[taker])}


class CourtFromProvinces(CardKind):
    count = 2

    def steps(self, state, taker, plan, choices):
        count = min(self.count, state.provinces[taker])
        return [["shift", [[taker, PROVINCES, COURT, 1]]] for _ in range(count)]


class SecretUniqueScoring(CardKind):
    """Every player secretly picks a region; each region picked by exactly one player is scored."""

    choice = "region"

    def choosers(self, state, taker, plan):
        return list(range(state.num_players))

    def choice_options(self, state, seat, plan):
        return list(range(len(REGIONS)))

    def steps(self, state, taker, plan, choices):
        picks = [region for region in choices if region is not None]
        return score_steps(state, [r for r in set(picks) if picks.count(r) == 1])


def _catalogue():
    court_2 = CourtToRegions(
        "intrigue_court_2",
        1,
        1,
        "Intrigue: 2 from court",
        "Put up to 2 more caballeros from your court into any regions and/or the Castillo.",
        count=2,
    )
    own_region = OwnRegion(
        "intrigue_own_region",
        1,
        1,
        "Intrigue: own region",
        "Take all your caballeros from one region and redistribute them freely (some may go back).",
    )
    kinds = [
        own_region,
        court_2,
        EitherOf(
            "intrigue_court_2_or_own_region",
            1,
            1,
            "Intrigue: court or own region",
            "Either put up to 2 caballeros from court into any regions/Castillo, or redistribute all your caballeros "
            "of one region.",
            options={"court": court_2, "own_region": own_region},
        ),
        MoveCaballeros(
            "intrigue_5_from_region",
            1,
            2,
            "Intrigue: 5 from one region",
            "Move up to 5 caballeros of any colours from one region to other regions and/or the Castillo.",
            total=5,
            one_source=True,
        ),
        MoveCaballeros(
            "intrigue_3_foreign",
            1,
            1,
            "Intrigue: 3 foreign",
            "Move up to 3 caballeros of other players to other regions and/or the Castillo.",
            foreign=3,
        ),
        MoveCaballeros(
            "intrigue_3_any",
            1,
            1,
            "Intrigue: 3 of any colour",
            "Move up to 3 caballeros of any colours to other regions and/or the Castillo.",
            total=3,
        ),
        MoveCaballeros(
            "intrigue_2_own_2_foreign",
            1,
            2,
            "Intrigue: 2 own, 2 foreign",
            "Move up to 2 of your caballeros and up to 2 of other players to other regions and/or the Castillo.",
            own=2,
            foreign=2,
        ),
        MoveCaballeros(
            "intrigue_4_own",
            1,
            1,
            "Intrigue: 4 own",
            "Move up to 4 of your caballeros to other regions and/or the Castillo.",
            own=4,
        ),
        MoveCaballeros(
            "intrigue_4_any",
            1,
            1,
            "Intrigue: 4 of any colour",
            "Move up to 4 caballeros of any colours to other regions and/or the Castillo.",
            total=4,
        ),
        KeepVeto(
            "veto",
            2,
            2,
            "Veto",
            "Keep this card: once, in this round or the next, stop all or the rest of another special action (a Veto "
            "included).",
        ),
        Decay(
            "decay_all",
            2,
            1,
            "Decay: whole court",
            "Every other player sends their whole court to the provinces.",
            count=None,
        ),
        Decay(
            "decay_3",
            2,
            1,
            "Decay: 3 from court",
            "Every other player sends 3 caballeros from court to the provinces (all, if fewer).",
            count=3,
        ),
        KingReturns(
            "king_returns",
            2,
            1,
            "The King returns",
            "Every other player, clockwise from your left, sends 3 own caballeros from regions and/or court to the "
            "provinces.",
        ),
        OneEachToProvinces(
            "one_each_to_provinces",
            2,
            1,
            "One of each to the provinces",
            "Send 1 caballero of every player, your own included, from any region to the provinces.",
        ),
        SecretToProvinces(
            "secret_two_to_provinces",
            2,
            1,
            "Secret disk: 2 to the provinces",
            "Every other player secretly picks a region holding 2 of their caballeros (1 if none holds 2) and sends "
            "them to the provinces.",
            count=2,
        ),
        SecretToProvinces(
            "secret_all_to_provinces",
            2,
            1,
            "Secret disk: all to the provinces",
            "Every other player secretly picks a region of theirs and sends all their caballeros there to the "
            "provinces.",
            count=None,
        ),
        ScoreChosenArea(
            "score_one_region",
            2,
            3,
            "Scoring: one region",
            "Score one region of your choice; the King's region and the Castillo may be chosen.",
        ),
        ScoreByFirstValue(
            "score_fours",
            3,
            2,
            "Scoring: the 4s",
            "Score every region whose 1st value is 4 (not the Castillo).",
            firsts=(4,),
        ),
        ScoreByFirstValue(
            "score_fives",
            3,
            2,
            "Scoring: the 5s",
            "Score every region whose 1st value is 5 (not the Castillo).",
            firsts=(5,),
        ),
        ScoreByFirstValue(
            "score_six_sevens",
            3,
            1,
            "Scoring: the 6s and 7s",
            "Score every region whose 1st value is 6 or 7 (not the Castillo).",
            firsts=(6, 7),
        ),
        ScoreCastillo(
            "score_castillo", 3, 2, "Scoring: the Castillo", "Score the Castillo; the caballeros stay inside."
        ),
        ScoreFirstOnly(
            "score_first_only",
            3,
            1,
            "Scoring: leaders only",
            "Score all nine regions, but only the sole leader of each scores its 1st value (with bonuses).",
        ),
        ScoreByTotal(
            "score_most",
            3,
            1,
            "Scoring: the most caballeros",
            "Score the region(s) with the most caballeros in total.",
            most=True,
        ),
        ScoreByTotal(
            "score_least",
            3,
            1,
            "Scoring: the fewest caballeros",
            "Score the region(s) with the fewest caballeros in total (regions with none never count).",
            most=False,
        ),
        ScoreChosenArea(
            "score_any_region",
            3,
            1,
            "Scoring: any region",
            "Score one region of your choice; the King's region and the Castillo may be chosen.",
        ),
        MobileScoreboard(
            "mobile_scoreboard",
            4,
            3,
            "Mobile scoreboard",
            "Put a mobile scoreboard onto a region or the Castillo, or move one already on the board (never into or "
            "out of the King's region).",
        ),
        MoveKing(
            "royal_adviser", 4, 1, "Royal adviser", "Move the King to a neighbouring region.", neighbours_only=True
        ),
        Eviction(
            "eviction",
            4,
            1,
            "Eviction",
            "Name a region: every other player there secretly picks another region and all their caballeros go there "
            "(the King's region or the same region sends them to court).",
        ),
        MoveGrande(
            "move_grande", 4, 2, "Grande", "Move your Grande to any region but the King's; it becomes your home region."
        ),
        RetakePowerCard(
            "retake_power_card", 4, 2, "Power card back", "Take one of your played power cards back into your hand."
        ),
        CourtFromProvinces(
            "court_2",
            4,
            1,
            "Court: 2 from the provinces",
            "Move 2 of your caballeros from the provinces to your court.",
        ),
        SecretUniqueScoring(
            "secret_unique_scoring",
            4,
            1,
            "Secret disk: unique scoring",
            "Every player secretly picks a region; each region picked by exactly one player is scored.",
        ),
        MoveKing("king_card", 5, 1, "The King", "Move the King to any region.", neighbours_only=False),
    ]
    return {kind.id: kind for kind in kinds}


CARDS = _catalogue()
STACKS = (1, 2, 3, 4)


def stack_cards(stack, veto=True):
    """The card ids of one stack, each repeated by its number of copies."""
    ids = []
    for kind in CARDS.values():
        if kind.stack == stack and (veto or kind.id != "veto"):
            ids.extend([kind.id] * kind.copies)
    return ids
