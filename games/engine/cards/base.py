"""What every kind of action card has in common, and the checks all special actions share.

A kind turns the taker's `special` move into a plan (plain data), says who else must decide
before its steps exist, and turns plan and choices into steps. A step is plain data, run by
`steps.py`:

    ["shift", [[seat, from, to, count], ...]]   caballeros of one or more colours change place
    ["points", area, [[seat, points, reason], ...]]   one rank of one area's scoring
    ["king", region]  ["mobile", scoreboard index, area]  ["grande", seat, region]
    ["retake", seat, power card]  ["keep_veto", seat]

Steps are the units a veto may cut before (seed 001, rule 9).
"""

from ..board import AREAS, CASTILLO_INDEX
from ..errors import IllegalMove
from ..operations import parse_region


def ids(areas):
    return [AREAS[area] for area in areas]


class CardKind:
    """One kind of action card. Subclasses say what the special action does.

    `choice` is "region" when other players pick secret disks before the steps exist, "share"
    when they send caballeros one after another (the King returns). `up_to` is True when the card
    lets its taker do less than its full count ("up to"): cutting his own announced plan could then
    change nothing he could not have announced himself (seed 001, rule 4).
    """

    choice = None
    up_to = False

    def __init__(self, *, id, stack, copies):
        self.id = id
        self.stack = stack
        self.copies = copies

    @property
    def placement(self):
        """How many caballeros the card lets its taker place from court."""
        return self.stack

    def plan(self, state, taker, move):
        """Check the move's fields against the position and return the plan as plain data."""
        return {}

    def choosers(self, state, taker, plan):
        """The seats that must pick a secret disk (all at once) before the steps can be fixed."""
        return []

    def choice_options(self, state, seat, plan):
        """The regions a chooser may pick."""
        return []

    def check_choice(self, state, seat, plan, move):
        """Validate a chooser's move and return the choice as plain data."""
        if move.get("type") != "choose_region":
            raise IllegalMove("choose_region_expected")
        region = parse_region(move.get("region"))
        if region not in self.choice_options(state, seat, plan):
            raise IllegalMove("region_not_a_choice", area=AREAS[region])
        return region

    def steps(self, state, taker, plan, choices):
        raise NotImplementedError

    def taker_may_cut(self, plan, steps):
        """Whether a taker holding a veto is asked in his own action's window: only where his cut
        could change something he could not have announced (seed 001, rule 4b)."""
        return len(steps) > 1 and not self.up_to

    def options(self, state, taker):
        """The choices the rules allow the taker, in rule terms (area ids, colours, counts):
        `action` names what the card does; the engine still checks the move itself."""
        return {"action": "none"}


def check_special_move(state, source, target):
    if source == CASTILLO_INDEX:
        raise IllegalMove("castillo_closed")
    if source == state.king or target == state.king:
        raise IllegalMove("king_region_closed")
    if source == target:
        raise IllegalMove("move_elsewhere", area=AREAS[source])
