"""The whole position of a game, as plain data that copies cheaply and round-trips through JSON.

The state holds only what the rules need. What happened (the log) is not part of it: every
`apply_move` leaves the events of that one move in `state.events` (see events.py), and whoever
stores the game keeps them beside the move.
"""

# Pseudo-locations used by caballero shifts besides the ten areas.
COURT = -1
PROVINCES = -2

# Every field of the position, in the order of to_json.
_FIELDS = (
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
    "colours",
    "grandes",
    "court",
    "provinces",
    "scores",
    "bids",
    "turn_order",
    "display",
    "taken",
    "mobile",
    "caballeros",
    "hands",
    "played",
    "stacks",
    "vetoes",
    "action",
    "castillo_choices",
)

_FIELD_SET = frozenset(_FIELDS)


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


# The parts of an action or a general scoring's choices that change as players answer; its plan
# and announced steps are written once and shared between states.
_CHANGING = ("awaiting", "choices", "answers")


def _copy_action(action):
    copied = dict(action)
    for key in _CHANGING:
        if key in copied:
            copied[key] = list(copied[key])
    return copied


_NEW = object.__new__


def added(values, index, count):
    """A copy of a list of numbers with `count` added to one of them (see `replaced`)."""
    copy = values[:]
    copy[index] += count
    return copy


def replaced(values, index, value):
    """A copy of the list with one item replaced: how the rules change a list of a state, which
    it may share with the state before (see GameState.successor)."""
    copy = values[:]
    copy[index] = value
    return copy


class GameState:
    """Mutable inside the engine only: `apply_move` works on a successor (see there) and returns it.

    caballeros[area][seat] counts each colour in the nine regions (0–8, scoring order) and the
    Castillo (9). hands/played are each seat's power cards; played[seat][-1] is the top of the pile.
    vetoes lists [seat, round taken] for every veto card held. action is the special action under
    way (its plan, the choices still awaited, its announced steps and the veto answers).
    events are the events of the move that made this state (not saved).
    """

    __slots__ = _FIELDS + ("events",)

    def clone(self):
        """A copy to change in place (tests lay out positions this way): every list is copied but
        the inner lists of hands, played, stacks and vetoes and the special action's plan and
        steps, which are replaced whole, never changed."""
        other = self.successor()
        other.grandes = self.grandes[:]
        other.court = self.court[:]
        other.provinces = self.provinces[:]
        other.scores = self.scores[:]
        other.bids = self.bids[:]
        other.turn_order = self.turn_order[:]
        other.display = self.display[:]
        other.taken = self.taken[:]
        other.mobile = self.mobile[:]
        other.caballeros = list(map(list.copy, self.caballeros))
        other.hands = self.hands[:]
        other.played = self.played[:]
        other.stacks = self.stacks[:]
        other.vetoes = self.vetoes[:]
        return other

    def successor(self):
        """The copy a move works on (apply_move): it shares every list with this state, and the
        rules never change a list of a state in place but put a changed copy in its place
        (`added` and `replaced`; operations._add for caballeros). Only the special action's and the
        general scoring's answers (the few lists that change as players answer) are copied.

        Copying every list at every move, and freeing it a move later, was a third of a random
        game's time, though most moves change one or two lists. tests/engine/test_properties.py
        checks that no move changes a state made before it.
        """
        other = _NEW(GameState)
        other.num_players = self.num_players
        other.seed = self.seed
        other.short_game = self.short_game
        other.veto_enabled = self.veto_enabled
        other.show_castillo = self.show_castillo
        other.king = self.king
        other.round = self.round
        other.first_bidder = self.first_bidder
        other.turn_index = self.turn_index
        other.phase = self.phase
        other.placed = self.placed
        other.special_done = self.special_done
        other.scorings_done = self.scorings_done
        other.colours = self.colours
        other.grandes = self.grandes
        other.court = self.court
        other.provinces = self.provinces
        other.scores = self.scores
        other.bids = self.bids
        other.turn_order = self.turn_order
        other.display = self.display
        other.taken = self.taken
        other.mobile = self.mobile
        other.caballeros = self.caballeros
        other.hands = self.hands
        other.played = self.played
        other.stacks = self.stacks
        other.vetoes = self.vetoes
        action = self.action
        other.action = None if action is None else _copy_action(action)
        choices = self.castillo_choices
        other.castillo_choices = None if choices is None else _copy_action(choices)
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
        return {
            "num_players": self.num_players,
            "seed": self.seed,
            "short_game": self.short_game,
            "veto_enabled": self.veto_enabled,
            "show_castillo": self.show_castillo,
            "king": self.king,
            "round": self.round,
            "first_bidder": self.first_bidder,
            "turn_index": self.turn_index,
            "phase": self.phase,
            "placed": self.placed,
            "special_done": self.special_done,
            "scorings_done": self.scorings_done,
            "colours": self.colours[:],
            "grandes": self.grandes[:],
            "court": self.court[:],
            "provinces": self.provinces[:],
            "scores": self.scores[:],
            "bids": self.bids[:],
            "turn_order": self.turn_order[:],
            "display": self.display[:],
            "taken": self.taken[:],
            "mobile": self.mobile[:],
            "caballeros": list(map(list.copy, self.caballeros)),
            "hands": list(map(list.copy, self.hands)),
            "played": list(map(list.copy, self.played)),
            "stacks": list(map(list.copy, self.stacks)),
            "vetoes": list(map(list.copy, self.vetoes)),
            "action": copy_data(self.action),
            "castillo_choices": copy_data(self.castillo_choices),
        }

    @classmethod
    def from_json(cls, data):
        """A state from `to_json`'s result as decoded JSON (lists, not tuples). Keys it does not
        know are ignored, so a game saved with a log by earlier versions still loads.

        The state takes the data's lists as its own, uncopied: the engine never changes a state's
        lists in place (see successor), so loading costs no copy; copy the data first (or clone
        the state) to change either afterwards. The special action and the Castillo's choices,
        which the rules change as players answer, are copied."""
        if not data.keys() >= _FIELD_SET:
            missing = [field for field in _FIELDS if field not in data]
            raise ValueError(f"Not a saved El Grande game: missing {', '.join(missing)}.")
        state = _NEW(cls)
        state.num_players = data["num_players"]
        state.seed = data["seed"]
        state.short_game = data["short_game"]
        state.veto_enabled = data["veto_enabled"]
        state.show_castillo = data["show_castillo"]
        state.king = data["king"]
        state.round = data["round"]
        state.first_bidder = data["first_bidder"]
        state.turn_index = data["turn_index"]
        state.phase = data["phase"]
        state.placed = data["placed"]
        state.special_done = data["special_done"]
        state.scorings_done = data["scorings_done"]
        state.colours = data["colours"]
        state.grandes = data["grandes"]
        state.court = data["court"]
        state.provinces = data["provinces"]
        state.scores = data["scores"]
        state.bids = data["bids"]
        state.turn_order = data["turn_order"]
        state.display = data["display"]
        state.taken = data["taken"]
        state.mobile = data["mobile"]
        state.caballeros = data["caballeros"]
        state.hands = data["hands"]
        state.played = data["played"]
        state.stacks = data["stacks"]
        state.vetoes = data["vetoes"]
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
