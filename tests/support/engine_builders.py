"""Build exact positions for rule tests: a real new game, then the board laid out by hand."""

import json

import pytest

from games.engine import IllegalMove, apply_move, new_game, to_act
from games.engine.board import AREA_INDEX, AREAS, REGIONS
from games.engine.state import GameState


def area(area_id):
    return AREA_INDEX[area_id]


def lay_out(state, caballeros=None, king=None, grandes=None, court=None, scores=None, mobile=None):
    """Replace parts of the board; caballeros maps area id to {colour: count} for the areas given.

    Provinces are adjusted so that every colour still has exactly 30 caballeros.
    """
    state = state.clone()
    if king is not None:
        state.king = area(king)
    if grandes is not None:
        for colour, region in grandes.items():
            state.grandes[state.colours.index(colour)] = area(region)
    if caballeros is not None:
        for area_id, counts in caballeros.items():
            row = [0] * state.num_players
            for colour, count in counts.items():
                row[state.colours.index(colour)] = count
            state.caballeros[area(area_id)] = row
    if court is not None:
        for colour, count in court.items():
            state.court[state.colours.index(colour)] = count
    if scores is not None:
        for colour, score in scores.items():
            state.scores[state.colours.index(colour)] = score
    if mobile is not None:
        for board, where in mobile.items():
            state.mobile[0 if board == "8/4/0" else 1] = area(where) if where else None
    for seat in range(state.num_players):
        on_board = sum(state.caballeros[a][seat] for a in range(len(REGIONS) + 1))
        state.provinces[seat] = 30 - on_board - state.court[seat]
        assert state.provinces[seat] >= 0, "too many caballeros laid out"
    return state


def game(num_players=3, seed=1, colours=None, **options):
    """A new game whose seats play the given colours in order (seat 0 first)."""
    state = new_game(num_players, seed=seed, **options)
    if colours is not None:
        state = state.clone()
        state.colours = list(colours)
    return state


def play_to_action(state, card, bids=None, seat=None):
    """Bid so that `seat` (default 0) acts first, skip its court move, give it `card` on offer
    and take it: the returned state waits for that seat's placement and special action."""
    seat = 0 if seat is None else seat
    state = state.clone()
    state.display = [card] + [c for c in state.display if c != card][:4]
    bids = bids or {}
    while state.phase == "bid":
        bidder = to_act(state)[0]
        value = bids.get(bidder, 13 if bidder == seat else None)
        if value is None:
            value = next(c for c in sorted(state.hands[bidder], reverse=True) if c not in state.bids and c != 13)
        state = apply_move(state, bidder, {"type": "bid", "card": value})
    assert to_act(state) == [seat]
    if state.phase == "court":
        state = apply_move(state, seat, {"type": "court", "count": 0})
    if state.phase == "card":
        state = apply_move(state, seat, {"type": "take_card", "card": card})
    assert state.phase == "action"
    return state


def restore(data):
    return GameState.from_json(data)


# --- action-card positions (used by test_cards_*) -------------------------------------------------

CARD_TEST_HOMES = {"red": "galicia", "yellow": "basque", "blue": "catalonia", "green": "seville", "brown": "valencia"}


def at_action(card, num_players=4, king="new_castile", caballeros=None, grandes=None, court=None, scores=None,
              mobile=None, seed=1):
    """Seat 0 plays red (then yellow, blue, green, brown), has taken `card` and must place and act.
    Every area is empty but those given in `caballeros`; Grandes stand in CARD_TEST_HOMES unless given."""
    from games.engine.board import AREAS, COLOURS

    colours = list(COLOURS[:num_players])
    state = play_to_action(game(num_players, seed=seed, colours=colours), card)
    layout = {area_id: {} for area_id in AREAS}
    layout.update(caballeros or {})
    homes = {colour: CARD_TEST_HOMES[colour] for colour in colours}
    homes.update(grandes or {})
    return lay_out(state, caballeros=layout, king=king, grandes=homes, court=court, scores=scores, mobile=mobile)


def frozen(state):
    """The whole state as canonical JSON text, to compare states exactly."""
    return json.dumps(state.to_json(), sort_keys=True)


def refused(state, seat, move, match=None):
    """The move raises IllegalMove (matching `match`, if given) and the state is exactly as before."""
    before = state.to_json()
    with pytest.raises(IllegalMove, match=match):
        apply_move(state, seat, move)
    assert state.to_json() == before


def quiet_move(state, seat):
    """A move that changes nothing on the board: bid the highest free card, move nobody to court,
    take the first card on offer, decline the special action, place nobody, allow any veto
    question, send Castillo caballeros next to the King."""
    phase = state.phase
    if phase == "bid":
        return {"type": "bid", "card": max(c for c in state.hands[seat] if c not in state.bids)}
    if phase == "court":
        return {"type": "court", "count": 0}
    if phase == "card":
        return {"type": "take_card", "card": state.display[0]}
    if phase == "action":
        return {"type": "decline"} if not state.special_done else {"type": "place", "to": {}}
    if phase == "castillo":
        return {"type": "choose_region", "region": REGIONS[(state.king + 1) % len(REGIONS)]}
    if phase == "special" and state.action["stage"] in ("veto", "counter_veto"):
        return {"type": "allow"}
    raise AssertionError(f"no quiet move in phase {phase}")


def quiet(state, events=None):
    """Play the quiet move of the first seat to act (its events added to `events`, if given)."""
    seat = to_act(state)[0]
    return play(state, seat, quiet_move(state, seat), events)


# --- events: each move leaves only its own in state.events ------------------------------------------


def play(state, seat, move, events=None):
    """apply_move, adding the move's events to the list `events` when one is given."""
    after = apply_move(state, seat, move)
    if events is not None:
        events.extend(after.events)
    return after


def run_moves(state, moves):
    """Play (seat, move) pairs in order; returns the final state and the events of all the moves."""
    events = []
    for seat, move in moves:
        state = play(state, seat, move, events)
    return state, events


def of_kind(events, kind):
    """The events of one kind, in order."""
    return [event for event in events if event["event"] == kind]


def holdings(state, colour):
    """Where a colour's caballeros are: {area id: count} for non-empty areas, plus court and provinces."""
    seat = state.colours.index(colour)
    where = {AREAS[a]: row[seat] for a, row in enumerate(state.caballeros) if row[seat]}
    where["court"] = state.court[seat]
    where["provinces"] = state.provinces[seat]
    return where
