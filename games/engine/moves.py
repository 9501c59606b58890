"""What a seat may do now: the small choices, listed."""

import itertools

from .board import AREAS, REGIONS
from .cards import CARDS
from .operations import movable_regions
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
        return court_moves(state, seat)
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


def court_moves(state, seat):
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
        cuts = len(action["steps"]) if action["window"] == "plan" else 1
        return [{"type": "allow"}] + [{"type": "veto", "cut": cut} for cut in range(cuts)]
    if stage == "counter_veto":
        return [{"type": "allow"}, {"type": "veto"}]
    kind = CARDS[action["card"]]
    if stage == "share":
        return share_moves(kind.share_options(state, seat))
    return [
        {"type": "choose_region", "region": AREAS[region]}
        for region in kind.choice_options(state, seat, action["plan"])
    ]


def share_moves(options):
    pool = [source["id"] for source in options["sources"] for _ in range(min(options["needed"], source["max"]))]
    moves = []
    for combo in sorted(set(itertools.combinations(pool, options["needed"]))):
        share = {}
        for source in combo:
            share[source] = share.get(source, 0) + 1
        moves.append({"type": "share", "from": share})
    return moves


__all__ = ["legal_moves"]
