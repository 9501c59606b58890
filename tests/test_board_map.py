"""The drawn map keeps the engine's board: two regions share a border exactly when they are
neighbours (a player judging placement by the picture must not be misled). What stands in an area
is drawn inside it, and the tracks show the scores and the rounds."""

from itertools import combinations

import pytest

from games.engine import new_game, view_for
from games.engine.board import COLOURS, NEIGHBOURS, REGION_NAMES, REGIONS, SCOREBOARDS
from games.words import board_map
from games.words.board_map import OUTLINES
from games.words.texts import fill_view


def edges(polygon):
    return list(zip(polygon, polygon[1:] + polygon[:1]))


def overlap(first, second):
    """Whether two segments lie on one line and share a piece of positive length."""
    (ax, ay), (bx, by) = first
    for x, y in second:
        if (bx - ax) * (y - ay) - (by - ay) * (x - ax) != 0:
            return False
    horizontal = ax != bx
    lo1, hi1 = sorted((ax, bx) if horizontal else (ay, by))
    coords = [p[0] if horizontal else p[1] for p in second]
    lo2, hi2 = sorted(coords)
    return min(hi1, hi2) - max(lo1, lo2) > 0


def share_border(one, other):
    return any(overlap(a, b) for a in edges(OUTLINES[one]) for b in edges(OUTLINES[other]))


def test_regions_share_a_border_on_the_map_exactly_when_they_are_neighbours():
    for one, other in combinations(REGIONS, 2):
        neighbours = other in {REGIONS[i] for i in NEIGHBOURS[one]}
        assert share_border(one, other) == neighbours, (one, other)


def test_the_castillo_stands_apart():
    assert not any(share_border("castillo", region) for region in REGIONS)


# --- what stands in an area stays inside it -------------------------------------------------------


def inside(polygon, x, y):
    """Whether a point lies inside a polygon (even-odd rule)."""
    result = False
    for (x1, y1), (x2, y2) in edges(polygon):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            result = not result
    return result


def box_inside(polygon, left, top, width, height):
    corners = [(left, top), (left + width, top), (left, top + height), (left + width, top + height)]
    if not all(inside(polygon, x, y) for x, y in corners):
        return False
    # No corner of the outline pokes into the box either.
    return not any(left < x < left + width and top < y < top + height for x, y in polygon)


def laid_out(area_id, king, grandes, caballeros, values=(6, 4, 2), mobile=None):
    area = {
        "id": area_id,
        "name": REGION_NAMES[area_id],
        "values": list(values),
        "mobile": mobile,
        "scoreboard": list(SCOREBOARDS[area_id]),
        "king": king,
    }
    return board_map._area(area, caballeros, {colour: colour[0].upper() for colour in COLOURS}, (), grandes)


def boxes(area):
    """(left, top, width, height) of the pieces, the scoreboard and the King in a laid-out area.
    The names' widths depend on the font: tests/browser/test_board.py measures them in Chromium."""
    found = [(piece["x"], piece["y"], piece["w"], piece["h"]) for piece in area["pieces"]]
    found.append((area["board"]["x"], area["board"]["y"], area["board"]["w"], area["board"]["h"]))
    if area["king_x"] is not None:
        found.append((area["king_x"], area["king_y"], board_map.KING_W, board_map.KING_H))
    return found


def overlapping(one, other):
    (x1, y1, w1, h1), (x2, y2, w2, h2) = one, other
    return x1 < x2 + w2 and x2 < x1 + w1 and y1 < y2 + h2 and y2 < y1 + h1


# Every region with and without the King and a Grande; neither ever stands in the Castillo.
CROWDS = [
    (region, king, grandes) for region in REGIONS for king in (False, True) for grandes in ([], ["green"])
] + [("castillo", False, [])]


@pytest.mark.parametrize("area_id, king, grandes", CROWDS)
def test_five_colours_with_the_king_and_a_grande_fit_inside_every_area(area_id, king, grandes):
    caballeros = {colour: 10 + index for index, colour in enumerate(COLOURS)}  # two digits each
    area = laid_out(area_id, king, grandes, caballeros, values=(8, 4, 0), mobile="8/4/0")
    drawn = boxes(area)
    assert len(area["pieces"]) == len(grandes) + len(COLOURS)
    for box in drawn:
        assert box_inside(board_map.OUTLINES[area_id], *box), (area_id, box)
    for one, other in combinations(drawn, 2):
        assert not overlapping(one, other), (area_id, one, other)


def test_a_closed_castillo_shows_only_the_seats_own_caballeros_and_says_it_is_closed():
    view = fill_view(view_for(new_game(num_players=3, seed=4), 1))
    view["castillo"]["own"] = 3
    castillo = board_map.board_map(view, seat_colour=view["colour"])[-1]
    assert [(piece["colour"], piece["count"]) for piece in castillo["pieces"]] == [(view["colour"], 3)]
    assert "closed" in [text["text"] for text in castillo["texts"]]
    spectators = board_map.board_map(fill_view(view_for(new_game(num_players=3, seed=4), None)))[-1]
    assert spectators["pieces"] == [] and spectators["closed"]


def test_the_castillo_of_a_finished_game_is_open_to_all():
    import random

    from games.engine import apply_move, random_move, to_act

    rng = random.Random(7)
    state = new_game(num_players=3, seed=7, short_game=True)
    while not state.is_over:
        seat = to_act(state)[0]
        state = apply_move(state, seat, random_move(state, seat, rng))
    for viewer in (None, 0):
        view = fill_view(view_for(state, viewer))
        castillo = board_map.board_map(view, seat_colour=view.get("colour"))[-1]
        assert not castillo["closed"]
        assert "closed" not in [text["text"] for text in castillo["texts"]]
        # What lies there (nothing, once the last Castillo scoring has sent them out) is shown to all.
        assert sum(piece["count"] for piece in castillo["pieces"]) == sum(state.caballeros[-1])


def test_the_areas_do_not_overlap():
    for one, other in combinations(board_map.OUTLINES, 2):
        first, second = board_map.OUTLINES[one], board_map.OUTLINES[other]
        assert not any(inside(second, x, y) for x, y in first if (x, y) not in second), (one, other)
        assert not any(inside(first, x, y) for x, y in second if (x, y) not in first), (one, other)


# --- the tracks -------------------------------------------------------------------------------------


def test_the_scoring_track_runs_once_round_the_edge_space_after_space():
    spaces = [board_map.track_space(number)[:2] for number in range(board_map.TRACK_SPACES)]
    assert len(set(spaces)) == board_map.TRACK_SPACES
    edge = board_map.SIZE - board_map.SPACE
    assert all(x in (0, edge) or y in (0, edge) for x, y in spaces)
    for (x1, y1), (x2, y2) in zip(spaces, spaces[1:] + spaces[:1]):
        assert abs(x1 - x2) + abs(y1 - y2) == board_map.SPACE


def test_each_player_has_a_marker_on_the_space_of_their_score_and_ties_stand_apart():
    view = fill_view(view_for(new_game(num_players=4, seed=2), None))
    for player, score in zip(view["players"], (37, 37, 137, 0)):
        player["score"] = score
    markers = {marker["colour"]: marker for marker in board_map.score_track(view)["markers"]}
    centre = board_map.SPACE / 2
    for player in view["players"]:
        marker = markers[player["colour"]]
        x, y, (dx, dy) = board_map.track_space(player["score"])
        assert marker["score"] == player["score"]
        assert marker["round_again"] == (player["score"] >= 100)
        # On its space, or further into the map across the track.
        offset = (marker["x"] - x - centre, marker["y"] - y - centre)
        assert offset[0] * dy == pytest.approx(offset[1] * dx) and offset[0] * dx + offset[1] * dy >= 0
    shown = list(markers.values())
    for one, other in combinations(shown, 2):
        distance = ((one["x"] - other["x"]) ** 2 + (one["y"] - other["y"]) ** 2) ** 0.5
        assert distance >= 2 * board_map.MARKER_R - 5, (one, other)  # they may touch, never hide one another


def test_the_round_track_marks_the_current_round_the_rounds_played_and_the_scorings():
    state = new_game(num_players=3, seed=1, short_game=True)
    view = fill_view(view_for(state, None))
    view["round"] = 4
    rounds = board_map.round_track(view)
    assert [r["number"] for r in rounds] == list(range(1, state.num_rounds + 1))
    assert [r["number"] for r in rounds if r["current"]] == [4]
    assert [r["number"] for r in rounds if r["done"]] == [1, 2, 3]
    assert [r["number"] for r in rounds if r["scoring"]] == list(state.scoring_rounds)
    view["is_over"] = True
    assert all(r["done"] and not r["current"] for r in board_map.round_track(view))


# --- what the map's script reads: targets and why not ---------------------------------------------


def _placing_view():
    """A seat's view at its action turn, while it may still place."""
    import random

    from games.engine import apply_move, random_move, to_act

    state = new_game(num_players=3, seed=5)
    rng = random.Random(5)
    while True:
        seat = to_act(state)[0]
        decision = view_for(state, seat).get("decision") or {}
        if decision.get("kind") == "action" and decision.get("can_place") and decision.get("place_limit"):
            return view_for(state, seat)
        state = apply_move(state, seat, random_move(state, seat, rng))


def test_while_placing_each_area_that_takes_no_caballero_says_why_in_the_drawn_map():
    from django.template.loader import render_to_string

    view = _placing_view()
    king = view["king"]
    placeable = set(view["decision"]["place_areas"])
    html = render_to_string("games/partials/board.html", {"view": view})
    for area in [region["id"] for region in view["regions"]] + ["castillo"]:
        tag = html.split(f'data-area="{area}"', 1)[1].split(">", 1)[0]
        assert 'tabindex="0"' in tag, area
        if area in placeable:
            assert "data-place-why" not in tag, area
        elif area == king:
            assert "data-place-why=\"The King&#x27;s region: nobody may place caballeros here.\"" in tag
        else:
            assert 'data-place-why="Not next to the King' in tag, area
    assert "castillo" in placeable
    # Each colour's group says how many it holds, for the plan's counters.
    region = next(region for region in view["regions"] if region["caballeros"])
    colour, count = next(iter(region["caballeros"].items()))
    assert f'data-count="{count}" data-colour="{colour}"' in html


def test_no_reason_is_drawn_when_the_seat_is_not_placing():
    from django.template.loader import render_to_string

    bidding = view_for(new_game(num_players=3, seed=5), 0)
    assert bidding["decision"]["kind"] == "bid"
    assert "data-place-why" not in render_to_string("games/partials/board.html", {"view": bidding})
    assert all(not area["place_why"] for area in board_map.board_map(bidding))


def test_each_areas_title_and_pieces_name_their_players_escaped_and_in_the_readers_language():
    """The areas are written in Python (board_map.areas_markup), not by the template: a player's
    name is escaped there too, and every word is the reader's language's."""
    from django.template.loader import render_to_string
    from django.utils import translation
    from django.utils.html import escape

    view = fill_view(view_for(new_game(num_players=3, seed=5), None))
    for player in view["players"]:
        player["name"] = f'<b>"{player["colour"]}"</b>'
    region = next(region for region in view["regions"] if region["grandes"])
    colour = region["grandes"][0]
    with translation.override("it"):
        html = render_to_string("games/partials/board.html", {"view": view, "changed_areas": {region["id"]}})
        who = escape(board_map.colour_player(view, colour))
        words = [
            translation.gettext("Grande of %(player)s") % {"player": who},
            translation.gettext("changed since your last visit"),
            translation.gettext("scores %(values)s") % {"values": "/".join(map(str, region["values"]))},
            f"{who}: {translation.gettext('Grande')}",
        ]
    assert "<b>" not in html and who.startswith("&lt;b&gt;&quot;") and who.endswith(")")
    area = html.split(f'data-area="{region["id"]}"', 1)[1].split("\n      </g>", 1)[0]
    for word in words:
        assert word in area
    assert "Grande of" not in html and "changed since" not in html and "scores " not in html
    assert 'class="changed-since"' in area
