"""Positions for the game page's tests, found by random play (computed once, on first use): one per
kind of decision, and the same position with what one viewer must not see changed."""

import functools
import random

from games.engine import GameState, apply_move, new_game, random_move, to_act, view_for
from games.engine.board import CASTILLO_INDEX
from games.engine.cards import CARDS
from games.engine.random_play import random_special


def position(key):
    found = positions()
    assert key in found, f"no random game reached {key}: the search or the engine has changed"
    return found[key]


def hidden_variant(state, viewer):
    """The same position with every fact private to seats other than `viewer` changed: their hands,
    their played cards under the top one, their secret choices, the face-down stacks, and the
    Castillo's counts when hidden. A page drawn for `viewer` must not change, but for the provinces
    of the seat whose hidden Castillo count moved (see `castillo_moved`): every colour keeps 30
    caballeros, so a change in the Castillo shows where the caballero came from or went."""
    rng = random.Random(7)
    other = GameState.from_json(state.to_json())
    for seat in range(state.num_players):
        if seat == viewer:
            continue
        other.hands[seat] = sorted(rng.sample(range(1, 14), len(state.hands[seat])))
        pile = other.played[seat]
        if len(pile) > 1:
            other.played[seat] = [(card % 13) + 1 for card in pile[:-1]] + pile[-1:]
    for stack in other.stacks:
        stack.reverse()
    for choices in ((other.action or {}).get("choices"), (other.castillo_choices or {}).get("choices")):
        for seat, choice in enumerate(choices or []):
            if seat != viewer and isinstance(choice, int):
                choices[seat] = (choice + 1) % 9
    if not state.show_castillo:
        counts = other.caballeros[CASTILLO_INDEX]
        movable = [s for s in range(state.num_players) if s != viewer and (other.provinces[s] or counts[s])]
        assert movable, "no other seat has a caballero in the provinces or the Castillo"
        seat = movable[0]
        change = 1 if other.provinces[seat] else -1
        counts[seat] += change
        other.provinces[seat] -= change
        assert castillo_moved(state, other) == {seat: change}
        assert list(map(sum, zip(*other.caballeros, other.court, other.provinces))) == [30] * state.num_players
    return other


def hidden_retake_in_question(state):
    action = state.action if state.phase == "special" else None
    if not action or action.get("stage") != "veto" or action.get("window") != "plan":
        return False
    return any(
        step[0] == "retake" and state.played[step[1]][-1] != step[2] for step in action["steps"] or []
    )


def _decision_key(state, seat):
    # The engine's view alone: the decision's kind, counts and window are the engine's; the words
    # fill_view adds to it were half the search's processor (1.2-2.0 s against 0.7-0.8 s, measured here).
    view = view_for(state, seat)
    kind = view["decision"]["kind"]
    if kind == "action":
        if state.special_done:
            return None
        return ("special", state.taken[seat])
    if kind == "court" and view["decision"]["provinces"] < view["decision"]["allowance"]:
        return ("court", "from_regions")
    if kind == "veto":
        return ("veto", view["decision"]["window"])
    return (kind, None)


@functools.cache
def positions():
    """{decision key: (state, seat)}; computed on first use so that tests not needing it stay fast."""
    found = {}
    wanted_specials = {("special", card) for card in CARDS}
    for seed in range(1, 120):
        num_players = 2 + seed % 4
        state = new_game(num_players=num_players, seed=seed, veto=True)
        rng = random.Random(seed)
        while not state.is_over:
            seat = to_act(state)[0]
            key = _decision_key(state, seat)
            if key is not None and key not in found:
                card = CARDS[state.taken[seat]] if key[0] == "special" else None
                if card is None or random_special(state, seat, card, random.Random(0)) is not None or key[1] == "veto":
                    found[key] = (state, seat)
            state = apply_move(state, seat, random_move(state, seat, rng))
        if wanted_specials | VETO_WINDOWS <= set(found) and {"counter_veto", "share", "region", "castillo"} <= {
            key[0] for key in found
        }:
            break
    if ("court", "from_regions") not in found and ("court", None) in found:
        # Random play seldom empties the provinces: take a court decision and empty them.
        state, seat = found[("court", None)]
        state = GameState.from_json(state.to_json())
        state.provinces[seat] = 0
        found[("court", "from_regions")] = (state, seat)
    return found


def castillo_moved(state, other):
    """{seat: change} for the seats whose Castillo count differs between the two states."""
    before, after = state.caballeros[CASTILLO_INDEX], other.caballeros[CASTILLO_INDEX]
    return {seat: after[seat] - before[seat] for seat in range(state.num_players) if after[seat] != before[seat]}


VETO_WINDOWS = {("veto", "disks"), ("veto", "share"), ("veto", "plan")}
