"""The shape of a move of the engine's vocabulary (games/engine/README.md, Moves): the fields each
kind of move has, and the type and range of each value.

The engine judges whether a move is legal, but reads only the fields it needs and ignores the
rest: a move with an extra field holding a number larger than 64 bits, or a list nested hundreds
deep, was legal, stored, and then broke every export of the game (orjson writes neither). So a
move is stored only as `clean` returns it, and a record's moves are identified by their shape
alone (`canonical`). Whether the areas, colours and cards named exist is left to the engine,
which says so in the player's language (games/words/refusals.py).
"""

import orjson
from django.utils.translation import gettext as _

from games.engine.board import AREAS, START_IN_COURT, START_IN_HOME, START_IN_PROVINCES
from games.engine.cards import CARDS

# Every caballero of a player; no count in a move can be larger.
MOST_CABALLEROS = START_IN_HOME + START_IN_COURT + START_IN_PROVINCES
# Any other number: a veto's cut (announced steps: a scoring of every area rank by rank is some
# fifty) or a power card (the engine names the cards that exist, in the player's language).
MOST_NUMBER = 999
# The longest list or map a move holds: a plan (five caballeros at most), picks and an order (a
# few players), counts by area (the court and every area at most).
MOST_ITEMS = len(AREAS) + 1
# The longest id a move names (areas, colours, cards: "intrigue_2_own_2_foreign" is 24).
LONGEST_ID = 40


class BadShape(ValueError):
    """A move that is not of the vocabulary's shape; the message says where, for the player."""


# --- the values ----------------------------------------------------------------------------------


def _whole(least, most):
    def check(value, where, strict):
        if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
            raise BadShape(
                _("In this move, %(field)s must be a whole number from %(least)s to %(most)s.")
                % {"field": where, "least": least, "most": most}
            )
        return value

    return check


def _id(value, where, strict):
    if not isinstance(value, str) or len(value) > LONGEST_ID:
        raise BadShape(
            _("In this move, %(field)s must be a name of at most %(most)s characters, e.g. \"aragon\".")
            % {"field": where, "most": LONGEST_ID}
        )
    return value


def _list_of(item):
    def check(value, where, strict):
        if not isinstance(value, list) or len(value) > MOST_ITEMS:
            raise BadShape(
                _("In this move, %(field)s must be a list of at most %(most)s items.")
                % {"field": where, "most": MOST_ITEMS}
            )
        return [item(entry, f"{where}[{index}]", strict) for index, entry in enumerate(value)]

    return check


def _object(fields):
    def check(value, where, strict):
        return _fields(value, fields, where, strict)

    return check


_count = _whole(0, MOST_CABALLEROS)


def _counts(value, where, strict):
    """Areas (or "court") to counts: an object, or a list of [area, count] pairs kept in order."""
    if isinstance(value, dict) and len(value) <= MOST_ITEMS:
        return {_id(area, where, strict): _count(count, f"{where}.{area}", strict) for area, count in value.items()}
    if isinstance(value, list) and len(value) <= MOST_ITEMS and all(
        isinstance(pair, list) and len(pair) == 2 for pair in value
    ):
        return [
            [_id(area, f"{where}[{index}]", strict), _count(count, f"{where}[{index}]", strict)]
            for index, (area, count) in enumerate(value)
        ]
    raise BadShape(
        _(
            "In this move, %(field)s must map at most %(most)s areas to counts, e.g. {\"aragon\": 2}, "
            "or list [area, count] pairs."
        )
        % {"field": where, "most": MOST_ITEMS}
    )


# --- the moves -----------------------------------------------------------------------------------

_PLAN_STEP = {"from": _id, "to": _id, "colour": _id, "count": _whole(1, MOST_CABALLEROS)}
_PICK = {"colour": _id, "region": _id}

# The special action's fields by the action its card's options() name (views' decision["special"]).
SPECIAL_FIELDS = {
    "none": {},
    "keep_veto": {},
    "move_caballeros": {"plan": _list_of(_object(_PLAN_STEP))},
    "redistribute": {"region": _id, "to": _counts},
    "court_to_regions": {"to": _counts},
    "either": {"option": _id, "region": _id, "to": _counts},
    "evict": {"region": _id, "order": _list_of(_id)},
    "order": {"order": _list_of(_id)},
    "picks": {"picks": _list_of(_object(_PICK))},
    "score_area": {"region": _id},
    "mobile_scoreboard": {"scoreboard": _id, "to": _id},
    "move_king": {"to": _id},
    "move_grande": {"to": _id},
    "retake_power_card": {"card": _whole(0, MOST_NUMBER)},
}
# Any card's: for a move read without its position (a stored move cleaned for export).
ANY_SPECIAL = {}
for _special in SPECIAL_FIELDS.values():
    for _name, _check in _special.items():
        ANY_SPECIAL.setdefault(_name, _check)
# "to" is an area for some cards and counts for others: either, for a move read without its card.
ANY_SPECIAL["to"] = lambda value, where, strict: (_id if isinstance(value, str) else _counts)(value, where, strict)

FIELDS = {
    "bid": {"card": _whole(0, MOST_NUMBER)},
    "court": {"count": _count, "from_regions": _counts},
    "take_card": {"card": _id},
    "place": {"to": _counts},
    "special": ANY_SPECIAL,
    "decline": {},
    "choose_region": {"region": _id},
    "share": {"from": _counts},
    "allow": {},
    "veto": {"cut": _whole(0, MOST_NUMBER)},
}


def clean(move, special=None):
    """`move` as the vocabulary's plain data: a new dict of the same fields. `special`: the action
    the seat's card names (decision["special"]["action"]), when a special move is possible, to
    allow only that card's fields. Raises BadShape, naming the first field that is unknown, of the
    wrong type or out of range."""
    return _move(move, special, strict=True)


def special_action(state, seat):
    """The action of the card `seat` plays in the action phase of `state` (None otherwise): what
    `clean` needs to allow that card's fields alone."""
    if state.phase != "action" or seat != state.current_player or state.taken[seat] is None:
        return None
    return CARDS[state.taken[seat]].options(state, seat)["action"]


def canonical(move):
    """A stored or recorded move reduced to its shape, whatever else it carries: unknown fields,
    and known fields whose values no legal move holds, left out (the engine read none of them).
    What identifies a move, and what an export shows of it."""
    return _move(move, None, strict=False)


def _move(move, special, strict):
    kind = move.get("type") if isinstance(move, dict) else None
    if not isinstance(kind, str) or kind not in FIELDS:
        if not strict:
            # Not of today's vocabulary (a move of a game older than it): kept as stored when any
            # JSON writer takes it, else its type alone.
            return move if _writable(move) else {"type": kind} if isinstance(kind, str) else {}
        raise BadShape(_('A move is a JSON object with a "type", e.g. {"type": "bid", "card": 9}.'))
    fields = SPECIAL_FIELDS.get(special, ANY_SPECIAL) if kind == "special" else FIELDS[kind]
    return {"type": kind, **_fields({k: v for k, v in move.items() if k != "type"}, fields, "", strict)}


def _fields(value, fields, where, strict):
    """The object `value` with the `fields` it may have, each checked; unknown ones refused
    (strict) or left out."""
    if not isinstance(value, dict):
        if strict:
            raise BadShape(_("In this move, %(field)s must be a JSON object.") % {"field": where})
        return {}
    if strict:
        unknown = sorted(key for key in value if key not in fields)
        if unknown:
            raise BadShape(
                _("This move has fields that it may not have here: %(fields)s.")
                % {"fields": ", ".join(_name(where, key) for key in unknown)}
            )
    cleaned = {}
    for key, entry in value.items():
        if key not in fields:
            continue
        try:
            cleaned[key] = fields[key](entry, _name(where, key), strict)
        except BadShape:
            if strict:
                raise
    return cleaned


def _writable(value):
    try:
        orjson.dumps(value)
    except orjson.JSONEncodeError:
        return False
    return True


def _name(where, key):
    shown = repr(key[:LONGEST_ID] + ("…" if len(key) > LONGEST_ID else ""))
    return f"{where}.{shown}" if where else shown
