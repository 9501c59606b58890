"""The flow of the game: setup, bidding, the turn, the end of a round, general scoring, the end."""

import random

from . import actions
from .board import (
    AREAS,
    CASTILLO_INDEX,
    COLOURS,
    POWER_CARD_CABALLEROS,
    POWER_CARDS,
    REGIONS,
    START_IN_COURT,
    START_IN_HOME,
    START_IN_PROVINCES,
)
from .cards import CARDS, KING_CARD, STACKS, stack_cards
from .errors import IllegalMove, given
from .events import record
from .operations import parse_area_counts, parse_count, placement_areas, score_area, shift
from .state import COURT, PROVINCES, GameState, replaced


def new_game(num_players, seed, short_game=False, veto=True, show_castillo=False):
    """A new game, entirely determined by its seed and options."""
    if isinstance(num_players, bool) or num_players not in (2, 3, 4, 5):
        raise ValueError("El Grande is played by 2 to 5 players.")
    rng = random.Random(seed)
    state = GameState.__new__(GameState)
    state.num_players = num_players
    state.seed = seed
    state.short_game = bool(short_game)
    state.veto_enabled = bool(veto)
    state.show_castillo = bool(show_castillo)
    state.colours = rng.sample(COLOURS, num_players)
    region_cards = list(range(len(REGIONS)))
    rng.shuffle(region_cards)
    state.king = region_cards[0]
    state.grandes = region_cards[1 : 1 + num_players]
    state.caballeros = [[0] * num_players for _ in range(len(REGIONS) + 1)]
    for seat, home in enumerate(state.grandes):
        state.caballeros[home][seat] = START_IN_HOME
    state.court = [START_IN_COURT] * num_players
    state.provinces = [START_IN_PROVINCES] * num_players
    state.scores = [0] * num_players
    state.hands = [list(POWER_CARDS) for _ in range(num_players)]
    state.played = [[] for _ in range(num_players)]
    state.stacks = []
    for stack in STACKS:
        cards = stack_cards(stack, veto=state.veto_enabled)
        rng.shuffle(cards)
        state.stacks.append(cards)
    state.first_bidder = rng.randrange(num_players)
    state.round = 0
    state.bids = [None] * num_players
    state.turn_order = []
    state.turn_index = 0
    state.display = []
    state.taken = [None] * num_players
    state.mobile = [None, None]
    state.vetoes = []
    state.phase = "bid"
    state.placed = False
    state.special_done = False
    state.action = None
    state.castillo_choices = None
    state.scorings_done = 0
    state.events = []
    record(
        state,
        "setup",
        colours=list(state.colours),
        homes=[REGIONS[home] for home in state.grandes],
        king=REGIONS[state.king],
        first_bidder=state.first_bidder,
    )
    _start_round(state)
    return state


def _start_round(state):
    state.round += 1
    state.display = [stack[-1] for stack in state.stacks] + [KING_CARD]
    state.stacks = [stack[:-1] for stack in state.stacks]
    state.bids = [None] * state.num_players
    state.taken = [None] * state.num_players
    state.turn_order = []
    state.turn_index = 0
    state.phase = "bid"
    record(state, "round", cards=list(state.display), first_bidder=state.first_bidder)


# --- who must act ------------------------------------------------------------------------------


def bidder(state):
    played = state.num_players - state.bids.count(None)
    return (state.first_bidder + played) % state.num_players


def to_act(state):
    """The seats that must decide now; several at once during secret choices and veto windows."""
    phase = state.phase
    if phase == "bid":
        return [bidder(state)]
    if phase in ("court", "card", "action"):
        return [state.turn_order[state.turn_index]]
    if phase == "special":
        return sorted(state.action["awaiting"])
    if phase == "castillo":
        return sorted(state.castillo_choices["awaiting"])
    return []


# --- applying a move ---------------------------------------------------------------------------


def apply_move(state, seat, move):
    """Apply one seat's move and return the new state. A bad move raises IllegalMove and the
    given state is left exactly as it was (the work is done on a copy)."""
    if not isinstance(move, dict):
        raise IllegalMove("move_not_dict")
    if state.phase == "over":
        raise IllegalMove("game_over")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.num_players:
        raise IllegalMove("no_such_seat", seat=given(seat))
    if seat not in to_act(state):
        raise IllegalMove("not_your_turn")
    kind = move.get("type")
    handler = _HANDLERS.get((state.phase, kind)) if isinstance(kind, str) else None
    if handler is None:
        raise _expected(state, kind)
    new = state.successor()
    handler(new, seat, move)
    return new


def _expected(state, kind):
    """The refusal of a move of the wrong kind: `expected` names what the seat must do now."""
    expected = state.phase
    if state.phase == "special":
        stage = state.action["stage"]
        expected = {"veto": "veto", "counter_veto": "veto", "share": "share"}.get(stage, "choose_region")
    return IllegalMove("wrong_move", move=given(kind) if not isinstance(kind, str) else kind, expected=expected)


def _bid(state, seat, move):
    card = move.get("card")
    if isinstance(card, bool) or not isinstance(card, int) or card not in POWER_CARDS:
        raise IllegalMove("no_such_power_card", card=given(card))
    if card not in state.hands[seat]:
        raise IllegalMove("power_card_not_in_hand", card=card)
    if card in state.bids:
        raise IllegalMove("power_card_already_played", card=card)
    state.hands = replaced(state.hands, seat, [other for other in state.hands[seat] if other != card])
    state.played = replaced(state.played, seat, state.played[seat] + [card])
    state.bids = replaced(state.bids, seat, card)
    record(state, "bid", seat=seat, card=card)
    if None not in state.bids:
        state.turn_order = sorted(range(state.num_players), key=lambda s: -state.bids[s])
        state.turn_index = 0
        record(state, "order", order=list(state.turn_order))
        _begin_turn(state)


def _begin_turn(state):
    """Start the next player's turn, passing over decisions that offer no choice: power cards
    12 and 13 move nobody to court, and the last card on offer must be taken."""
    state.phase = "court"
    state.placed = False
    state.special_done = False
    seat = state.turn_order[state.turn_index]
    if court_allowance(state, seat) == 0:
        record(state, "court", seat=seat, count=0, power_card=state.bids[seat])
        _after_court(state, seat)


def _after_court(state, seat):
    state.phase = "card"
    if len(state.display) == 1:
        _take_card(state, seat, {"card": state.display[0]})


def court_allowance(state, seat):
    return POWER_CARD_CABALLEROS[state.bids[seat]]


def _court(state, seat, move):
    allowance = court_allowance(state, seat)
    count = parse_count(move.get("count"))
    if count > allowance:
        raise IllegalMove("court_too_many", most=allowance)
    from_regions = parse_area_counts(move.get("from_regions") or {})
    from_board = sum(from_regions.values())
    from_provinces = count - from_board
    if from_provinces < 0:
        raise IllegalMove("court_regions_exceed_count")
    if from_provinces > state.provinces[seat]:
        raise IllegalMove("provinces_hold_only", count=state.provinces[seat])
    if from_board and from_provinces != state.provinces[seat]:
        raise IllegalMove("court_regions_before_provinces_empty")
    for region, number in from_regions.items():
        if region == CASTILLO_INDEX:
            raise IllegalMove("castillo_closed")
        if region == state.king:
            raise IllegalMove("king_region_closed")
        if state.caballeros[region][seat] < number:
            raise IllegalMove("region_holds_only", count=state.caballeros[region][seat], area=AREAS[region])
    if from_provinces:
        shift(state, seat, PROVINCES, COURT, from_provinces)
    for region, number in from_regions.items():
        shift(state, seat, region, COURT, number)
    fields = {"from_regions": {REGIONS[r]: n for r, n in from_regions.items()}} if from_board else {}
    record(state, "court", seat=seat, count=count, **fields)
    _after_court(state, seat)


def _take_card(state, seat, move):
    card = move.get("card")
    if card not in state.display:
        raise IllegalMove("card_not_on_offer", card=given(card), offered=list(state.display))
    display = state.display[:]
    display.remove(card)
    state.display = display
    state.taken = replaced(state.taken, seat, card)
    record(state, "take_card", seat=seat, card=card)
    state.phase = "action"


def _place(state, seat, move):
    if state.placed:
        raise IllegalMove("already_placed")
    limit = CARDS[state.taken[seat]].placement
    spread = parse_area_counts(move.get("to") or {})
    total = sum(spread.values())
    if total > limit:
        raise IllegalMove("place_too_many", most=limit)
    if total > state.court[seat]:
        raise IllegalMove("court_holds_only", count=state.court[seat])
    allowed = placement_areas(state)
    for area in spread:
        if area not in allowed:
            raise IllegalMove("place_not_next_to_king", area=AREAS[area])
    for area, count in spread.items():
        shift(state, seat, COURT, area, count)
    state.placed = True
    record(state, "place", seat=seat, to=[[AREAS[a], c] for a, c in spread.items()])
    if state.special_done:
        _end_turn(state)


def _special(state, seat, move):
    if state.special_done:
        raise IllegalMove("special_already_done")
    if actions.announce(state, seat, state.taken[seat], move):
        after_special(state)


def _decline(state, seat, move):
    if state.special_done:
        raise IllegalMove("special_already_done")
    card = state.taken[seat]
    record(state, "decline", seat=seat, card=card)
    state.special_done = True
    if state.placed:
        _end_turn(state)


def after_special(state):
    """Back to the taker once the special action is over."""
    state.phase = "action"
    if state.placed:
        _end_turn(state)


def _choose(state, seat, move):
    if state.action["stage"] != "choices":
        raise _expected(state, move.get("type"))
    if actions.choose(state, seat, move):
        after_special(state)


def _share(state, seat, move):
    if state.action["stage"] != "share":
        raise _expected(state, move.get("type"))
    if actions.share(state, seat, move):
        after_special(state)


def _answer_veto(state, seat, move):
    if state.action["stage"] not in ("veto", "counter_veto"):
        raise _expected(state, move.get("type"))
    if actions.answer_veto(state, seat, move):
        after_special(state)


# --- the end of a turn and of a round -----------------------------------------------------------


def _end_turn(state):
    state.turn_index += 1
    if state.turn_index < state.num_players:
        _begin_turn(state)
    else:
        _end_round(state)


def _end_round(state):
    discarded = [card for card in state.display if card != KING_CARD]
    if discarded:
        record(state, "discard", cards=discarded)
    state.display = []
    expired = [seat for seat, taken in state.vetoes if taken < state.round]
    state.vetoes = [entry for entry in state.vetoes if entry[1] >= state.round]
    for seat in expired:
        record(state, "veto_expired", seat=seat)
    state.first_bidder = min(range(state.num_players), key=lambda s: state.bids[s])
    if state.round in state.scoring_rounds:
        _begin_general_scoring(state)
    else:
        _start_round(state)


def _begin_general_scoring(state):
    record(state, "general_scoring")
    holders = [seat for seat in range(state.num_players) if state.caballeros[CASTILLO_INDEX][seat]]
    if holders:
        state.phase = "castillo"
        state.castillo_choices = {"awaiting": holders, "choices": [None] * state.num_players}
        record(state, "awaiting_choices", seats=list(holders))
    else:
        _finish_general_scoring(state)


def _castillo_choice(state, seat, move):
    region = move.get("region")
    if region not in REGIONS:
        raise IllegalMove("castillo_choice_not_region", region=given(region))
    pending = state.castillo_choices
    pending["choices"][seat] = REGIONS.index(region)
    pending["awaiting"].remove(seat)
    record(state, "chosen", seat=seat)
    if not pending["awaiting"]:
        _finish_general_scoring(state)


def _finish_general_scoring(state):
    score_area(state, CASTILLO_INDEX)
    if state.castillo_choices is not None:
        choices = state.castillo_choices["choices"]
        for seat, region in enumerate(choices):
            if region is None:
                continue
            count = state.caballeros[CASTILLO_INDEX][seat]
            to_court = region == state.king
            shift(state, seat, CASTILLO_INDEX, COURT if to_court else region, count)
            record(state, "castillo_reveal", seat=seat, region=REGIONS[region], count=count, to_court=to_court)
        state.castillo_choices = None
    for region in range(len(REGIONS)):
        score_area(state, region)
    state.scorings_done += 1
    record(state, "scores", scores=list(state.scores))
    if state.round >= state.num_rounds:
        state.phase = "over"
        record(state, "game_over", ranking=final_ranking(state))
    else:
        _start_round(state)


def final_ranking(state):
    """[place, seat] pairs, best first; equal scores share the place."""
    order = sorted(range(state.num_players), key=lambda s: -state.scores[s])
    ranking = []
    for index, seat in enumerate(order):
        if index and state.scores[seat] == state.scores[order[index - 1]]:
            place = ranking[-1][0]
        else:
            place = index + 1
        ranking.append([place, seat])
    return ranking


_HANDLERS = {
    ("bid", "bid"): _bid,
    ("court", "court"): _court,
    ("card", "take_card"): _take_card,
    ("action", "place"): _place,
    ("action", "special"): _special,
    ("action", "decline"): _decline,
    ("special", "choose_region"): _choose,
    ("special", "share"): _share,
    ("special", "allow"): _answer_veto,
    ("special", "veto"): _answer_veto,
    ("castillo", "choose_region"): _castillo_choice,
}
