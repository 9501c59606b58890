"""The geometry of a rating history chart, drawn as SVG by ratings/partials/history_chart.html:
one point before the first game shown, then one after each game."""

import math

from .rating import shown

WIDTH, HEIGHT = 480, 180
LEFT, RIGHT, TOP, BOTTOM = 44, 10, 10, 24
# Steps between the horizontal lines, in rating points: the smallest that draws at most
# MAX_LINES intervals.
STEPS = (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000)
MAX_LINES = 5


def history(changes, first_number):
    """`changes`: a player's RatingChange rows on one ladder, oldest first; `first_number`: which
    of his games on that ladder the first of them was (1 for his first). Returns what the
    template draws, or None without a change."""
    if not changes:
        return None
    values = [shown(changes[0].mu_before, changes[0].sigma_before)]
    values += [shown(change.mu_after, change.sigma_after) for change in changes]
    step = next(
        (step for step in STEPS if math.ceil(max(values) / step) - math.floor(min(values) / step) <= MAX_LINES),
        STEPS[-1],
    )
    low = math.floor(min(values) / step) * step
    high = max(math.ceil(max(values) / step) * step, low + step)
    span_x = (WIDTH - LEFT - RIGHT) / max(len(values) - 1, 1)
    span_y = (HEIGHT - TOP - BOTTOM) / (high - low)

    def x(index):
        return round(LEFT + index * span_x, 1)

    def y(value):
        return round(TOP + (high - value) * span_y, 1)

    dots = [{"x": x(0), "y": y(values[0]), "value": values[0], "number": None, "change": None}]
    for index, change in enumerate(changes, start=1):
        dots.append({
            "x": x(index),
            "y": y(values[index]),
            "value": values[index],
            # The game's own change: the dot before may be further back than the game before,
            # when that one is a private game the viewer is not shown (ratings.selectors).
            "delta": values[index] - shown(change.mu_before, change.sigma_before),
            "number": first_number + index - 1,
            "change": change,
        })
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "bottom": HEIGHT - BOTTOM,
        "points": " ".join(f"{dot['x']},{dot['y']}" for dot in dots),
        "dots": dots,
        "lines": [{"y": y(value), "value": value} for value in range(low, high + 1, step)],
        "first_number": first_number,
        "last_number": first_number + len(changes) - 1,
    }
