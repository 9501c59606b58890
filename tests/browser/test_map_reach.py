"""The map within reach (issue 18, phones and reading), in Chromium at 1366×900 and 390×844: the
take-back badge beside the count it takes back from, a finger's size; every map choice made with the
keyboard alone, Confirm included; on a phone the map takes the whole width; the composer's box, its
Confirm always in view, covers no part of the map's top."""

import pytest

from tests.support.map_page import page_for, special_turn
from tests.support.static_pages import open_page

pytestmark = pytest.mark.browser

SIZES = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}
FINGER = 44

BOX = "e => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; }"
IN_VIEW = """() => {
    const r = document.querySelector('.map-compose .map-confirm').getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
}"""


def opened(browser, size, card):
    page = browser.new_page(viewport=SIZES[size])
    # Inside #game, as on the game page, which is wider than other pages (static/board.css).
    html = page_for(special_turn(card)).replace("<main>", '<main><div id="game">').replace("</main>", "</div></main>")
    assert open_page(page, html) == []
    page.locator(".map-compose .map-modes button", has_text="Special action").click()
    return page


def box(locator):
    return locator.evaluate(BOX)


def overlap(a, b):
    across = a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"]
    return across and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"]


def tab_to(page, selector, back=False, limit=150):
    """Press Tab (or Shift+Tab) until the focus is on `selector`."""
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"the keyboard never reaches {selector}")


def steps(page):
    return page.evaluate("""Array.from(document.querySelectorAll('.map-compose .map-steps li:not(.empty)'))
        .map(li => li.firstChild.textContent.trim())""")


@pytest.mark.parametrize("size", SIZES)
def test_the_take_back_badge_sits_beside_the_count_and_is_a_fingers_size(browser, size):
    page = opened(browser, size, "intrigue_court_2")
    page.locator('svg.map g.area[data-area="aragon"] text.area-name').click()
    ghost = box(page.locator('.map-marks .ghost[data-area="aragon"] rect'))
    badge = page.locator('.map-marks .take-back[data-area="aragon"]')
    hit = box(badge.locator(".hit"))
    sign = box(badge.locator("circle"))
    assert hit["w"] >= FINGER and hit["h"] >= FINGER, hit
    # Beside the count: on its row, just right of it, covering none of it.
    assert not overlap(hit, ghost) and not overlap(sign, ghost), (hit, ghost)
    assert 0 <= sign["x"] - (ghost["x"] + ghost["w"]) <= 20, (sign, ghost)
    assert abs((sign["y"] + sign["h"] / 2) - (ghost["y"] + ghost["h"] / 2)) <= 2, (sign, ghost)
    # What a finger at the edge of the target presses takes one back.
    page.mouse.click(hit["x"] + hit["w"] - 2, hit["y"] + 2)
    assert page.locator('.map-marks .ghost[data-area="aragon"]').count() == 0
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_placement_is_made_taken_back_and_confirmed_with_the_keyboard_alone(browser, size):
    page = opened(browser, size, "intrigue_court_2")
    tab_to(page, 'svg.map g.area[data-area="aragon"]')
    page.keyboard.press("Enter")
    page.keyboard.press(" ")
    assert steps(page) == ["2 to Aragon"]
    tab_to(page, '.map-marks .take-back[data-area="aragon"]')
    page.keyboard.press("Enter")
    assert steps(page) == ["1 to Aragon"]
    # The badge drawn anew keeps the focus: Enter again takes the next one back.
    page.keyboard.press("Enter")
    assert steps(page) == []
    tab_to(page, 'svg.map g.area[data-area="castillo"]', back=True)
    page.keyboard.press("Enter")
    tab_to(page, ".map-compose .map-confirm")
    page.keyboard.press("Enter")
    sent = page.evaluate("window.sent")
    assert len(sent) == 1 and sent[0]["to-castillo"] == "1" and sent[0]["to-aragon"] == "0", sent
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_an_intrigues_plan_is_made_with_the_keyboard_alone(browser, size):
    page = opened(browser, size, "intrigue_3_any")
    source = page.evaluate("document.querySelector('svg.map g.area.target').dataset.area")
    tab_to(page, f'svg.map g.area[data-area="{source}"]')
    page.keyboard.press("Enter")  # the first colour there picked up
    assert page.locator(f'svg.map g.area.picked[data-area="{source}"]').count() == 1
    destination = page.evaluate(
        "s => Array.from(document.querySelectorAll('svg.map g.area.target')).map(a => a.dataset.area)"
        ".find(a => a !== s)", source)
    tab_to(page, f'svg.map g.area[data-area="{destination}"]')
    page.keyboard.press(" ")
    assert len(steps(page)) == 1
    tab_to(page, ".map-compose .map-confirm")
    page.keyboard.press("Enter")
    sent = page.evaluate("window.sent")
    assert len(sent) == 1 and sent[0]["plan-0-from"] == source and sent[0]["plan-0-to"] == destination, sent
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_region_field_is_chosen_and_confirmed_with_the_keyboard_alone(browser, size):
    page = opened(browser, size, "king_card")
    tab_to(page, 'svg.map g.area.target[data-area="aragon"]')
    page.keyboard.press("Enter")
    assert page.locator('svg.map g.area.chosen[data-area="aragon"]').count() == 1
    tab_to(page, ".map-compose .map-confirm")
    page.keyboard.press(" ")
    sent = page.evaluate("window.sent")
    assert len(sent) == 1 and sent[0]["to"] == "aragon", sent
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_the_composers_box_keeps_confirm_in_view_and_covers_no_part_of_the_maps_top(browser, size):
    page = opened(browser, size, "intrigue_court_2")
    page.locator('svg.map g.area[data-area="aragon"] text.area-name').click()
    viewport = SIZES[size]
    if size == "phone":
        # The map takes the whole width of the phone.
        shown = box(page.locator("svg.map"))
        assert shown["x"] == 0 and shown["w"] == viewport["width"], shown
        assert page.evaluate("document.documentElement.scrollWidth") == viewport["width"]
    composer = page.locator(".map-compose")
    for block in ("start", "center", "end"):
        page.evaluate("b => document.querySelector('svg.map').scrollIntoView({block: b})", block)
        assert page.evaluate(IN_VIEW), block
        if block == "start":
            # The map's top at the window's: the box is below it, on a phone below the whole map (on
            # a wide screen the map is taller than the window, and the box covers some of its foot).
            shown, covered = box(page.locator("svg.map")), box(composer)
            if size == "phone":
                assert not overlap(covered, shown), (covered, shown)
            else:
                assert covered["y"] >= shown["y"] + shown["h"] * 3 / 4, (covered, shown)
    # Compact: at most a quarter of the window.
    assert box(composer)["h"] <= viewport["height"] / 4, box(composer)
    page.close()
