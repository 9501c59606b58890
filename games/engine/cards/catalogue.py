"""The 45 action cards and the King card, one row each, to check against RULES.md's card list.

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

# Short titles (used where a card is named) and the card texts, in English.
TEXTS = {
    "intrigue_own_region": (
        "Intrigue: own region",
        "Take all your caballeros from one region and redistribute them freely (some may go back).",
    ),
    "intrigue_court_2": (
        "Intrigue: 2 from court",
        "Put 2 more caballeros from your court into any regions and/or the Castillo (all, if fewer).",
    ),
    "intrigue_court_2_or_own_region": (
        "Intrigue: court or own region",
        "Either put 2 caballeros from court into any regions/Castillo, or redistribute all your caballeros of "
        "one region.",
    ),
    "intrigue_5_from_region": (
        "Intrigue: 5 from one region",
        "Move up to 5 caballeros of any colours from one region to other regions and/or the Castillo.",
    ),
    "intrigue_3_foreign": (
        "Intrigue: 3 foreign",
        "Move up to 3 caballeros of other players to other regions and/or the Castillo.",
    ),
    "intrigue_3_any": (
        "Intrigue: 3 of any colour",
        "Move up to 3 caballeros of any colours to other regions and/or the Castillo.",
    ),
    "intrigue_2_own_2_foreign": (
        "Intrigue: 2 own, 2 foreign",
        "Move 2 of your caballeros and 2 of other players to other regions and/or the Castillo (as many as "
        "there are, if fewer).",
    ),
    "intrigue_4_own": ("Intrigue: 4 own", "Move up to 4 of your caballeros to other regions and/or the Castillo."),
    "intrigue_4_any": (
        "Intrigue: 4 of any colour",
        "Move up to 4 caballeros of any colours to other regions and/or the Castillo.",
    ),
    "veto": (
        "Veto",
        "Keep this card: once, in this round or the next, stop all or the rest of a special action (a Veto "
        "included).",
    ),
    "decay_all": ("Decay: whole court", "Every other player sends their whole court to the provinces."),
    "decay_3": (
        "Decay: 3 from court",
        "Every other player sends 3 caballeros from court to the provinces (all, if fewer).",
    ),
    "king_returns": (
        "The King returns",
        "Every other player in turn, clockwise from your left, sends 3 own caballeros from regions and/or court to "
        "the provinces.",
    ),
    "one_each_to_provinces": (
        "One of each to the provinces",
        "Send 1 caballero of every player, your own included, from any region to the provinces.",
    ),
    "secret_two_to_provinces": (
        "Secret disk: 2 to the provinces",
        "Every other player secretly picks a region holding 2 of their caballeros (1 if none holds 2) and sends "
        "them to the provinces.",
    ),
    "secret_all_to_provinces": (
        "Secret disk: all to the provinces",
        "Every other player secretly picks a region of theirs and sends all their caballeros there to the provinces.",
    ),
    "score_one_region": (
        "Scoring: one region",
        "Score one region of your choice; the King's region and the Castillo may be chosen.",
    ),
    "score_fours": ("Scoring: the 4s", "Score every region whose 1st value is 4 (not the Castillo)."),
    "score_fives": ("Scoring: the 5s", "Score every region whose 1st value is 5 (not the Castillo)."),
    "score_six_sevens": ("Scoring: the 6s and 7s", "Score every region whose 1st value is 6 or 7 (not the Castillo)."),
    "score_castillo": ("Scoring: the Castillo", "Score the Castillo; the caballeros stay inside."),
    "score_first_only": (
        "Scoring: leaders only",
        "Score all nine regions, but only the sole leader of each scores its 1st value (with bonuses).",
    ),
    "score_most": ("Scoring: the most caballeros", "Score the region(s) with the most caballeros in total."),
    "score_least": (
        "Scoring: the fewest caballeros",
        "Score the region(s) with the fewest caballeros in total (regions with none never count).",
    ),
    "score_any_region": (
        "Scoring: any region",
        "Score one region of your choice; the King's region and the Castillo may be chosen.",
    ),
    "mobile_scoreboard": (
        "Mobile scoreboard",
        "Put a mobile scoreboard onto a region or the Castillo, or move one already on the board (never into or out "
        "of the King's region).",
    ),
    "royal_adviser": ("Royal adviser", "Move the King to a neighbouring region."),
    "eviction": (
        "Eviction",
        "Name a region: every other player there secretly picks another region and all their caballeros go there "
        "(the King's region or the same region sends them to court).",
    ),
    "move_grande": ("Grande", "Move your Grande to any region but the King's; it becomes your home region."),
    "retake_power_card": ("Power card back", "Take one of your played power cards back into your hand."),
    "court_2": ("Court: 2 from the provinces", "Move 2 of your caballeros from the provinces to your court."),
    "secret_unique_scoring": (
        "Secret disk: unique scoring",
        "Every player secretly picks a region; each region picked by exactly one player is scored.",
    ),
    "king_card": ("The King", "Move the King to any region."),
}
