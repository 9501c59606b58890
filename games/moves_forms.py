"""The decision panel's forms: what to offer a seat for its current decision, and how the fields a
browser posts become one move of the engine's vocabulary (games/engine/README.md).

The panel offers choices from the seat's own `view_for` result only. Whatever it offers, the engine
has the last word: a move it refuses comes back with its reason and changes nothing.
"""

import json


def decision_panel(view):
    """Everything the panel template needs beyond the view itself, or None with nothing to decide.

    What may be chosen comes from the engine's decision (view["decision"]); this only puts names
    to the ids and shapes them for the template.
    """
    decision = view.get("decision")
    if not decision:
        return None
    colour = view["colour"]
    names = {region["id"]: region["name"] for region in view["regions"]}
    names["castillo"] = view["castillo"]["name"]
    panel = {"kind": decision["kind"]}
    kind = decision["kind"]
    if kind == "bid":
        panel["bid_moves"] = decision["moves"]
    elif kind == "court":
        allowance, provinces = decision["allowance"], decision["provinces"]
        panel["counts"] = list(range(allowance + 1))
        panel["default_count"] = min(allowance, provinces)
        panel["from_regions"] = (
            [{**_option(r, names[r]), "max": _count_in(view, r, colour)} for r in decision["regions"]]
            if provinces < allowance
            else []
        )
    elif kind == "card":
        texts = {card["id"]: card for card in view["cards"]}
        panel["offers"] = [{"move": move, "card": texts.get(move["card"])} for move in decision["moves"]]
    elif kind == "action":
        panel.update(_action_panel(view, decision, names))
    elif kind == "veto":
        pending = view.get("pending") or {}
        panel["window"] = decision["window"]
        panel["before"] = pending.get("before")
        steps = (pending.get("steps") or []) if decision["window"] == "plan" else []
        panel["steps"] = [{"cut": index, "number": index + 1, "step": step} for index, step in enumerate(steps)]
    elif kind in ("region", "castillo"):
        pending = view.get("pending") or {}
        card = pending.get("card") if kind == "region" else None
        evicted = pending.get("region") if card == "eviction" else None
        panel["card"] = card
        panel["evicted"] = names.get(evicted) if evicted else None
        panel["purpose"] = _purpose(card, panel["evicted"])
        # Eviction: the region evicted and the King's send the evicted caballeros to court.
        to_court = {evicted, view.get("king")} if evicted else set()
        panel["choices"] = [
            {
                "move": move,
                "name": names.get(move["region"], move["region"]),
                "region": move["region"],
                "to_court": move["region"] in to_court,
            }
            for move in decision["moves"]
        ]
    elif kind == "share":
        panel["sources"] = [
            {**source, "name": "Court" if source["id"] == "court" else names[source["id"]]}
            for source in decision["sources"]
        ]
        panel["needed"] = decision["needed"]
    return panel


# What a secret region choice is for, by the card that asks for it.
PURPOSES = {
    "eviction": "{region} is evicted: choose the region where all your caballeros in {region} go. "
    "Choosing {region} itself or the King's region sends them to your court.",
    "secret_two_to_provinces": "Choose one of your regions holding 2 of your caballeros (one holding 1 if none "
    "holds 2): 2 (or 1) of them go from there to the provinces.",
    "secret_all_to_provinces": "Choose one of your regions: all your caballeros there go to the provinces.",
    "secret_unique_scoring": "Choose a region to score: every region chosen by exactly one player is scored, "
    "in scoring order.",
}


def _purpose(card, evicted):
    text = PURPOSES.get(card)
    return text.format(region=evicted or "The region") if text else ""


# The form that draws each kind of special action (`options()["action"]` in the engine's terms).
SPECIAL_FORMS = {
    "move_caballeros": "plan",
    "redistribute": "own_region",
    "court_to_regions": "court_spread",
    "either": "either",
    "keep_veto": "veto",
    "order": "order",
    "evict": "eviction",
    "picks": "picks",
    "score_area": "score_region",
    "mobile_scoreboard": "mobile",
    "move_king": "king",
    "move_grande": "grande",
    "retake_power_card": "retake",
    "none": "confirm",
}


def _action_panel(view, decision, names):
    special = decision["special"]
    form = SPECIAL_FORMS[special["action"]]
    players = {player["colour"]: player for player in view["players"]}

    def named(ids):
        return [_option(area, names[area]) for area in ids]

    def colour_options(colours):
        return [_option(c, _player_name(players[c])) for c in colours]

    panel = {
        "card": decision["card"],
        "place_areas": named(decision["place_areas"]),
        "special_form": form,
        # Clicking the map adds a caballero where the form counts them, else fills a region field.
        "map_mode": "count" if form in ("own_region", "court_spread", "either") else "select",
        "destinations": named(special.get("destinations", [])),
    }
    if form == "plan":
        panel["plan_rows"] = list(range(special["most"]))
        panel["sources"] = named(special["sources"])
        panel["colours"] = colour_options(special["colours"])
        panel["limits"] = [
            {"side": side, "least": special[side][0], "most": special[side][1]}
            for side in ("own", "foreign")
            if special[side][1]
        ]
        panel["most"] = special["most"]
        panel["one_source"] = special["one_source"]
    elif form == "own_region":
        panel["own_regions"] = named(special["regions"])
    elif form == "either":
        court, own_region = special["options"]["court"], special["options"]["own_region"]
        panel["count"] = court["count"]
        panel["destinations"] = named(court["destinations"])
        panel["own_regions"] = named(own_region["regions"])
    elif form == "court_spread":
        panel["count"] = special["count"]
    elif form in ("order", "eviction"):
        panel["order_slots"] = [
            {"index": index, "default": colour if form == "order" else ""}
            for index, colour in enumerate(special["order"])
        ]
        panel["order_colours"] = colour_options(special["order"])
        panel["evict_regions"] = named(special.get("regions", []))
    elif form == "picks":
        panel["picks"] = [
            {
                "colour": pick["colour"],
                "label": players[pick["colour"]]["label"],
                "name": _player_name(players[pick["colour"]]),
                "regions": named(pick["regions"]),
            }
            for pick in special["picks"]
        ]
    elif form == "score_region":
        panel["score_areas"] = named(special["areas"])
    elif form == "mobile":
        panel["boards"] = [
            {
                "id": board["id"],
                "where": names[board["where"]] if board["where"] else None,
                "targets": named(board["targets"]),
            }
            for board in special["scoreboards"]
        ]
    elif form in ("king", "grande"):
        panel["targets"] = named(special["targets"])
    elif form == "retake":
        panel["played"] = special["cards"]
    return panel


def _player_name(player):
    """"alice (green)", or the colour alone when the seat's user is gone."""
    user = player.get("user")
    return f"{user.username} ({player['colour']})" if user else player["colour"].capitalize()


def _option(value, name):
    return {"id": value, "name": name}


def _count_in(view, region_id, colour):
    for region in view["regions"]:
        if region["id"] == region_id:
            return region["caballeros"].get(colour, 0)
    return 0


# --- from posted fields to a move ------------------------------------------------------------------


def move_data(post):
    """The POST data for the move endpoint's form. Buttons that carry a whole move post it as
    `move`; the panel's other forms post plain fields and a `move_form` naming the move's type,
    and those fields become the one JSON `move` here. Raises UnreadableFields when they cannot."""
    if "move" in post or "move_form" not in post:
        return post
    data = post.copy()
    data["move"] = json.dumps(build_move(post))
    return data


def build_move(post):
    """The move a form's fields describe. Numbers that do not read as numbers are passed on as
    they are, so that the engine names the problem."""
    kind = post.get("move_form")
    if kind == "court":
        move = {"type": "court", "count": _number(post.get("count", "0"))}
        taken = _counts(post, "from-")
        if taken:
            move["from_regions"] = taken
        return move
    if kind == "place":
        return {"type": "place", "to": _counts(post, "to-")}
    if kind == "share":
        return {"type": "share", "from": _counts(post, "from-")}
    if kind == "special":
        return _special(post)
    return {"type": kind or ""}


def _special(post):
    move = {"type": "special"}
    for field in ("option", "region", "scoreboard"):
        if post.get(field):
            move[field] = post[field]
    board = post.get("scoreboard")
    if board and post.get(f"mobile-to-{board}"):
        # Each mobile scoreboard has its own select of targets; the chosen board's one counts.
        move["to"] = post[f"mobile-to-{board}"]
    elif post.get("to"):
        move["to"] = post["to"]
    elif any(key.startswith("to-") for key in post):
        move["to"] = _counts(post, "to-")
    if post.get("card"):
        move["card"] = _number(post["card"])
    order = [post[key] for key in _indexed(post, "order-") if post[key]]
    if order:
        move["order"] = order
    plan = []
    for index in _row_indices(post, "plan-"):
        row = {field: post.get(f"plan-{index}-{field}", "") for field in ("from", "to", "colour", "count")}
        if row["from"] and row["to"] and row["colour"]:
            plan.append({**row, "count": _number(row["count"] or "1")})
    if plan or "plan-0-from" in post:
        move["plan"] = plan
    picks = []
    for index in _row_indices(post, "picks-"):
        colour, region = post.get(f"picks-{index}-colour", ""), post.get(f"picks-{index}-region", "")
        if colour and region:
            picks.append({"colour": colour, "region": region})
    if picks or "picks-0-colour" in post:
        move["picks"] = picks
    return move


def _counts(post, prefix):
    counts = {}
    for key in post:
        if key.startswith(prefix) and post[key].strip():
            count = _number(post[key])
            if count != 0:
                counts[key[len(prefix) :]] = count
    return counts


def _number(text):
    try:
        return int(text)
    except (TypeError, ValueError):
        return text


class UnreadableFields(ValueError):
    """Posted fields that describe no move at all; the message says which."""


# No decision has anywhere near a thousand rows. Longer numbers are refused before int() sees
# them: a row number of thousands of digits would cost int() its time, or exceed its limit.
ROW_DIGITS = 3


def _indexed(post, prefix):
    keys = [key for key in post if key.startswith(prefix) and _is_index(key[len(prefix) :])]
    return sorted(keys, key=lambda key: int(key[len(prefix) :]))


def _row_indices(post, prefix):
    indices = {key[len(prefix) :].split("-")[0] for key in post if key.startswith(prefix)}
    return sorted(int(index) for index in indices if _is_index(index))


def _is_index(text):
    """A row number as forms write them: ASCII digits ("²".isdigit() is true, int("²") fails)."""
    if not (text.isascii() and text.isdigit()):
        return False
    if len(text) > ROW_DIGITS:
        raise UnreadableFields(f"row {text[:12]}{'…' if len(text) > 12 else ''} does not exist")
    return True
