"""The score chart's geometry: lines through each round's score, an axis that holds them, names
at the lines' ends that never overlap."""

from games.words.score_chart import BOTTOM, HEIGHT, LABEL_GAP, TOP, score_chart

PLAYERS = [
    {"seat": 0, "colour": "red", "label": "R", "name": "ana"},
    {"seat": 1, "colour": "blue", "label": "B", "name": "blas"},
    {"seat": 2, "colour": "yellow", "label": "Y", "name": "cris"},
]
SERIES = [(0, [0, 0, 0]), (1, [0, 4, 0]), (2, [30, 31, 30]), (3, [61, 61, 40])]


def test_each_line_goes_through_each_rounds_score_left_to_right_and_low_to_high():
    chart = score_chart(SERIES, 3, (2, 3), PLAYERS)
    assert [line["name"] for line in chart["lines"]] == ["ana", "blas", "cris"]
    for line in chart["lines"]:
        xs = [dot["x"] for dot in line["dots"]]
        assert xs == sorted(xs) and len(set(xs)) == 4
        assert [dot["score"] for dot in line["dots"]] == [scores[line["seat"]] for _, scores in SERIES]
        assert line["points"] == " ".join(f"{dot['x']},{dot['y']}" for dot in line["dots"])
    ana = chart["lines"][0]["dots"]
    assert ana[0]["y"] == HEIGHT - BOTTOM and ana[3]["y"] < ana[2]["y"] < ana[0]["y"]
    assert all(TOP <= dot["y"] <= HEIGHT - BOTTOM for line in chart["lines"] for dot in line["dots"])


def test_the_axis_holds_the_highest_score_with_at_most_six_grid_lines():
    for top in (0, 7, 61, 99, 140, 250):
        chart = score_chart([(0, [0, 0]), (1, [top, 1])], 1, (1,), PLAYERS[:2])
        values = [line["value"] for line in chart["grid"]]
        assert values[0] == 0 and values[-1] >= top and len(values) <= 7
        assert chart["lines"][0]["last"]["y"] >= TOP


def test_names_of_equal_scores_are_moved_apart():
    chart = score_chart(SERIES, 3, (2, 3), PLAYERS)
    ends = sorted(line["label_y"] for line in chart["lines"])
    assert all(b - a >= LABEL_GAP for a, b in zip(ends, ends[1:]))


def test_the_round_shown_is_shaded_and_scoring_rounds_are_marked():
    chart = score_chart(SERIES, 3, (2, 3), PLAYERS, current_round=2)
    ticks = {tick["round"]: tick for tick in chart["ticks"]}
    assert chart["band"]["x"] == ticks[1]["x"] and chart["band"]["width"] == round(ticks[2]["x"] - ticks[1]["x"], 1)
    assert [tick["round"] for tick in chart["ticks"] if tick["scoring"]] == [2, 3]
    assert score_chart(SERIES, 3, (2, 3), PLAYERS)["band"] is None
