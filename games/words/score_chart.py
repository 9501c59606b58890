"""The chart of the scores over the rounds, one line per player: the geometry, which the template
templates/games/partials/score_chart.html draws as SVG, each line in its player's colour from
static/board.css's palette. Only presentation lives here."""

WIDTH, HEIGHT = 640, 250
LEFT, RIGHT, TOP, BOTTOM = 50, 96, 12, 36
LABEL_GAP = 13  # the least distance between two names at the lines' ends
LETTER_GAP = 24  # the same for the colour letters a phone shows there instead (static/phone.css)


def score_chart(series, num_rounds, scoring_rounds, players, current_round=None):
    """`series`: [(round, [score by seat])] from round 0 (the start) on, one entry per round
    finished; `players`: [{seat, colour, label, name}]; `current_round`: the round shaded."""
    ceiling, step = _scale(max((max(scores) for _, scores in series), default=0))
    plot_width, plot_height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(round_number):
        return round(LEFT + plot_width * round_number / num_rounds, 1)

    def y(score):
        return round(TOP + plot_height * (1 - score / ceiling), 1)

    lines = []
    for player in players:
        seat = player["seat"]
        dots = [
            {"x": x(number), "y": y(scores[seat]), "round": number, "score": scores[seat]} for number, scores in series
        ]
        lines.append(
            {
                **player,
                "points": " ".join(f"{dot['x']},{dot['y']}" for dot in dots),
                "dots": dots,
                "last": dots[-1],
            }
        )
    _spread_labels(lines)
    band = None
    if current_round:
        band = {
            "x": x(current_round - 1),
            "width": round(x(current_round) - x(current_round - 1), 1),
            "y": TOP,
            "height": plot_height,
        }
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "top": TOP,
        "bottom": HEIGHT - BOTTOM,
        "lines": lines,
        "grid": [{"y": y(value), "value": value} for value in range(0, ceiling + 1, step)],
        "ticks": [
            {"x": x(number), "round": number, "scoring": number in scoring_rounds} for number in range(num_rounds + 1)
        ],
        "band": band,
        "rounds": [number for number, _ in series],
    }


def _scale(top):
    """The top of the score axis and the step of its grid lines: at most six lines."""
    for step in (10, 20, 25, 50, 100):
        ceiling = max(step, -(-top // step) * step)
        if ceiling // step <= 6:
            return ceiling, step
    return -(-top // 100) * 100, max(100, -(-top // 600) * 100)


def _spread_labels(lines):
    """Where each player's name (and, on a phone, colour letter) goes at the end of the line: at its
    last point, moved apart just enough that those of equal or close scores do not overlap."""
    for key, gap, drop in (("label_y", LABEL_GAP, 4), ("letter_y", LETTER_GAP, 7)):
        placed = sorted(lines, key=lambda line: line["last"]["y"])
        previous = None
        for line in placed:
            label_y = line["last"]["y"] + drop
            if previous is not None and label_y - previous < gap:
                label_y = previous + gap
            line[key] = round(label_y, 1)
            previous = label_y
