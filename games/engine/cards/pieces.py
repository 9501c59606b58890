"""Cards that move the board's pieces or the players' cards: the Veto, the mobile scoreboards,
the King, the Grande, a power card taken back."""

from ..board import AREAS, MOBILE_SCOREBOARDS, SORTED_NEIGHBOUR_INDICES
from ..errors import IllegalMove, given
from ..operations import movable_regions, parse_area, parse_region
from .base import CardKind, ids


class KeepVeto(CardKind):
    def steps(self, state, taker, plan, choices):
        return [["keep_veto", taker]]

    def options(self, state, taker):
        return {"action": "keep_veto"}


class MobileScoreboard(CardKind):
    """Put a mobile scoreboard onto a region or the Castillo, or move one already on the board;
    never into or out of the King's region, never onto the other one, never off the board."""

    def movable(self, state):
        return [index for index in range(len(MOBILE_SCOREBOARDS)) if state.mobile[index] != state.king]

    def targets(self, state, index):
        return [
            area for area in range(len(AREAS)) if area not in (state.king, state.mobile[index], state.mobile[1 - index])
        ]

    def plan(self, state, taker, move):
        board = move.get("scoreboard")
        if board not in MOBILE_SCOREBOARDS:
            raise IllegalMove("choose_mobile_scoreboard", scoreboards=list(MOBILE_SCOREBOARDS))
        index = MOBILE_SCOREBOARDS.index(board)
        target = parse_area(move.get("to"))
        current = state.mobile[index]
        if current == state.king:
            raise IllegalMove("scoreboard_held_by_king")
        if target == state.king:
            raise IllegalMove("scoreboard_into_king_region")
        if target == current:
            raise IllegalMove("scoreboard_already_there", scoreboard=board, area=AREAS[target])
        if target == state.mobile[1 - index]:
            raise IllegalMove("scoreboards_same_place")
        return {"scoreboard": index, "area": target}

    def steps(self, state, taker, plan, choices):
        return [["mobile", plan["scoreboard"], plan["area"]]]

    def options(self, state, taker):
        return {
            "action": "mobile_scoreboard",
            "scoreboards": [
                {
                    "id": MOBILE_SCOREBOARDS[index],
                    "where": AREAS[state.mobile[index]] if state.mobile[index] is not None else None,
                    "targets": ids(self.targets(state, index)),
                }
                for index in self.movable(state)
            ],
        }


class MoveKing(CardKind):
    def __init__(self, *, neighbours_only, **card):
        super().__init__(**card)
        self.neighbours_only = neighbours_only

    def targets(self, state):
        if self.neighbours_only:
            return SORTED_NEIGHBOUR_INDICES[state.king]
        return movable_regions(state)

    def plan(self, state, taker, move):
        region = parse_region(move.get("to"))
        if region not in self.targets(state):
            code = "king_to_neighbour_only" if self.neighbours_only else "king_to_other_region"
            raise IllegalMove(code, area=AREAS[region])
        return {"region": region}

    def steps(self, state, taker, plan, choices):
        return [["king", plan["region"]]]

    def options(self, state, taker):
        return {"action": "move_king", "targets": ids(self.targets(state))}


class MoveGrande(CardKind):
    """Move the own Grande to any region but the King's; it becomes the home region."""

    def targets(self, state, taker):
        if state.grandes[taker] == state.king:
            return []
        return [r for r in movable_regions(state) if r != state.grandes[taker]]

    def plan(self, state, taker, move):
        region = parse_region(move.get("to"))
        if state.grandes[taker] == state.king:
            raise IllegalMove("grande_held_by_king")
        if region == state.king:
            raise IllegalMove("grande_into_king_region")
        if region == state.grandes[taker]:
            raise IllegalMove("grande_already_there", area=AREAS[region])
        return {"region": region}

    def steps(self, state, taker, plan, choices):
        return [["grande", taker, plan["region"]]]

    def options(self, state, taker):
        return {"action": "move_grande", "targets": ids(self.targets(state, taker))}


class RetakePowerCard(CardKind):
    def plan(self, state, taker, move):
        card = move.get("card")
        if isinstance(card, bool) or not isinstance(card, int) or card not in state.played[taker]:
            raise IllegalMove("retake_own_played_only", card=given(card))
        return {"card": card}

    def steps(self, state, taker, plan, choices):
        return [["retake", taker, plan["card"]]]

    def options(self, state, taker):
        return {"action": "retake_power_card", "cards": list(state.played[taker])}


