"""Engine positions that tests outside their module reuse (tests/test_refusals.py, tests/bots): the King's
return and secret choices of the revised rulings, a general scoring, a short supply of caballeros,
and `perturb`, which changes what one viewer must not see."""


from games.engine import apply_move, to_act
from games.engine.board import AREAS, CASTILLO_INDEX, POWER_CARDS, REGIONS
from games.engine.cards import CARDS
from tests.support.engine_builders import at_action, game, lay_out, quiet


def king_returns_position(holders=(), num_players=4):
    state = at_action(
        "king_returns",
        num_players=num_players,
        caballeros={"aragon": {"yellow": 2, "blue": 2, "green": 2}, "granada": {"red": 3}},
        court={"red": 5, "yellow": 2, "blue": 2, "green": 2},
    )
    return holding(state, *holders)


def secret_position(card, holders):
    state = at_action(
        card,
        num_players=4,
        caballeros={"aragon": {"yellow": 2, "blue": 3, "green": 2}, "granada": {"yellow": 3, "blue": 2, "green": 2}},
    )
    return holding(state, *holders)


def at_general_scoring(caballeros, king="galicia", grandes=None, scores=None, mobile=None, short_game=False, **opts):
    """A 4-player game at the end of its first scoring round, laid out as given (all other areas
    empty), with the secret disks (if any) awaited."""
    state = game(4, seed=31, colours=COLOURS4, short_game=short_game, **opts)
    last = state.scoring_rounds[0]
    while state.round < last:
        state = quiet(state)
    layout = {area: {} for area in AREAS}
    layout.update(caballeros)
    state = lay_out(
        state,
        caballeros=layout,
        king=king,
        grandes=grandes or {"red": "aragon", "yellow": "seville", "blue": "granada", "green": "catalonia"},
        scores=scores or {c: 0 for c in COLOURS4},
        mobile=mobile,
    )
    while state.phase not in ("castillo",) and state.round == last:
        state = quiet(state)
    return state


SCENARIO = {
    "castillo": {"red": 3, "blue": 2},
    "aragon": {"red": 2, "yellow": 2},
    "galicia": {"blue": 3, "yellow": 1},
    "seville": {"yellow": 1, "green": 1},
}


def shortfall_state():
    """Red's turn with power card 4 and a single caballero left in the provinces; the King in
    Galicia (1 red there), 16 red in Aragon, 3 in Seville, 2 in the Castillo, 7 in court."""
    state = game(3, seed=9, colours=["red", "blue", "green"])
    state = play_to_turn(state, 0, {0: 4, 1: 13, 2: 12})  # blue and green play first
    assert state.phase == "court" and state.current_player == 0
    empty = {region: {} for region in REGIONS}
    state = lay_out(
        state,
        king="galicia",
        caballeros={
            **empty,
            "galicia": {"red": 1},
            "aragon": {"red": 16},
            "seville": {"red": 3},
            "castillo": {"red": 2},
        },
        court={"red": 7},
    )
    assert state.provinces[0] == 1
    return state


def perturb(state, viewer, rng):
    """The same position with every fact private to seats other than `viewer` changed: their hands,
    their played piles below the top, the stacks' order and contents, their secret choices, their
    veto answers not yet revealed and, when the Castillo is hidden, one seat's count there (moved
    to or from its provinces, so that every colour keeps 30 caballeros)."""
    other = state.clone()
    others = [s for s in range(state.num_players) if s != viewer]
    for seat in others:
        other.hands[seat] = sorted(rng.sample(POWER_CARDS, len(state.hands[seat])))
        pile = state.played[seat]
        if len(pile) > 1:
            other.played[seat] = [rng.choice(POWER_CARDS) for _ in pile[:-1]] + [pile[-1]]
    ids = sorted(CARDS)
    other.stacks = [[rng.choice(ids) for _ in stack] for stack in state.stacks]
    if other.action is not None:
        action = other.action
        if action["stage"] == "choices":
            for seat in others:
                choice = action["choices"][seat]
                if choice is not None:  # a secret disk: a region
                    action["choices"][seat] = (choice + 1) % len(REGIONS)
        for seat in others:
            answer = action["answers"][seat]
            if answer is not None:
                action["answers"][seat] = 0 if answer == -1 else -1
    if other.castillo_choices is not None:
        for seat in others:
            choice = other.castillo_choices["choices"][seat]
            if choice is not None:
                other.castillo_choices["choices"][seat] = (choice + 1) % len(REGIONS)
    if not state.show_castillo:
        counts = other.caballeros[CASTILLO_INDEX]
        movable = [seat for seat in others if other.provinces[seat] or counts[seat]]
        if movable:
            seat = rng.choice(movable)
            change = 1 if other.provinces[seat] else -1
            counts[seat] += change
            other.provinces[seat] -= change
    return other


def holding(state, *colours):
    state = state.clone()
    state.vetoes = [[SEAT[c], state.round] for c in colours]
    return state


COLOURS4 = ["red", "yellow", "blue", "green"]


def play_to_turn(state, seat, bids):
    """Bid the given values and play quietly until it is `seat`'s turn (court or card phase)."""
    while state.phase == "bid":
        bidder = to_act(state)[0]
        state = apply_move(state, bidder, {"type": "bid", "card": bids[bidder]})
    while state.current_player != seat:
        state = quiet(state)
    return state


SEAT = {"red": 0, "yellow": 1, "blue": 2, "green": 3, "brown": 4}
