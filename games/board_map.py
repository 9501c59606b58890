"""The drawing of the board: where each area lies on a schematic map of Spain, and what stands in it.

Only presentation lives here. Everything drawn comes from a `view_for` result, so the map can show
nothing the seat may not see. The regions keep the engine's neighbours (games/engine/board.py):
two regions share an edge on the map exactly when they are neighbours.
"""

from games.engine.board import COLOURS

# Polygons in the SVG's coordinates (viewBox 0 0 700 520); shared edges are shared exactly.
OUTLINES = {
    "galicia": [(20, 40), (160, 40), (160, 150), (110, 150), (110, 240), (20, 240)],
    "basque": [(160, 40), (350, 40), (350, 150), (160, 150)],
    "aragon": [(350, 40), (480, 40), (490, 190), (460, 290), (350, 290)],
    "catalonia": [(480, 40), (670, 40), (655, 130), (580, 205), (490, 190)],
    "old_castile": [(110, 150), (350, 150), (350, 290), (110, 290)],
    "new_castile": [(110, 290), (460, 290), (440, 390), (110, 390)],
    "valencia": [(490, 190), (580, 205), (565, 300), (540, 400), (470, 420), (440, 390), (460, 290)],
    "seville": [(80, 390), (290, 390), (290, 505), (120, 505)],
    "granada": [(290, 390), (440, 390), (470, 420), (445, 505), (290, 505)],
    "castillo": [(575, 300), (600, 300), (600, 285), (615, 285), (615, 300), (645, 300), (645, 285),
                 (660, 285), (660, 300), (685, 300), (685, 470), (575, 470)],
}

# Top-left corner of each area's contents (name, values, pieces).
ANCHORS = {
    "galicia": (28, 48),
    "basque": (170, 48),
    "aragon": (358, 48),
    "catalonia": (500, 48),
    "old_castile": (120, 158),
    "new_castile": (120, 298),
    "valencia": (484, 215),
    "seville": (98, 398),
    "granada": (298, 398),
    "castillo": (583, 308),
}

COLOUR_FILLS = {"red": "#c62828", "yellow": "#f2c80f", "blue": "#1e5bb8", "green": "#2e7d32", "brown": "#7b4f2c"}
# Dark letters on the light cube, light letters on the dark ones.
LETTER_FILLS = {"yellow": "#222"}

CUBE = 18
CUBE_STEP = 36  # a cube and its count
# As many cubes side by side as the area's width allows.
CUBES_PER_ROW = {
    "galicia": 3, "basque": 5, "aragon": 3, "catalonia": 4, "old_castile": 5,
    "new_castile": 5, "valencia": 2, "seville": 4, "granada": 3, "castillo": 2,
}
# Where the King stands when in the region: its top right corner, clear of the name.
KING_SPOTS = {
    "galicia": (122, 46), "basque": (312, 46), "aragon": (444, 46), "catalonia": (622, 46),
    "old_castile": (312, 156), "new_castile": (418, 296), "valencia": (540, 222),
    "seville": (250, 396), "granada": (400, 396),
}


def board_map(view, seat_colour=None, placeable=()):
    """The areas to draw, each with its outline, anchor and pieces laid out in SVG coordinates."""
    labels = {player["colour"]: player["label"] for player in view["players"]}
    areas = []
    for region in view["regions"]:
        areas.append(_area(region, region["caballeros"], labels, placeable, grandes=region["grandes"]))
    castillo = view["castillo"]
    shown = castillo["caballeros"]
    area = _area(castillo, shown or {}, labels, placeable, grandes=[])
    area["closed"] = shown is None
    area["own"] = castillo["own"]
    area["own_colour"] = seat_colour
    if shown is None and seat_colour:
        area["own_fill"] = COLOUR_FILLS[seat_colour]
        area["own_letter"] = labels[seat_colour]
        area["own_letter_fill"] = LETTER_FILLS.get(seat_colour, "#fff")
    areas.append(area)
    return areas


def _area(area, caballeros, labels, placeable, grandes):
    x, y = ANCHORS[area["id"]]
    cubes = []
    for index, (colour, count) in enumerate(sorted(caballeros.items(), key=lambda item: _colour_rank(item[0]))):
        row, column = divmod(index, CUBES_PER_ROW[area["id"]])
        cubes.append(
            {
                "colour": colour,
                "letter": labels.get(colour, "?"),
                "count": count,
                "x": x + column * CUBE_STEP,
                "y": y + 36 + row * (CUBE + 6),
                "fill": COLOUR_FILLS.get(colour, "#888"),
                "letter_fill": LETTER_FILLS.get(colour, "#fff"),
            }
        )
    per_row = CUBES_PER_ROW[area["id"]]
    rows = (len(cubes) + per_row - 1) // per_row
    grande_y = y + 36 + max(rows, 1) * (CUBE + 6)
    return {
        "id": area["id"],
        "name": area["name"],
        "points": " ".join(f"{px},{py}" for px, py in OUTLINES[area["id"]]),
        "x": x,
        "y": y,
        "king": area.get("king", False),
        "king_x": KING_SPOTS.get(area["id"], (x, y))[0],
        "king_y": KING_SPOTS.get(area["id"], (x, y))[1],
        "values": "/".join(str(value) for value in area["values"]),
        "mobile": area["mobile"],
        "printed": "/".join(str(value) for value in area["scoreboard"]),
        "cubes": cubes,
        "grandes": [
            {
                "colour": colour,
                "letter": labels.get(colour, "?"),
                "x": x + index * 20,
                "y": grande_y,
                "fill": COLOUR_FILLS.get(colour, "#888"),
                "letter_fill": LETTER_FILLS.get(colour, "#fff"),
            }
            for index, colour in enumerate(grandes)
        ],
        "placeable": area["id"] in placeable,
    }


def _colour_rank(colour):
    return COLOURS.index(colour) if colour in COLOURS else len(COLOURS)

