"""Running the steps of a special action, and describing them to each viewer."""

from .board import AREAS, MOBILE_SCOREBOARDS, REGION_NAMES
from .operations import award, colour_name, place_name, plural, record, shift
from .state import COURT, PROVINCES


def describe(state, step, viewer=None):
    """A sentence for one step, as the given seat may read it (None: a spectator)."""
    kind = step[0]
    if kind == "shift":
        return "; ".join(_describe_shift(state, *entry) for entry in step[1])
    if kind == "points":
        area, awards = step[1], step[2]
        parts = [f"{colour_name(state, seat)} {points} ({reason})" for seat, points, reason in awards]
        return f"{place_name(area)}: " + ", ".join(parts)
    if kind == "king":
        return f"The King moves to {REGION_NAMES[AREAS[step[1]]]}"
    if kind == "mobile":
        return f"The {MOBILE_SCOREBOARDS[step[1]]} scoreboard goes to {place_name(step[2])}"
    if kind == "grande":
        return f"{colour_name(state, step[1])}'s Grande moves to {REGION_NAMES[AREAS[step[2]]]}"
    if kind == "retake":
        seat, card = step[1], step[2]
        if viewer == seat or (state.played[seat] and state.played[seat][-1] == card):
            return f"{colour_name(state, seat)} takes power card {card} back into hand"
        return f"{colour_name(state, seat)} takes a played power card back into hand"
    if kind == "keep_veto":
        return f"{colour_name(state, step[1])} keeps the Veto card"
    raise ValueError(f"unknown step {kind}")


def _describe_shift(state, seat, source, target, count):
    who = colour_name(state, seat)
    if source == COURT and target == PROVINCES:
        return f"{who} sends {plural(count)} from court to the provinces"
    if target == PROVINCES:
        return f"{who} sends {plural(count)} from {place_name(source)} to the provinces"
    if source == PROVINCES:
        return f"{who} moves {plural(count)} from the provinces to court"
    if source == COURT:
        return f"{who} puts {plural(count)} from court into {place_name(target)}"
    if target == COURT:
        return f"{plural(count, state.colours[seat] + ' caballero')} go from {place_name(source)} to court"
    return (
        f"{plural(count, state.colours[seat] + ' caballero')} moved from {place_name(source)} to {place_name(target)}"
    )


def run(state, step):
    """Carry out one step on the state (raising IllegalMove if it cannot be done) and log it."""
    kind = step[0]
    if kind == "shift":
        for seat, source, target, count in step[1]:
            shift(state, seat, source, target, count)
        record(state, "shift", describe(state, step) + ".", shifts=step[1])
    elif kind == "points":
        award(state, step[1], step[2])
    elif kind == "king":
        state.king = step[1]
        record(state, "king", describe(state, step) + ".", region=AREAS[step[1]])
    elif kind == "mobile":
        state.mobile[step[1]] = step[2]
        record(
            state, "mobile", describe(state, step) + ".", scoreboard=MOBILE_SCOREBOARDS[step[1]], area=AREAS[step[2]]
        )
    elif kind == "grande":
        state.grandes[step[1]] = step[2]
        record(state, "grande", describe(state, step) + ".", seat=step[1], region=AREAS[step[2]])
    elif kind == "retake":
        _retake(state, step)
    elif kind == "keep_veto":
        state.vetoes.append([step[1], state.round])
        record(
            state,
            "keep_veto",
            f"{colour_name(state, step[1])} keeps the Veto card until the end of round {state.round + 1}.",
            seat=step[1],
        )
    else:
        raise ValueError(f"unknown step {kind}")


def _retake(state, step):
    seat, card = step[1], step[2]
    public = describe(state, step) + "."
    private = describe(state, step, viewer=seat) + "."
    was_top = state.played[seat][-1] == card
    pile = state.played[seat]
    pile.remove(card)
    state.hands[seat].append(card)
    state.hands[seat].sort()
    if was_top:
        record(state, "retake", public, seat=seat, card=card)
    else:
        record(state, "retake", public, seat=seat)
        record(state, "retake_private", private, seat=seat, private=True, card=card)
