"""Positions consistent with what one seat sees: determinization.

A computer player knows only `view_for(state, seat)`. To look ahead it needs whole positions, so it
deals what it cannot see at random, consistently with its view:

- the other seats' hands: their size is shown and the top of each pile, so a hand is a random
  choice of the right size among the other twelve cards, and the rest of the pile lies beneath;
- the face-down stacks: their size is shown, their cards are drawn from each stack's catalogue
  less the cards face up or taken this round (and the veto cards held from earlier rounds);
- secret disks already set by others, the Castillo choices already made, and other holders' veto
  answers (taken as "allow");
- the Castillo's per-colour counts when the game hides them. The provinces are shown, and with
  conservation (30 caballeros a colour) they would give the hidden counts away; a computer player
  does not work them out that way. For another seat it reads only what its provinces and the
  Castillo hold together (30 less its court and regions, all public) and draws the split;
- what the view does not say: whether the player whose turn it is has already placed, during his
  action or his special action, is drawn too.

The result is an ordinary GameState: the engine's own rules then run on it.
"""

from games.engine import GameState
from games.engine.board import AREA_INDEX, CASTILLO_INDEX, MOBILE_SCOREBOARDS, POWER_CARDS, REGIONS
from games.engine.cards import CARDS, stack_cards
from games.engine.state import COURT, PROVINCES

CABALLEROS_PER_COLOUR = 30
_LOCATIONS = {"court": COURT, "provinces": PROVINCES}


def sample_state(view, rng):
    """A GameState that `view_for(…, view["seat"])` would show as `view` (see the module's notes for
    what is drawn with `rng`)."""
    seat = view["seat"]
    if seat is None:
        raise ValueError("a computer player needs a seat's view, not the spectators'")
    options = view["options"]
    players = view["players"]
    n = options["num_players"]
    state = GameState.__new__(GameState)
    state.num_players = n
    state.seed = 0
    state.short_game = options["short_game"]
    state.veto_enabled = options["veto"]
    state.show_castillo = options["show_castillo"]
    state.king = AREA_INDEX[view["king"]]
    state.round = view["round"]
    state.phase = view["phase"]
    state.colours = [player["colour"] for player in players]
    state.grandes = [AREA_INDEX[player["home"]] for player in players]
    state.court = [player["court"] for player in players]
    state.provinces = [player["provinces"] for player in players]
    state.scores = [player["score"] for player in players]
    state.bids = [player["bid"] for player in players]
    state.taken = [player["card"] for player in players]
    state.turn_order = list(view["turn_order"])
    state.turn_index = state.turn_order.index(view["current"]) if view["current"] is not None else 0
    state.display = [card["id"] for card in view["cards"]]
    state.mobile = [_area(view["mobile_scoreboards"][board]) for board in MOBILE_SCOREBOARDS]
    state.vetoes = sorted(
        ([player["seat"], veto["expires_round"] - 1] for player in players for veto in player["vetoes"]),
        key=lambda entry: (entry[1], entry[0]),
    )
    state.scorings_done = _scorings_done(view)
    state.first_bidder = _first_bidder(view, n)
    state.placed, state.special_done = _turn_progress(view, rng)
    index = {colour: s for s, colour in enumerate(state.colours)}
    state.caballeros = [[0] * n for _ in range(len(REGIONS) + 1)]
    for region in view["regions"]:
        row = state.caballeros[AREA_INDEX[region["id"]]]
        for colour, count in region["caballeros"].items():
            row[index[colour]] = count
    state.hands, state.played = _deal_power_cards(view, seat, rng)
    state.stacks = _deal_stacks(view, state, rng)
    state.action = None
    state.castillo_choices = None
    state.events = []
    if state.phase == "special":
        state.action = _action(view, state, rng)
    _fill_castillo(view, state, rng)
    if state.phase == "special":
        _choices_made(view, state, rng)
    if state.phase == "castillo":
        state.castillo_choices = _castillo_choices(view, state, rng)
    return state


def _area(area_id):
    return AREA_INDEX[area_id] if area_id is not None else None


def _scorings_done(view):
    if view["is_over"]:
        return len(view["scoring_rounds"])
    return sum(1 for r in view["scoring_rounds"] if r < view["round"])


def _first_bidder(view, n):
    """Only the bidding needs it: the seat to bid, less the bids made."""
    if view["phase"] != "bid":
        return 0
    made = sum(1 for player in view["players"] if player["bid"] is not None)
    return (view["to_act"][0] - made) % n


def _turn_progress(view, rng):
    """(placed, special_done) of the player whose turn it is."""
    phase = view["phase"]
    if phase == "action":
        decision = view["decision"]
        if decision is not None:
            return not decision["can_place"], not decision["can_special"]
        return rng.choice([(False, False), (True, False), (False, True)])
    if phase == "special":
        return rng.random() < 0.5, False
    return False, False


def _deal_power_cards(view, seat, rng):
    hands, played = [], []
    for player in view["players"]:
        if player["seat"] == seat:
            hands.append(list(view["hand"]))
            played.append(list(view["played"]))
            continue
        top = player["played_top"]
        unseen = [card for card in POWER_CARDS if card != top]
        hand = sorted(rng.sample(unseen, player["hand_size"]))
        below = [card for card in unseen if card not in hand]
        rng.shuffle(below)
        hands.append(hand)
        played.append(below + ([top] if top is not None else []))
    return hands, played


def _deal_stacks(view, state, rng):
    out = list(state.display) + [card for card in state.taken if card is not None]
    out += ["veto" for _seat, taken in state.vetoes if taken < state.round]
    stacks = []
    for stack in view["stacks"]:
        pool = stack_cards(stack["stack"], veto=state.veto_enabled)
        for card in out:
            if card in pool and CARDS[card].stack == stack["stack"]:
                pool.remove(card)
        if len(pool) < stack["remaining"]:
            pool = stack_cards(stack["stack"], veto=state.veto_enabled)
        stacks.append(rng.sample(pool, stack["remaining"]))
    return stacks


def _fill_castillo(view, state, rng):
    """The Castillo row, and the other seats' provinces when the Castillo is hidden."""
    castillo = view["castillo"]
    row = state.caballeros[CASTILLO_INDEX]
    if castillo["caballeros"] is not None:
        for s, colour in enumerate(state.colours):
            row[s] = castillo["caballeros"].get(colour, 0)
        return
    seat = view["seat"]
    row[seat] = castillo["own"]
    awaiting = set(view["pending"]["awaiting"]) if view["phase"] == "castillo" else set()
    need = _provinces_needed(state)
    last = max([r for r in view["scoring_rounds"] if r < view["round"]], default=0)
    spread = max(2, 2 * (view["round"] - last))
    for s in range(state.num_players):
        if s == seat:
            continue
        on_board = sum(state.caballeros[area][s] for area in range(len(REGIONS)))
        reserve = CABALLEROS_PER_COLOUR - state.court[s] - on_board
        most = max(0, min(reserve - need[s], spread))
        least = min(1, most) if s in awaiting else 0
        row[s] = rng.randint(least, most)
        state.provinces[s] = reserve - row[s]


def _provinces_needed(state):
    """Caballeros each seat must have in the provinces for the announced steps to run."""
    need = [0] * state.num_players
    if state.action is not None and state.action["steps"]:
        for step in state.action["steps"]:
            if step[0] == "shift":
                for s, source, _target, count in step[1]:
                    if source == PROVINCES:
                        need[s] += count
    return need


def _action(view, state, rng):
    pending = view["pending"]
    taker = pending["taker"]
    kind = CARDS[pending["card"]]
    plan = {}
    if "order" in pending:
        plan["order"] = list(pending["order"])
    if "region" in pending:
        plan["region"] = AREA_INDEX[pending["region"]]
    turn = 0
    passed = sent = False
    if kind.choice == "share":
        order = plan.setdefault("order", [(taker + k) % state.num_players for k in range(1, state.num_players)])
        turn = order.index(pending["before"])
        passed, sent = True, turn > 0
    window = pending["window"]
    stage = pending["kind"]
    return {
        "card": pending["card"],
        "taker": taker,
        "plan": plan,
        "stage": stage,
        "window": window,
        "awaiting": list(pending["awaiting"]),
        "choices": [None] * state.num_players,
        "steps": [_step(data, state, rng) for data in pending["steps"]] if pending["steps"] is not None else None,
        "answers": [None] * state.num_players,
        "cut": pending["cut"],
        "vetoer": pending["vetoer"],
        "turn": turn,
        "passed": passed,
        "sent": sent,
    }


def _choices_made(view, state, rng):
    """Secret disks: one's own as the view shows it; the others already set are drawn."""
    action = state.action
    if action["stage"] != "choices":
        return
    pending = view["pending"]
    kind = CARDS[action["card"]]
    seat = view["seat"]
    for s in kind.choosers(state, action["taker"], action["plan"]):
        if s in action["awaiting"]:
            continue
        if s == seat:
            action["choices"][s] = AREA_INDEX[pending["own_choice"]]
        else:
            action["choices"][s] = rng.choice(kind.choice_options(state, s, action["plan"]))


def _castillo_choices(view, state, rng):
    pending = view["pending"]
    seat = view["seat"]
    awaiting = list(pending["awaiting"])
    choices = [None] * state.num_players
    for s in range(state.num_players):
        if s in awaiting or not state.caballeros[CASTILLO_INDEX][s]:
            continue
        if s == seat:
            choices[s] = AREA_INDEX[pending["own_choice"]]
        else:
            choices[s] = rng.randrange(len(REGIONS))
    return {"awaiting": awaiting, "choices": choices}


def _step(data, state, rng):
    """An announced step back from its data (steps.step_data) to the engine's form."""
    kind = data["step"]
    if kind == "shift":
        return [
            "shift",
            [[s["seat"], _location(s["from"]), _location(s["to"]), s["count"]] for s in data["shifts"]],
        ]
    if kind == "points":
        return ["points", AREA_INDEX[data["area"]], [[a["seat"], a["points"], a["reason"]] for a in data["awards"]]]
    if kind == "king":
        return ["king", AREA_INDEX[data["region"]]]
    if kind == "mobile":
        return ["mobile", MOBILE_SCOREBOARDS.index(data["scoreboard"]), AREA_INDEX[data["area"]]]
    if kind == "grande":
        return ["grande", data["seat"], AREA_INDEX[data["region"]]]
    if kind == "retake":
        seat = data["seat"]
        card = data.get("card")
        if card is None:  # taken from below the top of a pile the viewer cannot see
            card = rng.choice(state.played[seat][:-1])
        return ["retake", seat, card]
    if kind == "keep_veto":
        return ["keep_veto", data["seat"]]
    raise ValueError(f"unknown step {kind!r}")


def _location(location_id):
    return _LOCATIONS[location_id] if location_id in _LOCATIONS else AREA_INDEX[location_id]
