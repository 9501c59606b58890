"""In a real browser: the map reads on a phone (every label at least 12 CSS px at 390 px wide),
what stands in an area is drawn inside it, and cancelling a game asks first, with or without
JavaScript."""

import random
import re
from pathlib import Path

import pytest
from django.template.loader import render_to_string

from games.engine import apply_move, new_game, random_move, to_act, view_for
from games.engine.board import CASTILLO_INDEX, REGIONS
from games.words.texts import fill_view
from tests.support.browser import SHOTS, create_game, sign_up

pytestmark = pytest.mark.browser

STATIC = Path(__file__).resolve().parents[2] / "static"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

# Every text of the map: its size on screen, computed two ways, and what it says.
TEXT_SIZES = """() => {
    const svg = document.querySelector('svg.map');
    const scale = svg.getScreenCTM().a;
    return Array.from(svg.querySelectorAll('text')).map(text => ({
        text: text.textContent,
        px: parseFloat(getComputedStyle(text).fontSize) * scale,
        height: text.getBoundingClientRect().height,
    }));
}"""

# What is drawn in each area but does not stay inside its outline, and what overlaps: each part's
# box on screen, taken back to the map's coordinates, must have its corners in the area's shape.
MISPLACED = """() => {
    const svg = document.querySelector('svg.map');
    const toMap = svg.getScreenCTM().inverse();
    const problems = [];
    for (const area of svg.querySelectorAll('g.area')) {
        const shape = area.querySelector('polygon.shape');
        const parts = area.querySelectorAll(
            '.cube rect, .grande path, .king, .scoreboard rect, text.area-name, text.closed');
        const boxes = [];
        for (const part of parts) {
            const r = part.getBoundingClientRect();
            const a = new DOMPoint(r.left, r.top).matrixTransform(toMap);
            const b = new DOMPoint(r.right, r.bottom).matrixTransform(toMap);
            const what = part.textContent || part.tagName;
            const box = {left: a.x + 1, top: a.y + 1, right: b.x - 1, bottom: b.y - 1, what: what};
            boxes.push(box);
            const corners = [[box.left, box.top], [box.right, box.top], [box.left, box.bottom],
                             [box.right, box.bottom]];
            for (const [x, y] of corners) {
                if (!shape.isPointInFill(new DOMPoint(x, y))) {
                    problems.push(`${area.dataset.area}: ${box.what} sticks out at ${Math.round(x)},${Math.round(y)}`);
                    break;
                }
            }
        }
        for (let i = 0; i < boxes.length; i++) {
            for (let j = i + 1; j < boxes.length; j++) {
                const p = boxes[i], q = boxes[j];
                if (p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom) {
                    problems.push(`${area.dataset.area}: ${p.what} overlaps ${q.what}`);
                }
            }
        }
    }
    return problems;
}"""


def crowded(king, seed=9, show_castillo=True):
    """A five-player game in its third round with every colour in every area, two digits each,
    the King and a Grande in `king`, and a mobile scoreboard in Galicia."""
    state = new_game(num_players=5, seed=seed, show_castillo=show_castillo)
    rng = random.Random(seed)
    while not (state.round >= 3 and state.phase == "action"):
        seat = to_act(state)[0]
        state = apply_move(state, seat, random_move(state, seat, rng))
    for area in range(len(state.caballeros)):
        for seat in range(5):
            state.caballeros[area][seat] = 10 + (seat + area) % 9
    state.king = king
    state.grandes = [king, (king + 1) % 9, (king + 2) % 9, (king + 4) % 9, (king + 6) % 9]
    state.mobile = [0, CASTILLO_INDEX]
    state.scores = [12, 12, 13, 47, 98]
    return state


def board_page(view):
    """The board as the game page draws it, with the site's styles, in a page of its own."""
    styles = "".join((STATIC / name).read_text() for name in ("site.css", "board.css"))
    board = render_to_string("games/partials/board.html", {"view": view})
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<style>{styles}</style></head><body><main>{board}</main></body></html>"
    )


def test_every_label_on_the_map_is_at_least_12_px_on_a_phone_and_every_piece_stays_in_its_area(browser):
    # As the pages read it: filled with the names of areas and cards in the reader's language.
    views = [(REGIONS[king], fill_view(view_for(crowded(king), 0))) for king in range(len(REGIONS))]
    views.append(("hidden castillo", fill_view(view_for(crowded(5, show_castillo=False), 2))))
    for viewport in (PHONE, DESKTOP):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        for name, view in views:
            page.set_content(board_page(view))
            assert page.evaluate("document.documentElement.scrollWidth") == viewport["width"], name
            texts = page.evaluate(TEXT_SIZES)
            assert len(texts) > 100
            for text in texts:
                # The font's size on screen, and the box the browser draws the text in.
                assert text["px"] >= 12 and text["height"] >= 12, (name, viewport, text)
            assert page.evaluate(MISPLACED) == [], (name, viewport)
            if SHOTS:
                page.locator("svg.map").screenshot(path=f"{SHOTS}/map-{name}-{viewport['width']}.png")
        context.close()


def test_cancelling_a_game_asks_first_in_a_dialog(live_site, browser):
    context = browser.new_context(viewport=PHONE)
    page = sign_up(context, live_site, "carlos")
    game_url = create_game(page, live_site)
    page.wait_for_function("() => window.htmx !== undefined")
    dialog = page.locator("dialog#cancel-dialog")
    page.get_by_role("link", name="Cancel the game…").click()
    assert dialog.evaluate("d => d.open")
    assert page.url == game_url
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/cancel-dialog-390.png")
    # Changing one's mind closes the dialog and leaves the game as it was.
    dialog.get_by_role("button", name="No, keep it").click()
    assert not dialog.evaluate("d => d.open")
    page.reload()
    assert page.locator("section.waiting").count() == 1
    page.get_by_role("link", name="Cancel the game…").click()
    dialog.get_by_role("button", name="Yes, cancel the game").click()
    page.wait_for_selector("text=This game was cancelled by its creator.")
    context.close()


def test_without_javascript_cancelling_asks_on_a_page_of_its_own(live_site, browser):
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = sign_up(context, live_site, "dolores")
    game_url = create_game(page, live_site)
    page.get_by_role("link", name="Cancel the game…").click()
    page.wait_for_url(re.compile(r"/games/\d+/cancel/$"))
    assert "Cancel this game?" in page.locator("main").inner_text()
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/cancel-page-390.png")
    page.get_by_role("link", name="No, keep it").click()
    page.wait_for_url(game_url)
    assert page.locator("section.waiting").count() == 1
    page.get_by_role("link", name="Cancel the game…").click()
    page.get_by_role("button", name="Yes, cancel the game").click()
    page.wait_for_url(game_url)
    assert "This game was cancelled by its creator." in page.locator("main").inner_text()
    context.close()


def test_the_game_page_map_reads_on_a_phone_without_scrolling_sideways(live_site, browser):
    contexts = [browser.new_context(viewport=PHONE) for _ in range(2)]
    host, guest = sign_up(contexts[0], live_site, "elena"), sign_up(contexts[1], live_site, "fermin")
    game_url = create_game(host, live_site)
    guest.goto(game_url)
    guest.get_by_role("button", name="Join").click()
    guest.wait_for_selector("svg.map")
    for page in (guest, host):
        page.goto(game_url)
        page.wait_for_selector("svg.map")
        # The first decision (a bid) and the board fit the phone's width.
        assert page.evaluate("document.documentElement.scrollWidth") == PHONE["width"]
        texts = page.evaluate(TEXT_SIZES)
        assert texts and all(text["px"] >= 12 and text["height"] >= 12 for text in texts), texts
        assert page.evaluate(MISPLACED) == []
        if SHOTS:
            page.screenshot(path=f"{SHOTS}/game-start-390.png", full_page=True)
    for context in contexts:
        context.close()
