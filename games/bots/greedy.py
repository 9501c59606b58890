"""The greedy player: one move looked ahead, judged by the evaluation (evaluate.py).

It works on one position drawn consistently with its view (sampling.py). For each decision it
tries the candidate moves on that position, lets whatever the move leaves to others happen by
default (veto questions allowed, secret disks drawn at random, shares sent the way that costs
their sender least), and keeps the move whose position evaluates best. A turn is judged whole:
the card it takes is worth the best placement and special action it allows, in either order.

Placements and special plans are open-ended, so they are built a caballero at a time, each time
the one that helps most (`_build`). Bids are judged by the turn they are likely to buy: the power
card's caballeros to court, and the chance of choosing early among the cards on offer.
"""

import random

from games.engine import IllegalMove, apply_move, legal_moves, to_act
from games.engine.board import AREA_INDEX, AREAS, POWER_CARD_CABALLEROS
from games.engine.cards import CARDS
from games.engine.cards.intrigue import CourtToRegions, EitherOf, Eviction, MoveCaballeros, OwnRegion
from games.engine.cards.pieces import MobileScoreboard, MoveGrande, MoveKing, RetakePowerCard
from games.engine.cards.provinces import OneEachToProvinces
from games.engine.cards.scorings import ScoreChosenArea
from games.engine.moves import court_moves
from games.engine.operations import destinations, movable_regions, placement_areas

from .evaluate import Evaluation, bids_left, court_value, evaluate, hand_value, margin, margin_weights

DECLINE = {"type": "decline"}
ALLOW = {"type": "allow"}
MAX_COURT_OPTIONS = 24  # court moves that take caballeros back from regions can be many
CHOICE_DRAWS = 3  # others' secret disks drawn per option of a secret choice
EXACT_MOVES = 6  # moves of a plan being built valued exactly, of those ranked best by estimate
FULL_COURT = 7  # caballeros in court enough for any turn: 5 to place, 2 for an intrigue card


def greedy_move(state, seat, rng):
    """The greedy player's move for `seat` on a position it may see whole (a sampled one)."""
    phase = state.phase
    if phase == "bid":
        return _bid(state, seat)
    if phase == "court":
        return best_of(state, seat, _court_options(state, seat, rng), rng)[1]
    if phase == "card":
        return _take_card(state, seat, rng)
    if phase == "action":
        return plan_turn(state, seat, rng)[1]
    if phase == "castillo":
        return _secret_choice(state, seat, rng)
    stage = state.action["stage"]
    if stage == "choices":
        return _secret_choice(state, seat, rng)
    if stage == "share":
        return cheapest_share(state, seat)
    return best_of(state, seat, legal_moves(state, seat), rng)[1]


# --- trying moves ---------------------------------------------------------------------------------


def settle(state, rng):
    """Let a special action under way run to its end with everybody's default answers."""
    for _ in range(100):
        if state.phase != "special":
            return state
        for seat in to_act(state):
            if state.phase != "special" or seat not in to_act(state):
                break
            state = apply_move(state, seat, default_answer(state, seat, rng))
    return state


def default_answer(state, seat, rng):
    """What a player is taken to answer while a move is being tried: allow a veto question, send
    the share that costs him least, set a secret disk at random."""
    stage = state.action["stage"]
    if stage in ("veto", "counter_veto"):
        return ALLOW
    if stage == "share":
        return cheapest_share(state, seat)
    return rng.choice(legal_moves(state, seat))


def outcome(state, seat, move, rng):
    """The position after the move and the default answers it calls for, or None if illegal."""
    try:
        return settle(apply_move(state, seat, move), rng)
    except IllegalMove:
        return None


def best_of(state, seat, moves, rng):
    """(value, move, position after it) of the best of the moves; the first on equal values."""
    return ranked(state, seat, moves, rng)[0]


def ranked(state, seat, moves, rng):
    """(value, move, position after it) of each legal move, best first (stable on equal values)."""
    tried = []
    for move in moves:
        after = outcome(state, seat, move, rng)
        if after is not None:
            tried.append((evaluate(after, seat), move, after))
    tried.sort(key=lambda entry: -entry[0])
    return tried


# --- the turn -------------------------------------------------------------------------------------


def _court_options(state, seat, rng):
    moves = court_moves(state, seat)
    if len(moves) > MAX_COURT_OPTIONS:
        plain = [move for move in moves if "from_regions" not in move]
        others = [move for move in moves if "from_regions" in move]
        moves = plain + rng.sample(others, MAX_COURT_OPTIONS - len(plain))
    return moves


def _take_card(state, seat, rng):
    return card_scores(state, seat, rng)[0][1]


def card_scores(state, seat, rng):
    """(value, move) of each card on offer, best first: a card is worth the best turn it allows."""
    scored = [(plan_turn(apply_move(state, seat, move), seat, rng)[0], move) for move in legal_moves(state, seat)]
    scored.sort(key=lambda entry: -entry[0])
    return scored


def plan_turn(state, seat, rng):
    """(value, first move) of the best way to finish the turn in the action phase: placement and
    special action in the better order."""
    return plan_options(state, seat, rng, specials=1)[0]


def plan_options(state, seat, rng, specials=3):
    """Ways to finish the turn, best first, as (value, first move): the best placement first, or
    one of the `specials` best special actions (declining included) first, each followed by the
    best of the rest of the turn."""
    options = []
    if not state.placed:
        place = best_placement(state, seat)
        after = apply_move(state, seat, place)
        if not state.special_done:
            value = ranked_specials(after, seat, rng)[0][0]
        else:
            value = evaluate(after, seat)
        options.append((value, place))
    if not state.special_done:
        for value, special, after in ranked_specials(state, seat, rng)[:specials]:
            if not state.placed and after.phase == "action" and after.current_player == seat:
                value = evaluate(apply_move(after, seat, best_placement(after, seat)), seat)
            options.append((value, special))
    options.sort(key=lambda option: -option[0])
    return options


def best_placement(state, seat):
    """The placement from court built a caballero at a time, each where it helps most."""
    limit = min(CARDS[state.taken[seat]].placement, state.court[seat])
    evaluation = Evaluation(state, seat)
    left = evaluation.horizon.rounds_left
    court = state.court[seat]
    work = {area: list(state.caballeros[area]) for area in placement_areas(state)}
    spread = {}
    current = evaluation.utility()
    for _ in range(limit):
        lost = court_value(court - 1, left) - court_value(court, left)
        best = None
        for area, counts in work.items():
            counts[seat] += 1
            value = evaluation.with_areas({area: counts}, seat, lost)
            counts[seat] -= 1
            if best is None or value > best[0]:
                best = (value, area)
        if best[0] <= current:
            break
        current, area = best
        work[area][seat] += 1
        court -= 1
        evaluation.commit({area: work[area]}, seat, lost)
        spread[AREAS[area]] = spread.get(AREAS[area], 0) + 1
    return {"type": "place", "to": spread}


def ranked_specials(state, seat, rng):
    """(value, move, position after) of the candidate special actions, declining included, best first."""
    return ranked(state, seat, special_candidates(state, seat, rng) + [DECLINE], rng)


# --- special actions ------------------------------------------------------------------------------


def special_candidates(state, seat, rng):
    """A few good `special` moves for the card the seat has taken (not an exhaustive list)."""
    card = CARDS[state.taken[seat]]
    return [{"type": "special", **fields} for fields in _card_candidates(state, seat, card)]


def _card_candidates(state, seat, card):
    if isinstance(card, MoveCaballeros):
        return _move_caballeros(state, seat, card)
    if isinstance(card, OwnRegion):
        return _own_region(state, seat)
    if isinstance(card, CourtToRegions):
        return _court_to_regions(state, seat, card)
    if isinstance(card, EitherOf):
        return [
            {"option": name, **fields}
            for name, kind in card.choices_of.items()
            for fields in _card_candidates(state, seat, kind)
        ]
    if isinstance(card, OneEachToProvinces):
        return _one_each(state, seat, card)
    if isinstance(card, ScoreChosenArea):
        return [{"region": area} for area in AREAS]
    if isinstance(card, MobileScoreboard):
        return [
            {"scoreboard": board["id"], "to": target}
            for board in card.options(state, seat)["scoreboards"]
            for target in board["targets"]
        ]
    if isinstance(card, MoveKing):
        return [{"to": AREAS[region]} for region in card.targets(state)]
    if isinstance(card, Eviction):
        return [{"region": AREAS[region]} for region in movable_regions(state) if _others_in(state, seat, region)]
    if isinstance(card, MoveGrande):
        return [{"to": AREAS[region]} for region in card.targets(state, seat)]
    if isinstance(card, RetakePowerCard):
        return [{"card": played} for played in sorted(set(state.played[seat]))]
    return [{}]  # cards without fields: scorings, decay, the King's return, the Veto, court_2…


def _others_in(state, seat, region):
    return any(state.caballeros[region][s] for s in range(state.num_players) if s != seat)


def _build(state, seat, evaluation, steps, options, least=0):
    """Moves built one at a time: `options(counts, chosen)` lists (piece, source, target) for the
    next one, where piece is the seat whose caballero moves and source/target are areas (source
    None: from court). Stops when no move helps, but not before `least` moves. Returns the moves.

    Areas are valued independently, so a move changes each seat's projection by what leaving its
    source and entering its target change; each is worked out once a step. Moves are ranked by
    those changes weighted as the margin weighs them now (`margin_weights`), and the best few
    are then valued exactly."""
    work = {}
    chosen = []
    current = evaluation.utility()

    def counts(area):
        if area not in work:
            work[area] = list(state.caballeros[area])
        return work[area]

    def changed(area, piece, change):
        row = list(counts(area))
        row[piece] += change
        return row

    for index in range(steps):
        weights = margin_weights(evaluation.totals, seat)
        leaving, entering = {}, {}
        ranked_moves = []
        for piece, source, target in options(counts, chosen):
            into = entering.get((piece, target))
            if into is None:
                delta = evaluation.delta(target, changed(target, piece, 1))
                into = entering[(piece, target)] = (sum(w * d for w, d in zip(weights, delta)), delta)
            if source is None:
                ranked_moves.append((into[0], (piece, source, target), None, into[1]))
                continue
            out = leaving.get((piece, source))
            if out is None:
                delta = evaluation.delta(source, changed(source, piece, -1))
                out = leaving[(piece, source)] = (sum(w * d for w, d in zip(weights, delta)), delta)
            ranked_moves.append((out[0] + into[0], (piece, source, target), out[1], into[1]))
        if not ranked_moves:
            break
        ranked_moves.sort(key=lambda entry: -entry[0])
        best = None
        totals = evaluation.totals
        for _estimate, move, out, into in ranked_moves[:EXACT_MOVES]:
            if out is None:
                new = [t + b for t, b in zip(totals, into)]
            else:
                new = [t + a + b for t, a, b in zip(totals, out, into)]
            value = margin(new, seat)
            if best is None or value > best[0]:
                best = (value, move)
        if best[0] <= current and index >= least:
            break
        current, move = best
        piece, source, target = move
        changes = {}
        if source is not None:
            changes[source] = changed(source, piece, -1)
        work.update(changes)
        changes[target] = changed(target, piece, 1)
        work.update(changes)
        evaluation.commit(changes)
        chosen.append(move)
    return chosen


def _move_caballeros(state, seat, card):
    limits = card.limits(state, seat)
    sides = {"own": limits["own"], "foreign": limits["foreign"]}
    least = sum(low for low, _high in sides.values())
    sources = [r for r in movable_regions(state) if sum(state.caballeros[r])]
    targets = destinations(state)
    groups = [[r] for r in sources] if card.one_source else [sources]
    plans = []
    for group in groups:
        done = {"own": 0, "foreign": 0}

        def options(counts, chosen, group=group, done=done):
            for s in range(state.num_players):
                side = "own" if s == seat else "foreign"
                if done[side] >= sides[side][1]:
                    continue
                for source in group:
                    if counts(source)[s]:
                        for target in targets:
                            if target != source:
                                yield s, source, target

        evaluation = Evaluation(state, seat)
        chosen = []
        for move in _build_counting(state, seat, evaluation, card.total, options, least, done):
            chosen.append(move)
        if chosen:
            plans.append(
                {
                    "plan": [
                        {"from": AREAS[source], "to": AREAS[target], "colour": state.colours[s], "count": 1}
                        for s, source, target in chosen
                    ]
                }
            )
    return plans


def _build_counting(state, seat, evaluation, steps, options, least, done):
    """_build, keeping count of own and foreign caballeros moved in `done`."""

    def counted(counts, chosen):
        done["own"] = sum(1 for s, _source, _target in chosen if s == seat)
        done["foreign"] = len(chosen) - done["own"]
        return options(counts, chosen)

    return _build(state, seat, evaluation, steps, counted, least)


def _own_region(state, seat):
    plans = []
    targets = destinations(state)
    for region in movable_regions(state):
        present = state.caballeros[region][seat]
        if not present:
            continue
        emptied = state.clone()
        emptied.caballeros[region][seat] = 0
        evaluation = Evaluation(emptied, seat)
        chosen = _build(
            emptied,
            seat,
            evaluation,
            present,
            lambda counts, chosen: ((seat, None, target) for target in targets),
            least=present,
        )
        spread = {}
        for _s, _source, target in chosen:
            spread[AREAS[target]] = spread.get(AREAS[target], 0) + 1
        plans.append({"region": AREAS[region], "to": spread})
    return plans


def _court_to_regions(state, seat, card):
    needed = card.needed(state, seat)
    if not needed:
        return []
    evaluation = Evaluation(state, seat)
    chosen = _build(
        state,
        seat,
        evaluation,
        needed,
        lambda counts, chosen: ((seat, None, target) for target in destinations(state)),
        least=needed,
    )
    spread = {}
    for _s, _source, target in chosen:
        spread[AREAS[target]] = spread.get(AREAS[target], 0) + 1
    return [{"to": spread}]


def _one_each(state, seat, card):
    evaluation = Evaluation(state, seat)
    picks = []
    for owner in card.owners(state):
        best = None
        for region in movable_regions(state):
            if not state.caballeros[region][owner]:
                continue
            counts = list(state.caballeros[region])
            counts[owner] -= 1
            value = evaluation.with_areas({region: counts})
            if best is None or value > best[0]:
                best = (value, region)
        picks.append({"colour": state.colours[owner], "region": AREAS[best[1]]})
    return [{"picks": picks}] if picks else []


def cheapest_share(state, seat):
    """A King's-return share built a caballero at a time, each from where it is missed least."""
    options = CARDS[state.action["card"]].share_options(state, seat)
    evaluation = Evaluation(state, seat)
    left = evaluation.horizon.rounds_left
    court = state.court[seat]
    work = {}
    share = {}
    for _ in range(options["needed"]):
        best = None
        for source in options["sources"]:
            name = source["id"]
            if share.get(name, 0) >= source["max"]:
                continue
            if name == "court":
                changes, extra = {}, court_value(court - 1, left) - court_value(court, left)
            else:
                area = AREA_INDEX[name]
                counts = list(work.get(area) or state.caballeros[area])
                counts[seat] -= 1
                changes, extra = {area: counts}, 0.0
            value = evaluation.with_areas(changes, seat, extra)
            if best is None or value > best[0]:
                best = (value, name, changes, extra)
        _value, name, changes, extra = best
        evaluation.commit(changes, seat, extra)
        work.update(changes)
        if name == "court":
            court -= 1
        share[name] = share.get(name, 0) + 1
    return {"type": "share", "from": share}


# --- secret choices -------------------------------------------------------------------------------


def _secret_choice(state, seat, rng):
    """A secret disk or a Castillo choice: each option tried against others' disks drawn at random."""
    best = None
    for move in legal_moves(state, seat):
        total = 0.0
        for _ in range(CHOICE_DRAWS):
            after = apply_move(state, seat, move)
            after = _finish_choices(after, rng)
            total += evaluate(after, seat)
        if best is None or total > best[0]:
            best = (total, move)
    return best[1]


def _finish_choices(state, rng):
    """Others' pending secret choices drawn at random, then what follows settled by default."""
    for _ in range(20):
        if state.phase == "castillo" or (state.phase == "special" and state.action["stage"] == "choices"):
            seat = to_act(state)[0]
            state = apply_move(state, seat, rng.choice(legal_moves(state, seat)))
        else:
            break
    return settle(state, rng)


# --- bids -----------------------------------------------------------------------------------------


def _bid(state, seat):
    return bid_scores(state, seat)[0][1]


def bid_scores(state, seat):
    """(value, move) of each bid, best first. A bid is judged by the turn it buys: the chance of
    choosing early among the cards on offer (each card worth the best turn it allows, with the
    caballeros the bid brings to court), less the worth of the power card spent."""
    hand = state.hands[seat]
    bids = bids_left(state, seat)
    worth = {}
    scored = []
    for move in legal_moves(state, seat):
        card = move["card"]
        gain = min(POWER_CARD_CABALLEROS[card], state.provinces[seat])
        court = state.court[seat] + gain
        # Beyond FULL_COURT a turn is the same but for the caballeros left in court.
        level = min(court, FULL_COURT)
        if level not in worth:
            worth[level] = sorted(
                (_turn_worth(state, seat, offered, level) for offered in dict.fromkeys(state.display)),
                reverse=True,
            )
        extra = court_value(court, bids) - court_value(level, bids)
        spent = hand_value(hand, bids) - hand_value([c for c in hand if c != card], bids - 1)
        scored.append((_expected_pick(state, seat, card, worth[level]) + extra - spent, move))
    scored.sort(key=lambda entry: -entry[0])
    return scored


def _expected_pick(state, seat, card, values):
    """The expected worth of the card left for the seat, if the players before it take the best."""
    ahead = [1.0]  # ahead[k]: the chance that k players choose before the seat
    for other in range(state.num_players):
        if other == seat:
            continue
        bid = state.bids[other]
        if bid is not None:
            chance = 1.0 if bid > card else 0.0
        else:
            free = [c for c in state.hands[other] if c not in state.bids and c != card]
            chance = sum(1 for c in free if c > card) / len(free) if free else 0.0
        ahead = [a * (1 - chance) + (ahead[k - 1] * chance if k else 0.0) for k, a in enumerate(ahead)] + [
            ahead[-1] * chance
        ]
    return sum(chance * values[min(k, len(values) - 1)] for k, chance in enumerate(ahead))


def _turn_worth(state, seat, card, court):
    """The value of the seat's turn if it came now, with `court` caballeros and `card` taken
    (hands left out: the bid weighs the power card itself). Remembered for the board: the bids
    that follow in a search meet the same boards."""
    key = (_board_key(state), seat, tuple(state.played[seat]), card, court)
    worth = _WORTHS.get(key)
    if worth is None:
        if len(_WORTHS) > 20_000:
            _WORTHS.clear()
        # Its own fixed draws (secret disks met in the plan): the worth depends on the board alone.
        worth = _WORTHS[key] = _plan_worth(state, seat, card, court, random.Random(0))
    return worth


_WORTHS = {}


def _board_key(state):
    """Everything but hands and bids that a turn's worth depends on."""
    return (
        state.num_players,
        state.short_game,
        state.round,
        state.king,
        tuple(map(tuple, state.caballeros)),
        tuple(state.court),
        tuple(state.provinces),
        tuple(state.scores),
        tuple(state.grandes),
        tuple(state.mobile),
        tuple(state.display),
        tuple(map(tuple, state.vetoes)),
    )


def _plan_worth(state, seat, card, court, rng):
    turn = state.clone()
    turn.phase = "action"
    turn.turn_order = [seat] + [s for s in range(state.num_players) if s != seat]
    turn.turn_index = 0
    turn.bids = [1] * state.num_players  # whoever follows has a court move to make: the turn ends there
    turn.placed = turn.special_done = False
    turn.hands = [[] for _ in range(state.num_players)]
    turn.provinces[seat] -= court - state.court[seat]
    turn.court[seat] = court
    display = list(state.display)
    display.remove(card)
    turn.display = display
    turn.taken[seat] = card
    return plan_turn(turn, seat, rng)[0]
