"""The drawing of the board: a map of Spain in the shape of El Grande's board, and what stands on it.

Only presentation lives here. Everything drawn comes from a `view_for` result, so the map can show
nothing the seat may not see. The regions keep the engine's neighbours (games/engine/board.py):
two regions share a border on the map exactly when they are neighbours (tests/test_board_map.py).

The map is sized for a phone: the SVG scales with the page's width, and at 390 CSS px wide (358 px
of map) one unit of the viewBox is 358 / 676 = 0.53 px, so the smallest text (24 units) is 12.7 px.
"""

import functools

from django.utils.safestring import mark_safe
from django.utils.translation import gettext, gettext_lazy

from games.engine.board import COLOURS
from games.words.escaping import escape
from games.words.log_text import COLOUR_WORDS
from games.words.texts import area_name, colon, said

SIZE = 676  # the viewBox is SIZE x SIZE
SPACE = 26  # one space of the scoring track, which runs around the edge
TRACK_SPACES = 100  # 0 to 99, clockwise from the top left corner; a score of 100 and more goes round again
SIDE = SIZE // SPACE  # spaces along one side, corners included

# Corners and border points of the map, after the real coast and borders (stretched where a region
# needs room for its pieces). Each border between two areas is listed once here and used by both
# areas' outlines, so that shared borders are shared exactly.
P = {
    # Galicia, the north-west corner, and the Portuguese border along the Minho
    "finisterre": (30, 118), "coruna": (70, 70), "ortegal": (108, 42), "ribadeo": (192, 54),
    "g_b_mid": (198, 130), "g_b_oc": (200, 226), "g_oc_mid": (188, 240), "g_oc_p": (170, 250),
    "g_p_mid": (112, 244), "minho": (42, 236), "vigo": (30, 206), "muros": (42, 170), "rias": (28, 150),
    # the Cantabrian coast
    "penas": (238, 58), "gijon": (270, 66), "santander": (322, 74), "bilbao": (362, 80), "hendaye": (392, 82),
    # the Pyrenees
    "roncesvalles": (404, 90), "b_a_f": (414, 100), "somport": (470, 112), "a_c_f": (522, 120),
    "andorra": (566, 128), "perthus": (620, 132), "creus": (650, 138),
    # the Mediterranean coast, north to south-west
    "begur": (648, 180), "barcelona": (640, 236), "tarragona": (626, 280), "ebro": (614, 306),
    "c_v": (600, 322), "castellon": (596, 356), "valencia_city": (572, 388), "nao": (594, 416),
    "alicante": (574, 446), "palos": (538, 484), "v_g": (526, 510), "gata": (514, 552),
    "almeria": (476, 576), "motril": (404, 580), "malaga": (362, 586), "g_s": (298, 592),
    "gibraltar": (286, 596), "tarifa": (258, 606), "cadiz": (222, 592), "donana": (190, 578),
    "s_p": (156, 566),
    # the inland borders of the north
    "b_a_mid": (410, 170), "b_oc_a": (404, 238), "b_oc_mid1": (350, 244), "b_oc_mid2": (280, 236),
    "a_c_mid1": (526, 190), "a_c_mid2": (512, 254), "a_c_v": (510, 322),
    # the centre and the south
    "a_v_mid": (486, 338), "a_v_nc": (446, 356), "a_oc_nc": (404, 360), "a_oc_mid": (410, 300),
    "oc_nc_mid": (290, 360), "oc_nc_p": (150, 352), "oc_p_mid": (168, 300),
    "nc_v_mid": (406, 410), "nc_v_g": (408, 476), "nc_g_mid": (396, 462), "nc_g_s": (306, 458),
    "nc_s_mid": (250, 456), "nc_s_p": (144, 448), "nc_p_mid": (128, 400),
    "v_g_mid": (492, 494), "s_g_mid": (306, 520),
    # Portugal
    "p_mid": (140, 500), "sagres": (40, 556), "sines": (52, 490), "lisbon": (28, 430),
    "peniche": (36, 380), "aveiro": (50, 310), "porto": (48, 270),
    # France, beyond the Pyrenees
    "f_nw": (392, 26), "f_ne": (650, 26),
}

# The outline of each area, as names of P, clockwise.
SHAPES = {
    "galicia": ["finisterre", "coruna", "ortegal", "ribadeo", "g_b_mid", "g_b_oc", "g_oc_mid", "g_oc_p",
                "g_p_mid", "minho", "vigo", "muros", "rias"],
    "basque": ["ribadeo", "penas", "gijon", "santander", "bilbao", "hendaye", "roncesvalles", "b_a_f",
               "b_a_mid", "b_oc_a", "b_oc_mid1", "b_oc_mid2", "g_b_oc", "g_b_mid"],
    "aragon": ["b_a_f", "somport", "a_c_f", "a_c_mid1", "a_c_mid2", "a_c_v", "a_v_mid", "a_v_nc", "a_oc_nc",
               "a_oc_mid", "b_oc_a", "b_a_mid"],
    "catalonia": ["a_c_f", "andorra", "perthus", "creus", "begur", "barcelona", "tarragona", "ebro", "c_v",
                  "a_c_v", "a_c_mid2", "a_c_mid1"],
    "old_castile": ["g_oc_p", "g_oc_mid", "g_b_oc", "b_oc_mid2", "b_oc_mid1", "b_oc_a", "a_oc_mid",
                    "a_oc_nc", "oc_nc_mid", "oc_nc_p", "oc_p_mid"],
    "new_castile": ["oc_nc_p", "oc_nc_mid", "a_oc_nc", "a_v_nc", "nc_v_mid", "nc_v_g", "nc_g_mid", "nc_g_s",
                    "nc_s_mid", "nc_s_p", "nc_p_mid"],
    "valencia": ["a_c_v", "c_v", "castellon", "valencia_city", "nao", "alicante", "palos", "v_g",
                 "v_g_mid", "nc_v_g", "nc_v_mid", "a_v_nc", "a_v_mid"],
    "seville": ["nc_s_p", "nc_s_mid", "nc_g_s", "s_g_mid", "g_s", "gibraltar", "tarifa", "cadiz", "donana",
                "s_p", "p_mid"],
    "granada": ["nc_g_s", "nc_g_mid", "nc_v_g", "v_g_mid", "v_g", "gata", "almeria", "motril", "malaga", "g_s",
                "s_g_mid"],
}
OUTLINES = {area: [P[name] for name in names] for area, names in SHAPES.items()}
# The Castillo: a tower standing in the Mediterranean, apart from every region.
OUTLINES["castillo"] = [
    (552, 480), (566, 480), (566, 464), (584, 464), (584, 480), (600, 480), (600, 464), (618, 464),
    (618, 480), (634, 480), (634, 464), (648, 464), (648, 648), (552, 648),
]


def _points(outline):
    """An outline as an SVG polygon's points."""
    return " ".join(f"{x},{y}" for x, y in outline)


OUTLINE_POINTS = {area: _points(outline) for area, outline in OUTLINES.items()}
# Land that is no area of the game: drawn, named, never played.
LANDS = {
    "portugal": [P[name] for name in ("minho", "g_p_mid", "g_oc_p", "oc_p_mid", "oc_nc_p", "nc_p_mid",
                                      "nc_s_p", "p_mid", "s_p", "sagres", "sines", "lisbon", "peniche",
                                      "aveiro", "porto")],
    "france": [P[name] for name in ("f_nw", "f_ne", "creus", "perthus", "andorra", "a_c_f", "somport", "b_a_f",
                                    "roncesvalles", "hendaye")],
}
GEO_LABELS = [
    {"text": gettext_lazy("FRANCE"), "x": 530, "y": 84, "rotate": 0},
    {"text": gettext_lazy("PORTUGAL"), "x": 100, "y": 400, "rotate": -90},
    {"text": gettext_lazy("Bay of Biscay"), "x": 310, "y": 52, "rotate": 0},
    {"text": gettext_lazy("Mediterranean"), "x": 620, "y": 380, "rotate": 90},
]


# Where each area's contents begin (the top of its name): below it, each line is centred in the
# width the outline leaves at that height, and the pieces fill as many rows as they need.
CONTENT_TOP = {
    "galicia": 84, "basque": 92, "aragon": 124, "catalonia": 136, "old_castile": 252,
    "new_castile": 364, "valencia": 336, "seville": 464, "granada": 468, "castillo": 484,
}
NAME_FONT = 26  # in viewBox units, as static/board.css sets it; other text is 24 (see the docstring)
MARGIN = 6  # between an outline and what is drawn inside it

# The pieces' colours are not drawn here: each piece carries its colour's name, and static/board.css
# holds the one palette (CSS variables) that the map, the chips, the score chart and the map's
# script all use.

PIECE_W, PIECE_H = 40, 30  # a colour's caballeros: its letter and how many
GRANDE_W, GRANDE_H = 28, 34
KING_W, KING_H = 36, 30
TILE_W, TILE_H = 54, 30  # the scoreboard: points for the first, second and third
ITEM_WIDTHS = {"scoreboard": TILE_W, "king": KING_W, "grande": GRANDE_W}
TEXTS = ("name", "closed")
ITEM_HEIGHTS = {"grande": GRANDE_H, "closed": 24}
GAP = 3
ROUND_R = 14
MARKER_R, MARKER_STEP = 13, 22  # a player's marker on the scoring track; markers side by side


def board_map(view, seat_colour=None, placeable=(), placing=False):
    """The areas to draw, each with its outline, name and pieces laid out in SVG coordinates.

    When the seat is placing (`placing`), each area it may not place in says why (`place_why`),
    for the map's script to show on hover or tap; the reasons come from the seat's own view."""
    labels = {player["colour"]: player["label"] for player in view["players"]}
    areas = [_area(region, region["caballeros"], labels, placeable, region["grandes"]) for region in view["regions"]]
    if placing:
        for area in areas:
            if not area["placeable"]:
                area["place_why"] = (
                    gettext("The King's region: nobody may place caballeros here.")
                    if area["king"]
                    else gettext("Not next to the King: caballeros are placed next to the King or in the Castillo.")
                )
    castillo = view["castillo"]
    shown = castillo["caballeros"]
    own = {}
    if shown is None and seat_colour and castillo["own"]:
        # The Castillo's contents are secret but for one's own caballeros.
        own = {seat_colour: castillo["own"]}
    area = _area(castillo, shown if shown is not None else own, labels, placeable, [], closed=shown is None)
    area["closed"] = shown is None
    area["own"] = castillo["own"]
    areas.append(area)
    return areas


def _area(area, caballeros, labels, placeable, grandes, closed=False):
    area_id = area["id"]
    values = "/".join(str(value) for value in area["values"])
    top = CONTENT_TOP[area["id"]]
    name = area_name(area_id)
    lines = [name]
    left, right = _band(area_id, top, top + PIECE_H)
    if " " in name and _text_width(name) > right - left:
        lines = name.split(" ", 1)
    # What the area shows, in rows: its name, the scoreboard in force (printed, or a mobile one),
    # the King, the Grandes, and each colour's caballeros. (kind, colour, text or count)
    items = [("name", None, line) for line in lines]
    if closed:
        items.append(("closed", None, gettext("closed")))
    items.append(("scoreboard", None, values))
    if area.get("king"):
        items.append(("king", None, None))
    items += [("grande", colour, None) for colour in grandes]
    items += [
        ("caballeros", colour, count)
        for colour, count in sorted(caballeros.items(), key=lambda item: _colour_rank(item[0]))
    ]
    texts, drawn, king, board = [], [], None, None
    where = _flow(area_id, top, tuple((kind, value if kind in TEXTS else None) for kind, _, value in items))
    for (kind, colour, value), (x, bottom) in zip(items, where):
        if kind in ("name", "closed"):
            texts.append({"class": "area-name" if kind == "name" else kind, "text": value,
                          "x": x + _item_width(kind, value) / 2, "y": bottom - 7})
        elif kind == "scoreboard":
            board = {"x": x, "y": bottom - TILE_H, "w": TILE_W, "h": TILE_H, "text_x": x + TILE_W / 2,
                     "text_y": bottom - 8}
        elif kind == "king":
            king = (x, bottom - KING_H)
        elif kind == "grande":
            drawn.append(_grande(colour, labels.get(colour, "?"), x, bottom - GRANDE_H))
        else:
            drawn.append(_piece(colour, labels.get(colour, "?"), value, x, bottom - PIECE_H))
    return {
        "id": area["id"],
        "name": name,
        "texts": texts,
        "points": OUTLINE_POINTS[area_id],
        "king": area.get("king", False),
        "king_x": king[0] if king else None,
        "king_y": king[1] if king else None,
        "board": board,
        "values": values,
        "mobile": area["mobile"],
        "printed": "/".join(str(value) for value in area["scoreboard"]),
        "pieces": drawn,
        "placeable": area["id"] in placeable,
        "place_why": "",
    }


@functools.lru_cache(maxsize=4096)
def _flow(area_id, top, items):
    """Lay items (kind, text) out in rows, each row centred in the width the outline leaves there;
    a row is as tall as its tallest item, and all stand on its bottom line. Returns the (x, bottom)
    of each item. Pure geometry, so the same pieces in the same area are laid out once."""
    placed = []
    while items:
        for height in (PIECE_H, GRANDE_H):  # a row with a Grande is taller, so maybe narrower
            left, right = _band(area_id, top, top + height)
            row, width = [], 0
            for kind, text in items:
                w = _item_width(kind, text)
                if row and (width + GAP + w > right - left or not _may_share(row, kind)):
                    break
                row.append((kind, text))
                width += (GAP if len(row) > 1 else 0) + w
            if max(ITEM_HEIGHTS.get(kind, PIECE_H) for kind, _ in row) <= height:
                break
        items = items[len(row) :]
        x = (left + right - width) / 2
        for kind, text in row:
            placed.append((round(x), top + height))
            x += _item_width(kind, text) + GAP
        top += height + GAP
    return tuple(placed)


def _may_share(row, kind):
    """A line of text begins a row; the scoreboard and the King may stand beside the name, the
    pieces only beside one another."""
    if kind in TEXTS:
        return False
    return kind in ("scoreboard", "king") or not any(other in TEXTS for other, _ in row)


def _item_width(kind, text):
    if kind in TEXTS:
        return _text_width(text)
    return ITEM_WIDTHS.get(kind, PIECE_W)


@functools.lru_cache(maxsize=1024)
def _band(area_id, top, bottom):
    """The stretch (left, right) inside the area's outline all the way from `top` to `bottom`."""
    outline = OUTLINES[area_id]
    left, right = -float("inf"), float("inf")
    for y in [top, bottom] + [y for _, y in outline if top < y < bottom]:
        crossings = sorted(
            x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            for (x1, y1), (x2, y2) in zip(outline, outline[1:] + outline[:1])
            if min(y1, y2) <= y < max(y1, y2)
        )
        if not crossings:  # below the outline: pieces that do not fit spill out, still drawn
            continue
        inside = max(zip(crossings[::2], crossings[1::2]), key=lambda pair: pair[1] - pair[0])
        left, right = max(left, inside[0]), min(right, inside[1])
    if left == -float("inf"):
        left, right = min(x for x, _ in outline), max(x for x, _ in outline)
    return left + MARGIN, right - MARGIN


def _text_width(text):
    """About how wide a name is in the map's narrow bold face (a little more than it is, to be safe)."""
    return len(text) * NAME_FONT * 0.5


def _piece(colour, letter, count, x, y):
    return {
        "kind": "caballeros",
        "colour": colour,
        "letter": letter,
        "count": count,
        "x": x,
        "y": y,
        "w": PIECE_W,
        "h": PIECE_H,
        "text_x": x + PIECE_W / 2,
        "text_y": y + PIECE_H - 8,
    }


def _grande(colour, letter, x, y):
    return {
        "kind": "grande",
        "colour": colour,
        "letter": letter,
        "x": x,
        "y": y,
        "w": GRANDE_W,
        "h": GRANDE_H,
        "path": f"M{x},{y + GRANDE_H} l0,-{GRANDE_H - GRANDE_W / 2} a{GRANDE_W / 2},{GRANDE_W / 2} 0 0 1 {GRANDE_W},0 "
        f"l0,{GRANDE_H - GRANDE_W / 2} z",
        "text_x": x + GRANDE_W / 2,
        "text_y": y + GRANDE_H - 6,
    }


def _colour_rank(colour):
    return COLOURS.index(colour) if colour in COLOURS else len(COLOURS)


# --- the tracks ---------------------------------------------------------------------------------


def track_space(number):
    """The top left corner of a space of the scoring track, and the direction into the map (dx, dy):
    across the track, or along the diagonal from a corner."""
    number %= TRACK_SPACES
    last = SIDE - 1
    side, step = divmod(number, last)  # the top, the right, the bottom, the left; corners start each
    diagonal = 0.65
    if side == 0:
        return step * SPACE, 0, (diagonal, diagonal) if step == 0 else (0, 1)
    if side == 1:
        return last * SPACE, step * SPACE, (-diagonal, diagonal) if step == 0 else (-1, 0)
    if side == 2:
        return (last - step) * SPACE, last * SPACE, (-diagonal, -diagonal) if step == 0 else (0, -1)
    return 0, (last - step) * SPACE, (diagonal, -diagonal) if step == 0 else (1, 0)


def fixed_parts():
    """What every map draws alike, whatever the position: the frame, the sea, the lands that are no
    area and the names of lands and seas, the spaces of the scoring track."""
    spaces = []
    for number in range(TRACK_SPACES):
        x, y, _ = track_space(number)
        spaces.append({"number": number, "x": x, "y": y, "labelled": number % 5 == 0,
                       "text_x": x + SPACE / 2, "text_y": y + SPACE - 5})
    return {
        "size": SIZE,
        "inner": SIZE - 2 * SPACE,
        "space": SPACE,
        "lands": [{"id": land, "points": _points(outline)} for land, outline in LANDS.items()],
        "labels": [{**label, "text": str(label["text"])} for label in GEO_LABELS],
        "spaces": spaces,
    }


def score_track(view):
    """The spaces of the scoring track and each player's marker on it (a score of 100 or more
    goes round again). Markers on the same space stand in a row into the map, each readable."""
    markers = []
    taken = []  # (position, row) already used
    for player in sorted(view["players"], key=lambda player: (player["score"], player["seat"])):
        position = player["score"] % TRACK_SPACES
        row = 0
        while (position, row) in taken:
            row += 1
        taken.append((position, row))
        x, y, (dx, dy) = track_space(position)
        markers.append(
            {
                "colour": player["colour"],
                "label": player["label"],
                "score": player["score"],
                "round_again": player["score"] >= TRACK_SPACES,
                "r": MARKER_R,
                "x": round(x + SPACE / 2 + dx * row * MARKER_STEP, 1),
                "y": round(y + SPACE / 2 + dy * row * MARKER_STEP, 1),
            }
        )
    return {"size": SIZE, "markers": markers}


def round_track(view):
    """The rounds as a row of numbered circles in the Atlantic, the current one marked."""
    return [
        {
            "number": number,
            "r": ROUND_R,
            "x": 48 + (number - 1) * (2 * ROUND_R + 4),
            "y": SIZE - SPACE - ROUND_R - 8,
            "current": number == view["round"] and not view["is_over"],
            "done": number < view["round"] or view["is_over"],
            "scoring": number in view["scoring_rounds"],
            "next_scoring": number == view["next_scoring"],
        }
        for number in range(1, view["num_rounds"] + 1)
    ]


def colour_player(view, colour):
    """The player of a colour in words, as the log names them: "alice (green)"; the colour alone,
    capitalised, for a seat whose user is gone."""
    for player in view["players"]:
        if player["colour"] == colour:
            # The colour in the reader's words, as the log says it (games/words/log_text.py).
            word = str(said(COLOUR_WORDS).get(colour, colour))
            return f"{player['name']} ({word})" if player.get("name") else word.capitalize()
    return colour


def areas_markup(view, areas, changed=()):
    """The map's areas (`board_map`) as SVG: each area's outline, title, name, scoreboard, the King
    and the pieces. Written here rather than in the template: a template spent some 50 nodes an
    area, a third of the play partial's render, on markup that only repeats (bench/README.md,
    "Speed"). Every text is escaped; the words are the catalogue's, as the template's were."""
    parts = []
    add = parts.append
    scores, mobile_board = gettext("scores %(values)s"), gettext("mobile scoreboard %(board)s")
    grande_word = escape(gettext("Grande"))
    closed_words = escape(gettext("closed: only your own caballeros show"))
    changed_words = escape(gettext("changed since your last visit"))
    grande_of = gettext("Grande of %(player)s")
    for area in areas:
        area_id, name, is_changed = escape(area["id"]), escape(area["name"]), area["id"] in changed
        add('\n      <g class="area')
        if area["king"]:
            add(" king-here")
        if is_changed:
            add(" changed")
        if area["placeable"]:
            add(" placeable")
        add(f'" data-area="{area_id}" data-name="{name}" id="area-{area_id}" tabindex="0"')
        if area["place_why"]:
            add(f' data-place-why="{escape(area["place_why"])}"')
        add(f">\n        <title>{name} · {scores % {'values': escape(area['values'])}}")
        if area["mobile"]:
            add(f" ({mobile_board % {'board': escape(area['mobile'])}})")
        for piece in area["pieces"]:
            said = grande_word if piece["kind"] == "grande" else escape(piece["count"])
            add(f" · {escape(colour_player(view, piece['colour']))}{colon()} {said}")
        if area.get("closed"):
            add(f" · {closed_words}")
        if is_changed:
            add(f" · {changed_words}")
        points = escape(area["points"])
        castillo = " castillo" if area["id"] == "castillo" else ""
        add(f'</title>\n        <polygon aria-hidden="true" class="shape{castillo}" points="{points}"/>\n        ')
        if is_changed:
            add(f'<polygon aria-hidden="true" class="changed-since" points="{points}"/>')
        add("\n        ")
        for text in area["texts"]:
            add(f'<text aria-hidden="true" class="{escape(text["class"])}" x="{text["x"]}" y="{text["y"]}">'
                f'{escape(text["text"])}</text>')
        board = area["board"]
        values = escape(area["values"])
        add(f'\n        <g aria-hidden="true" class="scoreboard{" mobile" if area["mobile"] else ""}">'
            f'<rect x="{board["x"]}" y="{board["y"]}" width="{board["w"]}" height="{board["h"]}" rx="3"/>'
            f'<text class="values" x="{board["text_x"]}" y="{board["text_y"]}">{values}</text></g>\n        ')
        if area["king"]:
            king = f'{area["king_x"]} {area["king_y"]}'
            add(f'\n        <g class="king" aria-hidden="true" transform="translate({king})">'
                '\n          <path d="M0,24 L0,6 L8,14 L18,0 L28,14 L36,6 L36,24 Z"/>'
                '<rect x="0" y="24" width="36" height="6"/>\n        </g>\n        ')
        add("\n        ")
        for piece in area["pieces"]:
            colour, letter = escape(piece["colour"]), escape(piece["letter"])
            text_x, text_y = piece["text_x"], piece["text_y"]
            if piece["kind"] == "grande":
                label = grande_of % {"player": escape(colour_player(view, piece["colour"]))}
                add(f'\n        <g class="grande" aria-hidden="true" data-colour="{colour}" aria-label="{label}">'
                    f'\n          <path d="{escape(piece["path"])}"/>'
                    f'\n          <text class="letter" x="{text_x}" y="{text_y}">{letter}</text>'
                    "\n        </g>")
            else:
                count = escape(piece["count"])
                add(f'\n        <g class="cube" aria-hidden="true" data-count="{count}" data-colour="{colour}">'
                    f'\n          <rect x="{piece["x"]}" y="{piece["y"]}" width="{piece["w"]}" height="{piece["h"]}"'
                    ' rx="5"/>'
                    f'\n          <text class="piece-label" x="{text_x}" y="{text_y}">'
                    f'<tspan class="letter">{letter}</tspan><tspan class="count">{count}</tspan></text>'
                    "\n        </g>")
        add("\n      </g>\n      ")
    return mark_safe("".join(parts))
