"""The 45 action cards and the King card, one row each, to check against docs/rules.md's card list.

`kind` is the rule that carries out the special action (intrigue.py, provinces.py, scorings.py,
pieces.py); the numbers after it are that rule's. Every card also lets its taker place from court
as many caballeros as its stack number.
"""

from .intrigue import CourtToRegions, EitherOf, Eviction, MoveCaballeros, OwnRegion
from .pieces import KeepVeto, MobileScoreboard, MoveGrande, MoveKing, RetakePowerCard
from .provinces import CourtFromProvinces, Decay, KingReturns, OneEachToProvinces, SecretToProvinces
from .scorings import (
    ScoreByFirstValue,
    ScoreByTotal,
    ScoreCastillo,
    ScoreChosenArea,
    ScoreFirstOnly,
    SecretUniqueScoring,
)

# fmt: off
CATALOGUE = (
    # stack 1: intrigue (11)
    dict(id="intrigue_own_region",            stack=1, copies=1, kind=OwnRegion),
    dict(id="intrigue_court_2",               stack=1, copies=1, kind=CourtToRegions, count=2),
    dict(id="intrigue_court_2_or_own_region", stack=1, copies=1, kind=EitherOf,
         options=("intrigue_court_2", "intrigue_own_region")),
    dict(id="intrigue_5_from_region",         stack=1, copies=2, kind=MoveCaballeros, total=5, one_source=True),
    dict(id="intrigue_3_foreign",             stack=1, copies=1, kind=MoveCaballeros, foreign=3),
    dict(id="intrigue_3_any",                 stack=1, copies=1, kind=MoveCaballeros, total=3),
    dict(id="intrigue_2_own_2_foreign",       stack=1, copies=2, kind=MoveCaballeros, own=2, foreign=2, exact=True),
    dict(id="intrigue_4_own",                 stack=1, copies=1, kind=MoveCaballeros, own=4),
    dict(id="intrigue_4_any",                 stack=1, copies=1, kind=MoveCaballeros, total=4),
    # stack 2 (11)
    dict(id="veto",                           stack=2, copies=2, kind=KeepVeto),
    dict(id="decay_all",                      stack=2, copies=1, kind=Decay, count=None),
    dict(id="decay_3",                        stack=2, copies=1, kind=Decay, count=3),
    dict(id="king_returns",                   stack=2, copies=1, kind=KingReturns),
    dict(id="one_each_to_provinces",          stack=2, copies=1, kind=OneEachToProvinces),
    dict(id="secret_two_to_provinces",        stack=2, copies=1, kind=SecretToProvinces, count=2),
    dict(id="secret_all_to_provinces",        stack=2, copies=1, kind=SecretToProvinces, count=None),
    dict(id="score_one_region",               stack=2, copies=3, kind=ScoreChosenArea),
    # stack 3 (11)
    dict(id="score_fours",                    stack=3, copies=2, kind=ScoreByFirstValue, firsts=(4,)),
    dict(id="score_fives",                    stack=3, copies=2, kind=ScoreByFirstValue, firsts=(5,)),
    dict(id="score_six_sevens",               stack=3, copies=1, kind=ScoreByFirstValue, firsts=(6, 7)),
    dict(id="score_castillo",                 stack=3, copies=2, kind=ScoreCastillo),
    dict(id="score_first_only",               stack=3, copies=1, kind=ScoreFirstOnly),
    dict(id="score_most",                     stack=3, copies=1, kind=ScoreByTotal, most=True),
    dict(id="score_least",                    stack=3, copies=1, kind=ScoreByTotal, most=False),
    dict(id="score_any_region",               stack=3, copies=1, kind=ScoreChosenArea),
    # stack 4 (11)
    dict(id="mobile_scoreboard",              stack=4, copies=3, kind=MobileScoreboard),
    dict(id="royal_adviser",                  stack=4, copies=1, kind=MoveKing, neighbours_only=True),
    dict(id="eviction",                       stack=4, copies=1, kind=Eviction),
    dict(id="move_grande",                    stack=4, copies=2, kind=MoveGrande),
    dict(id="retake_power_card",              stack=4, copies=2, kind=RetakePowerCard),
    dict(id="court_2",                        stack=4, copies=1, kind=CourtFromProvinces, count=2),
    dict(id="secret_unique_scoring",          stack=4, copies=1, kind=SecretUniqueScoring),
    # stack 5: the King card, on offer every round
    dict(id="king_card",                      stack=5, copies=1, kind=MoveKing, neighbours_only=False),
)
# fmt: on
