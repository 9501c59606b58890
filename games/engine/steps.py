"""Running the steps of a special action, and showing them as data to each viewer."""

from .board import AREAS, MOBILE_SCOREBOARDS
from .events import record
from .operations import award, location_id, shift
from .state import replaced


def step_data(state, step, viewer=None, reveal=False):
    """One step as plain data with ids, as the given seat may see it (None: a spectator).

    A power card taken back is named only to its owner, or when it was the top of the pile, or
    when everything is revealed (views.revealed_view).
    """
    kind = step[0]
    if kind == "shift":
        return {
            "step": "shift",
            "shifts": [
                {"seat": seat, "from": location_id(source), "to": location_id(target), "count": count}
                for seat, source, target, count in step[1]
            ],
        }
    if kind == "points":
        return {
            "step": "points",
            "area": AREAS[step[1]],
            "awards": [{"seat": seat, "points": points, "reason": reason} for seat, points, reason in step[2]],
        }
    if kind == "king":
        return {"step": "king", "region": AREAS[step[1]]}
    if kind == "mobile":
        return {"step": "mobile", "scoreboard": MOBILE_SCOREBOARDS[step[1]], "area": AREAS[step[2]]}
    if kind == "grande":
        return {"step": "grande", "seat": step[1], "region": AREAS[step[2]]}
    if kind == "retake":
        seat, card = step[1], step[2]
        data = {"step": "retake", "seat": seat}
        if reveal or viewer == seat or (state.played[seat] and state.played[seat][-1] == card):
            data["card"] = card
        return data
    if kind == "keep_veto":
        return {"step": "keep_veto", "seat": step[1]}
    raise ValueError(f"unknown step {kind}")


def run(state, step):
    """Carry out one step on the state (raising IllegalMove if it cannot be done) and record it."""
    kind = step[0]
    if kind == "shift":
        for seat, source, target, count in step[1]:
            shift(state, seat, source, target, count)
        record(state, "shift", shifts=step_data(state, step)["shifts"])
    elif kind == "points":
        award(state, step[1], step[2])
    elif kind == "king":
        state.king = step[1]
        record(state, "king", region=AREAS[step[1]])
    elif kind == "mobile":
        state.mobile = replaced(state.mobile, step[1], step[2])
        record(state, "mobile", scoreboard=MOBILE_SCOREBOARDS[step[1]], area=AREAS[step[2]])
    elif kind == "grande":
        state.grandes = replaced(state.grandes, step[1], step[2])
        record(state, "grande", seat=step[1], region=AREAS[step[2]])
    elif kind == "retake":
        _retake(state, step[1], step[2])
    elif kind == "keep_veto":
        state.vetoes = state.vetoes + [[step[1], state.round]]
        record(state, "keep_veto", seat=step[1], until_round=state.round + 1)
    else:
        raise ValueError(f"unknown step {kind}")


def _retake(state, seat, card):
    """Which card is taken back is private unless it was the top of the pile (docs/rules.md)."""
    pile = list(state.played[seat])
    was_top = pile[-1] == card
    pile.remove(card)
    state.played = replaced(state.played, seat, pile)
    state.hands = replaced(state.hands, seat, sorted(state.hands[seat] + [card]))
    if was_top:
        record(state, "retake", seat=seat, card=card)
    else:
        record(state, "retake", seat=seat)
        record(state, "retake_private", seat=seat, private=True, card=card)


def try_steps(state, steps):
    """Check that every step can run in order, on a scratch copy of the pieces they touch."""
    scratch = state.successor()
    for step in steps:
        run(scratch, step)
