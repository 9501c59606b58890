"""Random play: a legal move of any kind, for fuzz tests, benchmarks and the site's timeouts.

One random plan per kind of card lives here, beside the rules in cards/, so the rules stay free of
play. A computer player would sit beside this module.
"""

from .board import AREAS, MOBILE_SCOREBOARDS, REGIONS
from .cards import CARDS
from .cards.intrigue import CourtToRegions, EitherOf, Eviction, MoveCaballeros, OwnRegion
from .cards.pieces import MobileScoreboard, MoveGrande, MoveKing, RetakePowerCard
from .cards.provinces import Decay, OneEachToProvinces, SecretToProvinces
from .cards.scorings import ScoreChosenArea
from .moves import court_moves, legal_moves
from .operations import clockwise_from_left, destinations, movable_regions, placement_areas
from .rounds import bidder, court_allowance
from .state import COURT


def random_move(state, seat, rng):
    """A legal move of the seat, any kind, chosen at random."""
    phase = state.phase
    if phase == "action":
        return _random_action(state, seat, rng)
    if phase == "bid" and seat == bidder(state):
        bids = state.bids
        return {"type": "bid", "card": rng.choice([card for card in state.hands[seat] if card not in bids])}
    if phase == "card" and seat == state.current_player:
        return {"type": "take_card", "card": rng.choice(list(dict.fromkeys(state.display)))}
    if phase == "castillo" and seat in state.castillo_choices["awaiting"]:
        return {"type": "choose_region", "region": rng.choice(REGIONS)}
    if phase == "court":
        allowance = court_allowance(state, seat)
        provinces = state.provinces[seat]
        if allowance <= provinces or rng.random() < 0.5:
            return {"type": "court", "count": rng.randint(0, min(allowance, provinces))}
        return rng.choice(court_moves(state, seat))
    if phase == "special":
        action = state.action
        if action["stage"] == "veto":
            if rng.random() < 0.7:
                return {"type": "allow"}
            cuts = len(action["steps"]) if action["window"] == "plan" else 1
            return {"type": "veto", "cut": rng.randrange(cuts)}
        if action["stage"] == "share":
            return random_share(state, seat, rng)
    return rng.choice(legal_moves(state, seat))


def random_share(state, seat, rng):
    """A King's-return share: 3 caballeros (or all, if fewer) from random sources."""
    kind = CARDS[state.action["card"]]
    pool = []
    for source, count in kind.holdings(state, seat):
        name = "court" if source == COURT else AREAS[source]
        pool.extend([name] * count)
    share = {}
    for name in rng.sample(pool, kind.needed(state, seat)):
        share[name] = share.get(name, 0) + 1
    return {"type": "share", "from": share}


def _random_action(state, seat, rng):
    card = CARDS[state.taken[seat]]
    if not state.special_done and (state.placed or rng.random() < 0.5):
        fields = random_special(state, seat, card, rng) if rng.random() < 0.9 else None
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


def random_special(state, taker, card, rng):
    """The fields of a legal special move for the card, or None if it cannot do anything."""
    for kind, plan in _PLANS:
        if isinstance(card, kind):
            return plan(state, taker, card, rng)
    return {}


def _spread(state, count, rng):
    spread = {}
    for _ in range(count):
        target = AREAS[rng.choice(destinations(state))]
        spread[target] = spread.get(target, 0) + 1
    return spread


def _move_caballeros(state, taker, card, rng):
    """One caballero at a time: a random (colour, region) among those the card may still move,
    then a random destination."""
    limits = card.limits(state, taker)
    work = list(map(list.copy, state.caballeros))
    sources = movable_regions(state)
    if card.one_source:
        candidates = [r for r in sources if sum(work[r])]
        if not candidates:
            return None
        sources = [rng.choice(candidates)]
    seats = range(state.num_players)
    sides = ["own" if seat == taker else "foreign" for seat in seats]
    done = {"own": 0, "foreign": 0}
    wanted = {side: rng.randint(least, most) for side, (least, most) in limits.items()}
    targets = destinations(state)
    entries = []
    while len(entries) < card.total:
        open_seats = [seat for seat in seats if done[sides[seat]] < wanted[sides[seat]]]
        options = [(seat, region) for region in sources for row in (work[region],) for seat in open_seats if row[seat]]
        if not options:
            break
        seat, source = rng.choice(options)
        target = rng.choice([area for area in targets if area != source])
        work[source][seat] -= 1
        work[target][seat] += 1
        done[sides[seat]] += 1
        entries.append({"from": AREAS[source], "to": AREAS[target], "colour": state.colours[seat], "count": 1})
    if any(done[side] < least for side, (least, _most) in limits.items()):
        # The caballeros moved first went where later ones were wanted from; an empty plan is legal.
        return {"plan": []}
    return {"plan": entries} if entries else None


def _own_region(state, taker, card, rng):
    regions = [r for r in movable_regions(state) if state.caballeros[r][taker]]
    if not regions:
        return None
    region = rng.choice(regions)
    return {"region": AREAS[region], "to": _spread(state, state.caballeros[region][taker], rng)}


def _court_to_regions(state, taker, card, rng):
    count = card.needed(state, taker)
    return {"to": _spread(state, count, rng)} if count else None


def _either(state, taker, card, rng):
    names = list(card.choices_of)
    rng.shuffle(names)
    for name in names:
        fields = random_special(state, taker, card.choices_of[name], rng)
        if fields is not None:
            return {"option": name, **fields}
    return None


def _order(state, taker, card, rng):
    order = clockwise_from_left(state, taker)
    rng.shuffle(order)
    return {"order": [state.colours[seat] for seat in order]}


def _one_each(state, taker, card, rng):
    picks = []
    for seat in card.owners(state):
        regions = [r for r in movable_regions(state) if state.caballeros[r][seat]]
        picks.append({"colour": state.colours[seat], "region": AREAS[rng.choice(regions)]})
    rng.shuffle(picks)
    return {"picks": picks} if picks else None


def _score_area(state, taker, card, rng):
    return {"region": rng.choice(AREAS)}


def _mobile(state, taker, card, rng):
    options = [
        {"scoreboard": MOBILE_SCOREBOARDS[index], "to": AREAS[area]}
        for index in card.movable(state)
        for area in card.targets(state, index)
    ]
    return rng.choice(options) if options else None


def _king(state, taker, card, rng):
    return {"to": AREAS[rng.choice(card.targets(state))]}


def _eviction(state, taker, card, rng):
    return {"region": AREAS[rng.choice(movable_regions(state))]}


def _grande(state, taker, card, rng):
    targets = card.targets(state, taker)
    return {"to": AREAS[rng.choice(targets)]} if targets else None


def _retake(state, taker, card, rng):
    return {"card": rng.choice(state.played[taker])} if state.played[taker] else None


_PLANS = (
    (MoveCaballeros, _move_caballeros),
    (OwnRegion, _own_region),
    (CourtToRegions, _court_to_regions),
    (EitherOf, _either),
    (Decay, _order),
    (SecretToProvinces, _order),
    (OneEachToProvinces, _one_each),
    (ScoreChosenArea, _score_area),
    (MobileScoreboard, _mobile),
    (MoveKing, _king),
    (Eviction, _eviction),
    (MoveGrande, _grande),
    (RetakePowerCard, _retake),
)
