"""The whole position of a game, as plain data that copies cheaply and round-trips through JSON."""

import copy

# Pseudo-locations used by caballero shifts besides the ten areas.
COURT = -1
PROVINCES = -2

_FIELDS = (
    "num_players",
    "seed",
    "short_game",
    "veto_enabled",
    "show_castillo",
    "colours",
    "king",
    "grandes",
    "caballeros",
    "court",
    "provinces",
    "scores",
    "hands",
    "played",
    "round",
    "first_bidder",
    "bids",
    "turn_order",
    "turn_index",
    "stacks",
    "display",
    "taken",
    "mobile",
    "vetoes",
    "phase",
    "placed",
    "special_done",
    "action",
    "castillo_choices",
    "scorings_done",
    "log",
)


def num_rounds(short_game):
    """Rounds played: 9, or 6 in the short game."""
    return 6 if short_game else 9


def scoring_rounds(short_game):
    """The rounds after which a general scoring follows (the short game skips 1, 4 and 7)."""
    return (2, 4, 6) if short_game else (3, 6, 9)


class GameState:
    """Mutable inside the engine only: `apply_move` works on a clone and returns it.

    caballeros[area][seat] counts each colour in the nine regions (0–8, scoring order) and the
    Castillo (9). hands/played are each seat's power cards; played[seat][-1] is the top of the pile.
    vetoes lists [seat, round taken] for every veto card held. action is the special action under
    way (its plan, the choices still awaited, its announced steps and the veto answers).
    """

    __slots__ = _FIELDS

    def clone(self):
        other = GameState.__new__(GameState)
        other.num_players = self.num_players
        other.seed = self.seed
        other.short_game = self.short_game
        other.veto_enabled = self.veto_enabled
        other.show_castillo = self.show_castillo
        other.colours = self.colours
        other.king = self.king
        other.grandes = self.grandes[:]
        other.caballeros = [row[:] for row in self.caballeros]
        other.court = self.court[:]
        other.provinces = self.provinces[:]
        other.scores = self.scores[:]
        other.hands = [hand[:] for hand in self.hands]
        other.played = [pile[:] for pile in self.played]
        other.round = self.round
        other.first_bidder = self.first_bidder
        other.bids = self.bids[:]
        other.turn_order = self.turn_order[:]
        other.turn_index = self.turn_index
        other.stacks = [stack[:] for stack in self.stacks]
        other.display = self.display[:]
        other.taken = self.taken[:]
        other.mobile = self.mobile[:]
        other.vetoes = [entry[:] for entry in self.vetoes]
        other.phase = self.phase
        other.placed = self.placed
        other.special_done = self.special_done
        other.action = copy.deepcopy(self.action) if self.action is not None else None
        other.castillo_choices = copy.deepcopy(self.castillo_choices) if self.castillo_choices is not None else None
        other.scorings_done = self.scorings_done
        other.log = self.log[:]
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
        data = {field: getattr(self, field) for field in _FIELDS}
        return copy.deepcopy(data)

    @classmethod
    def from_json(cls, data):
        missing = [field for field in _FIELDS if field not in data]
        if missing:
            raise ValueError(f"Not a saved El Grande game: missing {', '.join(missing)}.")
        state = cls.__new__(cls)
        for field in _FIELDS:
            if field != "log":
                setattr(state, field, copy.deepcopy(data[field]))
        # Log entries are written once and never changed, so the entries themselves are shared:
        # copying the whole log would make loading a late position cost more than playing a move.
        state.log = list(data["log"])
        state.colours = list(state.colours)
        return state

    def __eq__(self, other):
        if not isinstance(other, GameState):
            return NotImplemented
        return all(getattr(self, field) == getattr(other, field) for field in _FIELDS)

    def __repr__(self):
        return f"<GameState {self.num_players}p round {self.round} phase {self.phase}>"
