"""What a seat may do now: the small choices listed, and a random legal move of any kind."""

import itertools

from .board import AREAS, REGIONS
from .cards import CARDS
from .operations import movable_regions, placement_areas
from .rounds import court_allowance, to_act


def legal_moves(state, seat):
    """Every legal move of the seat when the choice is small. In the action phase, placement and
    the special action are open-ended: only the empty placement and `decline` are listed."""
    if seat not in to_act(state):
        return []
    phase = state.phase
    if phase == "bid":
        return [{"type": "bid", "card": card} for card in state.hands[seat] if card not in state.bids]
    if phase == "court":
        return _court_moves(state, seat)
    if phase == "card":
        return [{"type": "take_card", "card": card} for card in dict.fromkeys(state.display)]
    if phase == "action":
        moves = []
        if not state.placed:
            moves.append({"type": "place", "to": {}})
        if not state.special_done:
            moves.append({"type": "decline"})
        return moves
    if phase == "castillo":
        return [{"type": "choose_region", "region": region} for region in REGIONS]
    if phase == "special":
        return _special_moves(state, seat)
    return []


def _court_moves(state, seat):
    allowance = court_allowance(state, seat)
    provinces = state.provinces[seat]
    moves = [{"type": "court", "count": count} for count in range(min(allowance, provinces) + 1)]
    if allowance > provinces:
        pool = [r for r in movable_regions(state) for _ in range(state.caballeros[r][seat])]
        for extra in range(1, allowance - provinces + 1):
            for combo in sorted(set(itertools.combinations(pool, extra))):
                taken = {}
                for region in combo:
                    taken[REGIONS[region]] = taken.get(REGIONS[region], 0) + 1
                moves.append({"type": "court", "count": provinces + extra, "from_regions": taken})
    return moves


def _special_moves(state, seat):
    action = state.action
    stage = action["stage"]
    if stage == "veto":
        return [{"type": "allow"}] + [{"type": "veto", "cut": cut} for cut in range(len(action["steps"]))]
    if stage == "counter_veto":
        return [{"type": "allow"}, {"type": "veto"}]
    kind = CARDS[action["card"]]
    if kind.choice == "share":
        form = kind.share_form(state, seat)
        pool = [source["id"] for source in form["sources"] for _ in range(min(form["needed"], source["max"]))]
        moves = []
        for combo in sorted(set(itertools.combinations(pool, form["needed"]))):
            share = {}
            for source in combo:
                share[source] = share.get(source, 0) + 1
            moves.append({"type": "share", "from": share})
        return moves
    return [
        {"type": "choose_region", "region": AREAS[region]}
        for region in kind.choice_options(state, seat, action["plan"])
    ]


def random_move(state, seat, rng):
    """A legal move of the seat, any kind, chosen at random (fuzzing, benchmarks, timeouts)."""
    phase = state.phase
    if phase == "action":
        return _random_action(state, seat, rng)
    if phase == "court":
        allowance = court_allowance(state, seat)
        provinces = state.provinces[seat]
        if allowance <= provinces or rng.random() < 0.5:
            return {"type": "court", "count": rng.randint(0, min(allowance, provinces))}
        moves = _court_moves(state, seat)
        return rng.choice(moves)
    if phase == "special" and state.action["stage"] == "veto":
        if rng.random() < 0.7:
            return {"type": "allow"}
        return {"type": "veto", "cut": rng.randrange(len(state.action["steps"]))}
    if phase == "special" and CARDS[state.action["card"]].choice == "share":
        return CARDS[state.action["card"]].random_share(state, seat, rng)
    moves = legal_moves(state, seat)
    return rng.choice(moves)


def _random_action(state, seat, rng):
    card = CARDS[state.taken[seat]]
    if not state.special_done and (state.placed or rng.random() < 0.5):
        fields = card.random_plan(state, seat, rng) if rng.random() < 0.9 else None
        if fields is None:
            return {"type": "decline"}
        return {"type": "special", **fields}
    limit = min(card.placement, state.court[seat])
    areas = placement_areas(state)
    spread = {}
    for _ in range(rng.randint(0, limit)):
        area = AREAS[rng.choice(areas)]
        spread[area] = spread.get(area, 0) + 1
    return {"type": "place", "to": spread}


__all__ = ["legal_moves", "random_move"]
