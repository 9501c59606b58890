"""A special action from its announcement to its end: others' choices, the veto window, the run.

While any player other than the taker holds a usable veto, the whole plan is announced as a list
of steps and every such holder answers at once: allow, or veto with a cut (the number of steps
that still happen). The earliest cut stands and spends its card. Then anyone else still holding a
veto (the taker included) may veto that veto, and the whole plan runs. Only two veto cards exist,
so there is never a third answer.
"""

from .board import AREAS, REGION_NAMES
from .cards import CARDS
from .errors import IllegalMove
from .operations import colour_name, place_name, record
from .steps import describe, run


def usable_veto_holders(state, excluding):
    return sorted({seat for seat, _round in state.vetoes if seat not in excluding})


def spend_veto(state, seat):
    for index, (holder, _round) in enumerate(state.vetoes):
        if holder == seat:
            del state.vetoes[index]
            return


def announce(state, taker, card_id, move):
    """Start the taker's special action from a `special` move. Returns True once it is over."""
    kind = CARDS[card_id]
    plan = kind.plan(state, taker, move)
    choosers = kind.choosers(state, taker, plan)
    state.action = {
        "card": card_id,
        "taker": taker,
        "plan": plan,
        "stage": "choices",
        "awaiting": choosers,
        "choices": [None] * state.num_players,
        "steps": None,
        "answers": [None] * state.num_players,
        "cut": None,
        "vetoer": None,
    }
    record(
        state,
        "special",
        f"{colour_name(state, taker)} uses the special action of {kind.title}.",
        seat=taker,
        card=card_id,
    )
    if choosers:
        names = ", ".join(colour_name(state, seat) for seat in choosers)
        record(state, "awaiting_choices", f"Waiting for {names} to choose.")
        state.phase = "special"
        return False
    return _fix_steps(state)


def choose(state, seat, move):
    """A chooser's answer: a secret region or a share, revealed when all have chosen.
    Returns True once the action is over."""
    action = state.action
    kind = CARDS[action["card"]]
    action["choices"][seat] = kind.check_choice(state, seat, action["plan"], move)
    action["awaiting"].remove(seat)
    record(state, "chosen", f"{colour_name(state, seat)} has chosen.", seat=seat)
    if action["awaiting"]:
        return False
    _reveal(state)
    return _fix_steps(state)


def _reveal(state):
    action = state.action
    parts = []
    for seat, choice in enumerate(action["choices"]):
        if choice is None:
            continue
        if isinstance(choice, int):
            parts.append(f"{colour_name(state, seat)}: {REGION_NAMES[AREAS[choice]]}")
        else:
            share = ", ".join(f"{count} from {place_name(source)}" for source, count in choice)
            parts.append(f"{colour_name(state, seat)}: {share}")
    record(state, "reveal", "Revealed: " + "; ".join(parts) + ".", choices=action["choices"])


def _fix_steps(state):
    action = state.action
    kind = CARDS[action["card"]]
    taker = action["taker"]
    steps = kind.steps(state, taker, action["plan"], action["choices"])
    _check_runs(state, steps)
    action["steps"] = steps
    holders = usable_veto_holders(state, excluding={taker})
    if steps and holders:
        action["stage"] = "veto"
        action["awaiting"] = holders
        announced = " | ".join(f"{i + 1}. {describe(state, step)}" for i, step in enumerate(steps))
        record(state, "announce", f"{colour_name(state, taker)} announces: {announced}.", seat=taker)
        state.phase = "special"
        return False
    return _finish(state, len(steps))


def _check_runs(state, steps):
    """Every step must be possible in order; try them on a scratch copy."""
    scratch = state.clone()
    for step in steps:
        run(scratch, step)


def answer_veto(state, seat, move):
    """A holder's answer in a veto or veto-on-veto window. Returns True once the action is over."""
    action = state.action
    kind = move.get("type")
    if kind == "allow":
        action["answers"][seat] = -1
    elif kind == "veto":
        if action["stage"] == "veto":
            cut = move.get("cut", 0)
            if isinstance(cut, bool) or not isinstance(cut, int) or not 0 <= cut < len(action["steps"]):
                raise IllegalMove(
                    f"The cut must be a step number from 0 (veto the whole) to {len(action['steps']) - 1}."
                )
            action["answers"][seat] = cut
        else:
            action["answers"][seat] = 0
    else:
        raise IllegalMove("Answer the veto question: allow, or veto.")
    action["awaiting"].remove(seat)
    if action["awaiting"]:
        return False
    if action["stage"] == "veto":
        return _close_veto_window(state)
    return _close_counter_window(state)


def _close_veto_window(state):
    action = state.action
    taker = action["taker"]
    order = [(taker + offset) % state.num_players for offset in range(1, state.num_players)]
    answers = action["answers"]
    vetoes = [
        (answers[seat], position, seat)
        for position, seat in enumerate(order)
        if answers[seat] is not None and answers[seat] >= 0
    ]
    action["answers"] = [None] * state.num_players
    if not vetoes:
        record(state, "allowed", "No veto.")
        return _finish(state, len(action["steps"]))
    cut, _position, vetoer = min(vetoes)
    spend_veto(state, vetoer)
    action["cut"] = cut
    action["vetoer"] = vetoer
    if cut == 0:
        what = "the whole action"
    else:
        what = f"the action after step {cut}"
    record(state, "veto", f"{colour_name(state, vetoer)} vetoes {what}.", seat=vetoer, cut=cut)
    counter = usable_veto_holders(state, excluding={vetoer})
    if counter:
        action["stage"] = "counter_veto"
        action["awaiting"] = counter
        return False
    return _finish(state, cut)


def _close_counter_window(state):
    action = state.action
    counter = [seat for seat, answer in enumerate(action["answers"]) if answer is not None and answer >= 0]
    if counter:
        seat = counter[0]
        spend_veto(state, seat)
        record(state, "veto", f"{colour_name(state, seat)} vetoes the veto: the action goes ahead.", seat=seat)
        return _finish(state, len(action["steps"]))
    record(state, "allowed", "The veto stands.")
    return _finish(state, action["cut"])


def _finish(state, upto):
    action = state.action
    for step in action["steps"][:upto]:
        run(state, step)
    state.action = None
    state.special_done = True
    return True
