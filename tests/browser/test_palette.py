"""One palette of the players' colours, in CSS variables (static/board.css): the map's pieces and
markers, the chips, the marks the map's script draws and the score chart all take their colour from
it, so that one change of a variable recolours every one of them; no other file writes the colours."""

import re
from pathlib import Path

import pytest
from django.template.loader import render_to_string

from games.words.score_chart import score_chart
from tests.support.map_page import page_for, special_turn
from tests.support.static_pages import open_page

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PALETTE = {"red": "#c62828", "yellow": "#f2c80f", "blue": "#1e5bb8", "green": "#2e7d32", "brown": "#7b4f2c"}

# The colour each kind of drawing shows for `colour`, as Chromium computes it.
SHOWN = """colour => {
    const fill = selector => {
        const element = document.querySelector(selector);
        return element && getComputedStyle(element).fill;
    };
    const chip = document.querySelector(`.colour-${colour} .chip`);
    const line = document.querySelector(`.score-chart g.line[data-colour="${colour}"] polyline`);
    return {
        piece: fill(`svg.map .cube[data-colour="${colour}"] rect`),
        marker: fill(`svg.map .marker[data-colour="${colour}"] circle`),
        ghost: fill(`svg.map .map-marks .ghost[data-colour="${colour}"] rect`),
        chip: chip && getComputedStyle(chip).backgroundColor,
        chart: line && getComputedStyle(line).stroke,
        dot: fill(`.score-chart g.line[data-colour="${colour}"] circle`),
    };
}"""


def test_no_file_but_board_css_writes_the_players_colours():
    files = [path for folder in ("games", "static", "templates") for path in (ROOT / folder).rglob("*")
             if path.suffix in (".py", ".js", ".css", ".html") and path.is_file()]
    for colour, value in PALETTE.items():
        writers = sorted(str(path.relative_to(ROOT)) for path in files
                         if re.search(re.escape(value), path.read_text(), re.I))
        assert writers == ["static/board.css"], (colour, writers)


def test_one_change_of_the_palette_recolours_the_map_the_chips_the_scripts_marks_and_the_chart(browser):
    view = special_turn("intrigue_court_2")
    players = [{"seat": p["seat"], "colour": p["colour"], "label": p["label"], "name": p["colour"]}
               for p in view["players"]]
    chart = score_chart([(0, [0, 0, 0]), (1, [5, 9, 2])], 9, (3, 6, 9), players)
    html = page_for(view).replace(
        "</main>", render_to_string("games/partials/score_chart.html", {"chart": chart}) + "</main>"
    )
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    assert open_page(page, html) == []
    own = page.evaluate("document.querySelector('.players .player.me').className.match(/colour-(\\w+)/)[1]")
    # A caballero of the seat's own colour planned on the map: a ghost of that colour.
    page.locator("svg.map g.area.target text.area-name").first.click(force=True)
    before = page.evaluate(SHOWN, own)
    assert all(before.values()), before
    rgb = "rgb({}, {}, {})".format(*(int(PALETTE[own][i:i + 2], 16) for i in (1, 3, 5)))
    assert set(before.values()) == {rgb}, before
    page.evaluate(f"document.documentElement.style.setProperty('--colour-{own}', 'rgb(1, 2, 3)')")
    after = page.evaluate(SHOWN, own)
    assert set(after.values()) == {"rgb(1, 2, 3)"}, after
    page.close()
