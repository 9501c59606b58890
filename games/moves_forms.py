"""The decision panel's forms: what to offer a seat for its current decision, and how the fields a
browser posts become one move of the engine's vocabulary (games/engine/README.md).

The panel offers choices from the seat's own `view_for` result only. Whatever it offers, the engine
has the last word: a move it refuses comes back with its reason and changes nothing.
"""

import json

INTRIGUE_PLAN_ROWS = {
    "intrigue_5_from_region": 5,
    "intrigue_3_foreign": 3,
    "intrigue_3_any": 3,
    "intrigue_2_own_2_foreign": 4,
    "intrigue_4_own": 4,
    "intrigue_4_any": 4,
}

# The form each card's special action needs; cards not named need no field (one button).
SPECIAL_FORMS = {
    **dict.fromkeys(INTRIGUE_PLAN_ROWS, "plan"),
    "intrigue_own_region": "own_region",
    "intrigue_court_2": "court_spread",
    "intrigue_court_2_or_own_region": "either",
    **dict.fromkeys(["decay_all", "decay_3", "secret_two_to_provinces", "secret_all_to_provinces"], "order"),
    "one_each_to_provinces": "picks",
    "score_one_region": "score_region",
    "score_any_region": "score_region",
    "mobile_scoreboard": "mobile",
    "royal_adviser": "king",
    "king_card": "king",
    "eviction": "eviction",
    "move_grande": "grande",
    "retake_power_card": "retake",
}

def decision_panel(view):
    """Everything the panel template needs beyond the view itself, or None with nothing to decide."""
    decision = view.get("decision")
    if not decision:
        return None
    colour = view["colour"]
    me = view["players"][view["seat"]]
    regions = view["regions"]
    king = view["king"]
    names = {region["id"]: region["name"] for region in regions}
    names["castillo"] = view["castillo"]["name"]
    outside_king = [_option(r["id"], r["name"]) for r in regions if r["id"] != king]
    panel = {
        "kind": decision["kind"],
        "me": me,
        "regions": [_option(r["id"], r["name"]) for r in regions],
        "outside_king": outside_king,
        "destinations": outside_king + [_option("castillo", names["castillo"])],
        "colours": [_option(p["colour"], f"{p['colour']} ({p['label']})") for p in view["players"]],
    }
    kind = decision["kind"]
    if kind == "bid":
        panel["bids"] = [move["card"] for move in decision["moves"]]
        panel["bid_moves"] = decision["moves"]
    elif kind == "court":
        allowance, provinces = decision["allowance"], decision["provinces"]
        panel["counts"] = list(range(allowance + 1))
        panel["default_count"] = min(allowance, provinces)
        panel["from_regions"] = (
            [
                {**_option(r, names[r]), "max": _count_in(view, r, colour)}
                for r in decision["regions"]
            ]
            if provinces < allowance
            else []
        )
    elif kind == "card":
        texts = {card["id"]: card for card in view["cards"]}
        panel["offers"] = [{"move": move, "card": texts.get(move["card"])} for move in decision["moves"]]
    elif kind == "action":
        panel.update(_action_panel(view, decision, names))
    elif kind == "veto":
        steps = (view.get("pending") or {}).get("steps") or []
        panel["steps"] = [{"cut": index, "number": index + 1, "text": text} for index, text in enumerate(steps)]
    elif kind in ("region", "castillo"):
        panel["choices"] = [
            {"move": move, "name": names.get(move["region"], move["region"]), "region": move["region"]}
            for move in decision["moves"]
        ]
    elif kind == "share":
        sources = [{"id": "court", "name": "Court", "max": me["court"]}]
        sources += [
            {**_option(r["id"], r["name"]), "max": r["caballeros"].get(colour, 0)}
            for r in regions
            if r["id"] != king and r["caballeros"].get(colour)
        ]
        panel["sources"] = sources
        panel["needed"] = min(3, sum(source["max"] for source in sources))
    return panel


def _action_panel(view, decision, names):
    colour = view["colour"]
    card = decision["card"]
    form = SPECIAL_FORMS.get(card["id"], "confirm")
    king = view["king"]
    panel = {
        "place_areas": [_option(area, names[area]) for area in decision["place_areas"]],
        "special_form": form,
        "card": card,
        # Clicking the map adds a caballero where the form counts them, else fills a region field.
        "map_mode": "count" if form in ("own_region", "court_spread", "either") else "select",
    }
    seats = [player["seat"] for player in view["players"]]
    left = seats[view["seat"] + 1 :] + seats[: view["seat"]]
    others = [view["players"][seat] for seat in left]
    if form == "plan":
        panel["plan_rows"] = list(range(INTRIGUE_PLAN_ROWS[card["id"]]))
    if form in ("own_region", "either"):
        panel["own_regions"] = [
            _option(r["id"], r["name"]) for r in view["regions"] if r["id"] != king and r["caballeros"].get(colour)
        ]
    if form in ("order", "eviction"):
        panel["order_slots"] = [
            {"index": index, "default": player["colour"] if form == "order" else ""}
            for index, player in enumerate(others)
        ]
        panel["order_colours"] = [_option(p["colour"], f"{p['colour']} ({p['label']})") for p in others]
    if form == "picks":
        panel["picks"] = [
            {
                "colour": player["colour"],
                "label": player["label"],
                "regions": [
                    _option(r["id"], r["name"])
                    for r in view["regions"]
                    if r["id"] != king and r["caballeros"].get(player["colour"])
                ],
            }
            for player in [view["players"][view["seat"]]] + others
        ]
        panel["picks"] = [pick for pick in panel["picks"] if pick["regions"]]
    if form == "mobile":
        boards = view["mobile_scoreboards"]
        panel["boards"] = [
            {"id": board, "where": names.get(where) if where else None}
            for board, where in boards.items()
            if where != king
        ]
        panel["mobile_targets"] = [
            _option(area, names[area]) for area in list(names) if area != king
        ]
    if form == "king":
        king_region = next(r for r in view["regions"] if r["id"] == king)
        targets = king_region["neighbours"] if card["id"] == "royal_adviser" else [
            r["id"] for r in view["regions"] if r["id"] != king
        ]
        panel["king_targets"] = [_option(r, names[r]) for r in targets if r in names and r != "castillo"]
    if form == "grande":
        home = view["players"][view["seat"]]["home"]
        panel["grande_targets"] = [
            _option(r["id"], r["name"]) for r in view["regions"] if r["id"] not in (king, home)
        ]
    if form == "retake":
        panel["played"] = view.get("played", [])
    return panel


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
    and those fields become the one JSON `move` here."""
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
    if post.get("to"):
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


def _indexed(post, prefix):
    keys = [key for key in post if key.startswith(prefix) and _is_index(key[len(prefix) :])]
    return sorted(keys, key=lambda key: int(key[len(prefix) :]))


def _row_indices(post, prefix):
    indices = {key[len(prefix) :].split("-")[0] for key in post if key.startswith(prefix)}
    return sorted(int(index) for index in indices if _is_index(index))


def _is_index(text):
    """A row number as forms write them: ASCII digits ("²".isdigit() is true, int("²") fails)."""
    return text.isascii() and text.isdigit()
