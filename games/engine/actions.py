"""A special action from its announcement to its end: veto questions, others' choices, the run.

The order of events (seed 001, rules 4 and 9):

- Secret disks (eviction, the secret cards, the secret scoring): holders of a veto are first asked
  whether to stop the whole action before anyone sets a disk (9.4). Then the choosers set their
  disks at once, and all are revealed together.
- The King returns: the other players send their shares in turn, clockwise from the taker's
  left, each seeing the shares already sent (9.2); before each share, holders may stop the rest.
- Every other action, and a secret-disk action once revealed, is announced as a list of steps,
  and every holder answers at once: allow, or veto with a cut (how many steps still happen, 9.1,
  9.3). The earliest cut stands, on equal cuts the first holder clockwise from the taker's left.

A holder is anyone with a usable veto; the taker too (rule 4b: "an opponent, or the player
himself"), except where his veto could change nothing he could not have done by declining or by
announcing less (never once secret disks are revealed: he can no longer decline then). A veto
spends its card, and anyone else still holding one, the taker included, may then veto that veto:
the action then goes on as if unvetoed and both cards are spent. Only two veto cards exist, so
there is never a third answer.

`state.action` keeps the action under way as plain data:
    card, taker, plan;
    stage: "veto" | "counter_veto" (a veto question open) or "choices" | "share" (others decide);
    window: what an open veto question is about: "disks" (before any disk is set), "share"
        (before the share of the seat `order[turn]`), "plan" (the announced `steps`);
    awaiting: the seats to answer; choices: each seat's secret disk; answers: each holder's answer;
    steps: the announced steps (window "plan"); cut, vetoer: the veto that stands unless vetoed;
    turn: for the King's return, the index in plan["order"] of the next share; passed: whether
        the question before that share has been asked; sent: whether any share has been sent.
"""

from .board import AREAS
from .cards import CARDS
from .errors import IllegalMove
from .events import record
from .operations import clockwise_from_left
from .steps import run, step_data, try_steps

ALLOWED = -1


def usable_veto_holders(state, excluding=()):
    if not state.vetoes:
        return []
    return sorted({seat for seat, _round in state.vetoes if seat not in excluding})


def spend_veto(state, seat):
    for index, (holder, _round) in enumerate(state.vetoes):
        if holder == seat:
            state.vetoes = state.vetoes[:index] + state.vetoes[index + 1 :]
            return


def announce(state, taker, card_id, move):
    """Start the taker's special action from a `special` move. Returns True once it is over."""
    kind = CARDS[card_id]
    plan = kind.plan(state, taker, move)
    state.action = {
        "card": card_id,
        "taker": taker,
        "plan": plan,
        "stage": None,
        "window": None,
        "awaiting": [],
        "choices": [None] * state.num_players,
        "steps": None,
        "answers": [None] * state.num_players,
        "cut": None,
        "vetoer": None,
        "turn": 0,
        "passed": False,
        "sent": False,
    }
    record(state, "special", seat=taker, card=card_id, **_public_plan(state, kind, plan))
    state.phase = "special"
    if kind.choice == "share":
        return _next_share(state)
    if kind.choosers(state, taker, plan):
        # Stopping the whole action before the disks is what the taker does by declining it.
        holders = usable_veto_holders(state, excluding={taker})
        if holders:
            return _ask(state, "disks", holders)
        return _open_choices(state)
    return _fix_steps(state)


def _public_plan(state, kind, plan):
    """What the announcement says before any step is fixed: the order and the evicted region."""
    fields = {}
    if "order" in plan:
        fields["order"] = list(plan["order"])
    if kind.choice == "region" and "region" in plan:
        fields["region"] = AREAS[plan["region"]]
    return fields


def _ask(state, window, holders):
    """Open a veto question to the holders; nothing else happens until all have answered."""
    action = state.action
    action["stage"] = "veto"
    action["window"] = window
    action["awaiting"] = list(holders)
    action["answers"] = [None] * state.num_players
    fields = {"window": window, "holders": list(holders)}
    if window == "share":
        fields["before"] = action["plan"]["order"][action["turn"]]
    elif window == "plan":
        fields["steps"] = [step_data(state, step) for step in action["steps"]]
    record(state, "veto_question", seat=action["taker"], **fields)
    return False


# --- secret disks ---------------------------------------------------------------------------------


def _open_choices(state):
    action = state.action
    kind = CARDS[action["card"]]
    action["stage"] = "choices"
    action["window"] = None
    action["awaiting"] = kind.choosers(state, action["taker"], action["plan"])
    record(state, "awaiting_choices", seats=list(action["awaiting"]))
    return False


def choose(state, seat, move):
    """A chooser's secret disk, revealed when all have chosen. Returns True once the action is over."""
    action = state.action
    kind = CARDS[action["card"]]
    action["choices"][seat] = kind.check_choice(state, seat, action["plan"], move)
    action["awaiting"].remove(seat)
    record(state, "chosen", seat=seat)
    if action["awaiting"]:
        return False
    choices = enumerate(action["choices"])
    revealed = [{"seat": s, "region": AREAS[choice]} for s, choice in choices if choice is not None]
    record(state, "reveal", choices=revealed)
    return _fix_steps(state)


# --- the announced plan ---------------------------------------------------------------------------


def _fix_steps(state):
    action = state.action
    kind = CARDS[action["card"]]
    taker = action["taker"]
    steps = kind.steps(state, taker, action["plan"], action["choices"])
    action["steps"] = steps
    # Once disks are revealed the taker can no longer decline: he is asked even for one step (9.4, 4b).
    revealed = any(choice is not None for choice in action["choices"])
    excluding = () if revealed or kind.taker_may_cut(action["plan"], steps) else {taker}
    holders = usable_veto_holders(state, excluding=excluding)
    if steps and holders:
        # A plan is announced only if all of it can run. Unannounced, it simply runs: a step that
        # cannot raises IllegalMove, and apply_move drops the half-changed copy.
        try_steps(state, steps)
        return _ask(state, "plan", holders)
    return _finish(state, len(steps))


def _finish(state, upto):
    action = state.action
    for step in action["steps"][:upto]:
        run(state, step)
    return _end(state)


def _end(state):
    state.action = None
    state.special_done = True
    return True


# --- the King's return: shares in turn ------------------------------------------------------------


def _next_share(state):
    """Go on with the shares in turn until one needs a decision or all are sent."""
    action = state.action
    kind = CARDS[action["card"]]
    order = action["plan"]["order"]
    while action["turn"] < len(order):
        seat = order[action["turn"]]
        if not kind.needed(state, seat):
            record(state, "share_none", seat=seat)
            action["turn"] += 1
            continue
        if not action["passed"]:
            action["passed"] = True
            # Before the first share, stopping the whole action is what the taker does by declining.
            excluding = () if action["sent"] else {action["taker"]}
            holders = usable_veto_holders(state, excluding=excluding)
            if holders:
                return _ask(state, "share", holders)
        if kind.must_choose(state, seat):
            action["stage"] = "share"
            action["window"] = None
            action["awaiting"] = [seat]
            return False
        _send_share(state, seat, kind.forced_share(state, seat))
    return _end(state)


def restart_shares(state):
    """A King's return stored by the engine of before the revised rulings, which collected the
    shares at once and in secret: nothing was revealed or sent yet, so its shares start again in
    turn. Returns True once the action is over."""
    action = state.action
    action.update(
        plan={"order": clockwise_from_left(state, action["taker"])},
        stage=None,
        window=None,
        awaiting=[],
        choices=[None] * state.num_players,
        answers=[None] * state.num_players,
        steps=None,
        turn=0,
        passed=False,
        sent=False,
    )
    return _next_share(state)


def _send_share(state, seat, share):
    action = state.action
    run(state, CARDS[action["card"]].share_step(seat, share))
    action["sent"] = True
    action["turn"] += 1
    action["passed"] = False


def share(state, seat, move):
    """The sharer's own share, sent at once. Returns True once the action is over."""
    kind = CARDS[state.action["card"]]
    _send_share(state, seat, kind.check_share(state, seat, move))
    return _next_share(state)


# --- veto questions -------------------------------------------------------------------------------


def answer_veto(state, seat, move):
    """A holder's answer to a veto question or a veto-on-veto question. Returns True once the
    action is over."""
    action = state.action
    kind = move.get("type")
    if kind == "allow":
        action["answers"][seat] = ALLOWED
    elif kind == "veto":
        action["answers"][seat] = _cut(action, move) if action["stage"] == "veto" else 0
    else:
        raise IllegalMove("answer_veto")
    action["awaiting"].remove(seat)
    if action["awaiting"]:
        return False
    if action["stage"] == "veto":
        return _close_veto_question(state)
    return _close_counter_question(state)


def _cut(action, move):
    """How many announced steps still happen under this veto; before disks or a share, none."""
    cut = move.get("cut", 0)
    last = len(action["steps"]) - 1 if action["window"] == "plan" else 0
    if isinstance(cut, bool) or not isinstance(cut, int) or not 0 <= cut <= last:
        if last == 0:
            raise IllegalMove("veto_cut_only_zero")
        raise IllegalMove("veto_cut_range", last=last)
    return cut


def _close_veto_question(state):
    action = state.action
    taker = action["taker"]
    # Clockwise from the taker's left, the taker last.
    order = [(taker + offset) % state.num_players for offset in range(1, state.num_players + 1)]
    answers = action["answers"]
    vetoes = [
        (answers[seat], position, seat)
        for position, seat in enumerate(order)
        if answers[seat] is not None and answers[seat] != ALLOWED
    ]
    action["answers"] = [None] * state.num_players
    if not vetoes:
        record(state, "allowed", window=action["window"])
        return _go_on(state)
    cut, _position, vetoer = min(vetoes)
    spend_veto(state, vetoer)
    action["cut"] = cut
    action["vetoer"] = vetoer
    fields = {"window": action["window"]}
    if action["window"] == "plan":
        fields["cut"] = cut
    elif action["window"] == "share":
        fields["before"] = action["plan"]["order"][action["turn"]]
    record(state, "veto", seat=vetoer, **fields)
    counter = usable_veto_holders(state, excluding={vetoer})
    if counter:
        action["stage"] = "counter_veto"
        action["awaiting"] = counter
        return False
    return _veto_stands(state)


def _close_counter_question(state):
    action = state.action
    counter = [seat for seat, answer in enumerate(action["answers"]) if answer is not None and answer != ALLOWED]
    action["answers"] = [None] * state.num_players
    if counter:
        seat = counter[0]
        spend_veto(state, seat)
        record(state, "counter_veto", seat=seat, vetoer=action["vetoer"])
        action["cut"] = action["vetoer"] = None
        return _go_on(state)
    record(state, "veto_stands", seat=action["vetoer"])
    return _veto_stands(state)


def _go_on(state):
    """The question is answered without a veto that stands: the action goes on where it was."""
    window = state.action["window"]
    if window == "disks":
        return _open_choices(state)
    if window == "share":
        return _next_share(state)
    return _finish(state, len(state.action["steps"]))


def _veto_stands(state):
    if state.action["window"] == "plan":
        return _finish(state, state.action["cut"])
    return _end(state)
