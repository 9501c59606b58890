"""The scoring cards (stacks 2, 3 and 4). Several regions score in scoring order, each rank by
rank (seed 001, rule 9.3), so a veto may cut before any rank of any region."""

from ..board import AREAS, CASTILLO_INDEX, REGIONS
from ..operations import area_awards, area_values, parse_area
from .base import CardKind


def score_steps(state, areas, first_only=False):
    return [
        ["points", area, awards] for area in sorted(areas) for awards in area_awards(state, area, first_only=first_only)
    ]


class ScoreChosenArea(CardKind):
    """Score one region of the taker's choice; the King's region and the Castillo may be chosen."""

    def plan(self, state, taker, move):
        return {"area": parse_area(move.get("region"))}

    def steps(self, state, taker, plan, choices):
        return score_steps(state, [plan["area"]])

    def options(self, state, taker):
        return {"action": "score_area", "areas": list(AREAS)}


class ScoreByFirstValue(CardKind):
    """Score every region whose current 1st value is one of the card's; never the Castillo."""

    def __init__(self, *, firsts, **card):
        super().__init__(**card)
        self.firsts = firsts

    def steps(self, state, taker, plan, choices):
        return score_steps(state, [r for r in range(len(REGIONS)) if area_values(state, r)[0] in self.firsts])


class ScoreCastillo(CardKind):
    """Score the Castillo; its caballeros stay inside."""

    def steps(self, state, taker, plan, choices):
        return score_steps(state, [CASTILLO_INDEX])


class ScoreFirstOnly(CardKind):
    """All nine regions; only each sole leader scores the 1st value (with bonuses)."""

    def steps(self, state, taker, plan, choices):
        return score_steps(state, range(len(REGIONS)), first_only=True)


class ScoreByTotal(CardKind):
    """Score the region(s) with the most (or fewest) caballeros; empty regions never count."""

    def __init__(self, *, most, **card):
        super().__init__(**card)
        self.most = most

    def steps(self, state, taker, plan, choices):
        totals = {r: sum(state.caballeros[r]) for r in range(len(REGIONS))}
        totals = {r: total for r, total in totals.items() if total}
        if not totals:
            return []
        target = max(totals.values()) if self.most else min(totals.values())
        return score_steps(state, [r for r, total in totals.items() if total == target])


class SecretUniqueScoring(CardKind):
    """Every player secretly picks a region; each region picked by exactly one player is scored."""

    choice = "region"

    def choosers(self, state, taker, plan):
        return list(range(state.num_players))

    def choice_options(self, state, seat, plan):
        return list(range(len(REGIONS)))

    def steps(self, state, taker, plan, choices):
        picks = [region for region in choices if region is not None]
        return score_steps(state, [r for r in set(picks) if picks.count(r) == 1])
