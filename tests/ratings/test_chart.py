"""The history chart's geometry: every point inside the drawing, higher ratings higher up, the
horizontal lines at round values around them."""

from datetime import UTC, datetime

from ratings import chart
from ratings.models import RatingChange
from ratings.rating import MODEL, shown


def change(before, after):
    return RatingChange(
        mu_before=before[0], sigma_before=before[1], mu_after=after[0], sigma_after=after[1], place=1,
        finished_at=datetime(2026, 3, 1, tzinfo=UTC),
    )


def test_a_rating_that_never_moved_draws_a_flat_line_inside_the_chart():
    start = (MODEL.mu, MODEL.sigma)
    drawn = chart.history([change(start, start)], first_number=1)
    assert [dot["value"] for dot in drawn["dots"]] == [1000, 1000]
    assert drawn["dots"][0]["y"] == drawn["dots"][1]["y"]
    assert [line["value"] for line in drawn["lines"]] == [1000, 1005]
    for dot in drawn["dots"]:
        assert chart.LEFT <= dot["x"] <= drawn["right"] and chart.TOP <= dot["y"] <= drawn["bottom"]


def test_the_lines_are_round_values_and_at_most_max_lines_intervals():
    ratings = [(25.0, 8.0), (40.0, 2.0), (10.0, 4.0)]
    changes = [change(before, after) for before, after in zip(ratings, ratings[1:])]
    drawn = chart.history(changes, first_number=7)
    values = [shown(*rating) for rating in ratings]
    lines = [line["value"] for line in drawn["lines"]]
    step = lines[1] - lines[0]
    assert step in chart.STEPS and len(lines) - 1 <= chart.MAX_LINES
    assert lines[0] <= min(values) and lines[-1] >= max(values)
    assert all(value % step == 0 for value in lines)
    ys = [dot["y"] for dot in drawn["dots"]]
    assert ys[1] < ys[0] < ys[2]
    assert (drawn["first_number"], drawn["last_number"]) == (7, 8)
    assert drawn["points"] == " ".join(f"{dot['x']},{dot['y']}" for dot in drawn["dots"])


def test_no_game_draws_no_chart():
    assert chart.history([], first_number=1) is None
