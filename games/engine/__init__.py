"""The El Grande rules engine: pure Python, no Django. See README.md for the move vocabulary."""

from .errors import IllegalMove
from .events import visible_events
from .moves import legal_moves
from .random_play import random_move
from .rounds import apply_move, new_game, to_act
from .state import GameState
from .views import revealed_view, view_for

__all__ = [
    "GameState",
    "IllegalMove",
    "apply_move",
    "legal_moves",
    "new_game",
    "random_move",
    "revealed_view",
    "to_act",
    "view_for",
    "visible_events",
]
