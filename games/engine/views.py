"""What one seat may see: everything public, its own hand and choices, nothing of anyone else's.

Hidden from other seats: hands (only their size), the order of the face-down stacks (only their
size), secret choices before their reveal, a retaken power card that was not on top of its pile,
and the Castillo's per-colour counts unless the game shows them.

`revealed_view` shows all of these but the stacks' order: it is for the replay of a finished game,
never for a game still running.
"""

from .board import (
    AREAS,
    CASTILLO,
    CASTILLO_INDEX,
    COLOUR_LABELS,
    MOBILE_SCOREBOARDS,
    NEIGHBOURS,
    REGIONS,
    SCOREBOARDS,
)
from .cards import CARDS
from .moves import legal_moves
from .operations import area_values, movable_regions, placement_areas
from .rounds import court_allowance, final_ranking, to_act
from .steps import step_data


def view_for(state, seat):
    """A JSON-able dict of the position as `seat` sees it; `None` is the spectators' view."""
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < state.num_players):
        raise ValueError(f"no seat {seat!r} in this game")
    return _view(state, seat)


def revealed_view(state):
    """The spectators' view with every secret shown: each player's hand and whole pile of played
    cards (`players[].hand`, `players[].played`), the Castillo's counts, every secret choice made so
    far (`pending.choices`: [{seat, region}]) and any power card being taken back. `revealed` is
    True. Only for a game that is over: it shows what no seat could see while it ran."""
    return _view(state, None, reveal=True)


def _view(state, seat, reveal=False):
    acting = to_act(state)
    view = {
        "seat": seat,
        "colour": state.colours[seat] if seat is not None else None,
        "options": {
            "num_players": state.num_players,
            "short_game": state.short_game,
            "veto": state.veto_enabled,
            "show_castillo": state.show_castillo,
        },
        "round": state.round,
        "num_rounds": state.num_rounds,
        "scoring_rounds": list(state.scoring_rounds),
        "next_scoring": next((r for r in state.scoring_rounds if r >= state.round), None),
        "phase": state.phase,
        "is_over": state.is_over,
        "to_act": acting,
        "current": state.current_player,
        "turn_order": list(state.turn_order),
        "players": [_player(state, s, reveal) for s in range(state.num_players)],
        "king": REGIONS[state.king],
        "regions": [_region(state, r) for r in range(len(REGIONS))],
        "castillo": _castillo(state, seat, reveal),
        "mobile_scoreboards": {
            board: (AREAS[where] if where is not None else None)
            for board, where in zip(MOBILE_SCOREBOARDS, state.mobile)
        },
        "cards": [_card(card) for card in state.display],
        "stacks": [{"stack": index + 1, "remaining": len(stack)} for index, stack in enumerate(state.stacks)],
        "pending": _pending(state, seat, reveal),
        "decision": _decision(state, seat) if seat in acting else None,
        "ranking": [[place, s] for place, s in final_ranking(state)] if state.is_over else None,
    }
    if seat is not None:
        view["hand"] = sorted(state.hands[seat])
        view["played"] = list(state.played[seat])
    if reveal:
        view["revealed"] = True
    return view


def _player(state, seat, reveal=False):
    pile = state.played[seat]
    player = {
        "seat": seat,
        "colour": state.colours[seat],
        "label": COLOUR_LABELS[state.colours[seat]],
        "score": state.scores[seat],
        "court": state.court[seat],
        "provinces": state.provinces[seat],
        "home": REGIONS[state.grandes[seat]],
        "hand_size": len(state.hands[seat]),
        "played_top": pile[-1] if pile else None,
        "played_count": len(pile),
        "bid": state.bids[seat],
        "card": state.taken[seat],
        "vetoes": [{"expires_round": taken + 1} for holder, taken in state.vetoes if holder == seat],
    }
    if reveal:
        player["hand"] = sorted(state.hands[seat])
        player["played"] = list(pile)
    return player


def _region(state, region):
    region_id = REGIONS[region]
    mobile = [board for board, where in zip(MOBILE_SCOREBOARDS, state.mobile) if where == region]
    return {
        "id": region_id,
        "order": region + 1,
        "neighbours": sorted(AREAS[n] for n in NEIGHBOURS[region_id]),
        "king": region == state.king,
        "caballeros": {
            state.colours[s]: state.caballeros[region][s]
            for s in range(state.num_players)
            if state.caballeros[region][s]
        },
        "grandes": [state.colours[s] for s in range(state.num_players) if state.grandes[s] == region],
        "scoreboard": list(SCOREBOARDS[region_id]),
        "mobile": mobile[0] if mobile else None,
        "values": list(area_values(state, region)),
    }


def _castillo(state, seat, reveal=False):
    counts = state.caballeros[CASTILLO_INDEX]
    mobile = [board for board, where in zip(MOBILE_SCOREBOARDS, state.mobile) if where == CASTILLO_INDEX]
    return {
        "id": CASTILLO,
        "scoreboard": list(SCOREBOARDS[CASTILLO]),
        "mobile": mobile[0] if mobile else None,
        "values": list(area_values(state, CASTILLO_INDEX)),
        "caballeros": (
            {state.colours[s]: counts[s] for s in range(state.num_players) if counts[s]}
            if state.show_castillo or reveal or state.is_over
            else None
        ),
        "own": counts[seat] if seat is not None else None,
    }


def _card(card_id):
    kind = CARDS[card_id]
    return {"id": kind.id, "stack": kind.stack, "placement": kind.placement}


def _pending(state, seat, reveal=False):
    """The special action or general-scoring choice under way, as far as the seat may know it."""
    if state.phase == "special":
        action = state.action
        pending = {
            "kind": action["stage"],
            "window": action["window"],
            "card": action["card"],
            "taker": action["taker"],
            "awaiting": sorted(action["awaiting"]),
            "steps": (
                [step_data(state, step, seat, reveal) for step in action["steps"]]
                if action["steps"] is not None
                else None
            ),
            "cut": action["cut"],
            "vetoer": action["vetoer"],
        }
        plan = action["plan"]
        if "order" in plan:
            pending["order"] = list(plan["order"])
        if CARDS[action["card"]].choice == "region" and "region" in plan:
            pending["region"] = AREAS[plan["region"]]
        if action["window"] == "share" or action["stage"] == "share":
            pending["before"] = plan["order"][action["turn"]]
        if seat is not None and action["stage"] == "choices" and action["choices"][seat] is not None:
            pending["own_choice"] = AREAS[action["choices"][seat]]
        if reveal and action["stage"] == "choices":
            pending["choices"] = _choices(action["choices"], AREAS)
        return pending
    if state.phase == "castillo":
        pending = {"kind": "castillo", "awaiting": sorted(state.castillo_choices["awaiting"])}
        if seat is not None and state.castillo_choices["choices"][seat] is not None:
            pending["own_choice"] = REGIONS[state.castillo_choices["choices"][seat]]
        if reveal:
            pending["choices"] = _choices(state.castillo_choices["choices"], REGIONS)
        return pending
    return None


def _choices(choices, names):
    """The secret choices made so far, by seat: [{seat, region}]."""
    return [{"seat": seat, "region": names[choice]} for seat, choice in enumerate(choices) if choice is not None]


def _decision(state, seat):
    phase = state.phase
    decision = {"kind": phase, "moves": legal_moves(state, seat)}
    if phase == "court":
        decision["allowance"] = court_allowance(state, seat)
        decision["provinces"] = state.provinces[seat]
        decision["regions"] = [REGIONS[r] for r in movable_regions(state) if state.caballeros[r][seat]]
    elif phase == "action":
        card = CARDS[state.taken[seat]]
        decision.update(
            card=_card(card.id),
            can_place=not state.placed,
            place_limit=min(card.placement, state.court[seat]),
            place_areas=[AREAS[a] for a in placement_areas(state)],
            can_special=not state.special_done,
            special=card.options(state, seat),
        )
    elif phase == "special":
        action = state.action
        decision["kind"] = action["stage"]
        decision["card"] = action["card"]
        kind = CARDS[action["card"]]
        if action["stage"] == "choices":
            decision["kind"] = "region"
        elif action["stage"] == "share":
            decision.update(kind.share_options(state, seat))
        else:
            decision["window"] = action["window"]
    elif phase == "castillo":
        decision["count"] = state.caballeros[CASTILLO_INDEX][seat]
    return decision
