"""The whole position of a game, as plain data that copies cheaply and round-trips through JSON.

The state holds only what the rules need. What happened (the log) is not part of it: every
`apply_move` leaves the events of that one move in `state.events` (see events.py), and whoever
stores the game keeps them beside the move.
"""

# Pseudo-locations used by caballero shifts besides the ten areas.
COURT = -1
PROVINCES = -2

# Fields holding only immutable values (numbers, strings, booleans, None, tuples).
_SCALARS = (
    "num_players",
    "seed",
    "short_game",
    "veto_enabled",
    "show_castillo",
    "king",
    "round",
    "first_bidder",
    "turn_index",
    "phase",
    "placed",
    "special_done",
    "scorings_done",
)
# Flat lists of immutable values.
_LISTS = ("colours", "grandes", "court", "provinces", "scores", "bids", "turn_order", "display", "taken", "mobile")
# Lists of flat lists.
_NESTED = ("caballeros", "hands", "played", "stacks", "vetoes")
# Nested plain data of the special action or general scoring under way (or None).
_DEEP = ("action", "castillo_choices")

_FIELDS = _SCALARS + _LISTS + _NESTED + _DEEP


def num_rounds(short_game):
    """Rounds played: 9, or 6 in the short game."""
    return 6 if short_game else 9


def scoring_rounds(short_game):
    """The rounds after which a general scoring follows (the short game skips 1, 4 and 7)."""
    return (2, 4, 6) if short_game else (3, 6, 9)


def copy_data(value):
    """A copy of plain JSON-like data (dicts, lists, scalars); faster than copy.deepcopy."""
    if isinstance(value, list):
        return [copy_data(item) for item in value]
    if isinstance(value, dict):
        return {key: copy_data(item) for key, item in value.items()}
    return value


class GameState:
    """Mutable inside the engine only: `apply_move` works on a clone and returns it.

    caballeros[area][seat] counts each colour in the nine regions (0–8, scoring order) and the
    Castillo (9). hands/played are each seat's power cards; played[seat][-1] is the top of the pile.
    vetoes lists [seat, round taken] for every veto card held. action is the special action under
    way (its plan, the choices still awaited, its announced steps and the veto answers).
    events are the events of the move that made this state (not saved).
    """

    __slots__ = _FIELDS + ("events",)

    def clone(self):
        """A copy to change: everything a move may change is copied, the rest shared."""
        other = GameState.__new__(GameState)
        for field in _SCALARS:
            setattr(other, field, getattr(self, field))
        other.colours = self.colours
        for field in _LISTS[1:]:
            setattr(other, field, getattr(self, field)[:])
        for field in _NESTED:
            setattr(other, field, [row[:] for row in getattr(self, field)])
        other.action = copy_data(self.action)
        other.castillo_choices = copy_data(self.castillo_choices)
        other.events = []
        return other

    @property
    def is_over(self):
        return self.phase == "over"

    @property
    def num_rounds(self):
        return num_rounds(self.short_game)

    @property
    def scoring_rounds(self):
        return scoring_rounds(self.short_game)

    @property
    def current_player(self):
        """The seat whose turn it is in the turn phases, else None."""
        if self.phase in ("court", "card", "action", "special"):
            return self.turn_order[self.turn_index]
        return None

    def to_json(self):
        """The state as plain JSON types; a copy, so the state may change afterwards."""
        data = {field: getattr(self, field) for field in _SCALARS}
        for field in _LISTS:
            data[field] = list(getattr(self, field))
        for field in _NESTED:
            data[field] = [list(row) for row in getattr(self, field)]
        data["action"] = copy_data(self.action)
        data["castillo_choices"] = copy_data(self.castillo_choices)
        return data

    @classmethod
    def from_json(cls, data):
        """A state from `to_json`'s result (decoded JSON). Keys it does not know are ignored, so a
        game saved with a log by earlier versions still loads."""
        missing = [field for field in _FIELDS if field not in data]
        if missing:
            raise ValueError(f"Not a saved El Grande game: missing {', '.join(missing)}.")
        state = cls.__new__(cls)
        for field in _SCALARS:
            setattr(state, field, data[field])
        for field in _LISTS:
            setattr(state, field, list(data[field]))
        for field in _NESTED:
            setattr(state, field, [list(row) for row in data[field]])
        state.action = copy_data(data["action"])
        state.castillo_choices = copy_data(data["castillo_choices"])
        state.events = []
        return state

    def __eq__(self, other):
        if not isinstance(other, GameState):
            return NotImplemented
        return all(getattr(self, field) == getattr(other, field) for field in _FIELDS)

    def __repr__(self):
        return f"<GameState {self.num_players}p round {self.round} phase {self.phase}>"
