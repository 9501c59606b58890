"""The board: nine regions in scoring order, the Castillo, scoreboards and colours.

Areas are addressed by index in the engine's state: 0–8 are the regions in the order of the
scoring track, 9 is the Castillo. Ids are the stable ones of docs/rules.md.
"""

REGIONS = (
    "galicia",
    "basque",
    "aragon",
    "catalonia",
    "old_castile",
    "new_castile",
    "seville",
    "granada",
    "valencia",
)
CASTILLO = "castillo"
AREAS = REGIONS + (CASTILLO,)
CASTILLO_INDEX = len(REGIONS)
AREA_INDEX = {area: index for index, area in enumerate(AREAS)}

# English names, for tools and tests only: the rules never need them, and the site names areas in
# the reader's language (games/words/texts.py).
REGION_NAMES = {
    "galicia": "Galicia",
    "basque": "Basque Country",
    "aragon": "Aragon",
    "catalonia": "Catalonia",
    "old_castile": "Old Castile",
    "new_castile": "New Castile",
    "seville": "Seville",
    "granada": "Granada",
    "valencia": "Valencia",
    "castillo": "Castillo",
}

SCOREBOARDS = {
    "galicia": (4, 2, 0),
    "basque": (5, 3, 1),
    "aragon": (5, 4, 1),
    "catalonia": (4, 2, 1),
    "old_castile": (6, 4, 2),
    "new_castile": (7, 4, 2),
    "seville": (4, 3, 1),
    "granada": (6, 3, 1),
    "valencia": (5, 3, 2),
    "castillo": (5, 3, 1),
}
AREA_SCOREBOARDS = tuple(SCOREBOARDS[area] for area in AREAS)

_NEIGHBOURS = {
    "galicia": ("old_castile", "basque"),
    "basque": ("galicia", "old_castile", "aragon"),
    "aragon": ("basque", "old_castile", "new_castile", "catalonia", "valencia"),
    "catalonia": ("aragon", "valencia"),
    "old_castile": ("galicia", "basque", "aragon", "new_castile"),
    "new_castile": ("old_castile", "aragon", "valencia", "granada", "seville"),
    "seville": ("new_castile", "granada"),
    "granada": ("new_castile", "seville", "valencia"),
    "valencia": ("aragon", "catalonia", "new_castile", "granada"),
}
NEIGHBOURS = {region: frozenset(AREA_INDEX[n] for n in ns) for region, ns in _NEIGHBOURS.items()}
NEIGHBOUR_INDICES = tuple(NEIGHBOURS[region] for region in REGIONS)
SORTED_NEIGHBOUR_INDICES = tuple(tuple(sorted(neighbours)) for neighbours in NEIGHBOUR_INDICES)

MOBILE_SCOREBOARDS = ("8/4/0", "4/0/0")
MOBILE_VALUES = {"8/4/0": (8, 4, 0), "4/0/0": (4, 0, 0)}

COLOURS = ("red", "yellow", "blue", "green", "brown")
COLOUR_LABELS = {"red": "R", "yellow": "Y", "blue": "B", "green": "G", "brown": "N"}

START_IN_HOME = 2
START_IN_COURT = 7
START_IN_PROVINCES = 21

POWER_CARDS = tuple(range(1, 14))
POWER_CARD_CABALLEROS = {1: 6, 2: 5, 3: 5, 4: 4, 5: 4, 6: 3, 7: 3, 8: 2, 9: 2, 10: 1, 11: 1, 12: 0, 13: 0}


def area_index(area_id):
    """The index of an area id, or None when no such area exists."""
    if not isinstance(area_id, str):
        return None
    return AREA_INDEX.get(area_id)
