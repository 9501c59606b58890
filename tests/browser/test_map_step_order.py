"""The order of a court spread planned on the map, in Chromium: while a veto is held the taker
announces his steps in the order he chooses (docs/rules.md, "The Veto"), and the map announces them in the
order its list shows (static/map/form.js writes the form's `to-order`). The holder's veto question
lists the steps in that order, and the move stored keeps it."""

import pytest

from tests.support.browser import SETTLED, log_in, seeded

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
TIMEOUT = 15_000
VERSION = "() => parseInt(document.getElementById('play').dataset.version, 10)"


def open_game(browser, site, name, game, viewport):
    context = browser.new_context(viewport=viewport)
    page = log_in(context, site, name)
    page.goto(f"{site}/games/{game}/")
    page.wait_for_selector("svg.map")
    page.wait_for_function("() => window.htmx !== undefined")
    return context, page


# Galicia then the Castillo, as the brief's taker plans them (scoring order too: the move must still
# say it as pairs in that order), and the Castillo then Galicia, against scoring order.
@pytest.mark.parametrize("clicks, viewport", [
    (["galicia", "castillo"], DESKTOP),
    (["castillo", "galicia"], PHONE),
])
def test_the_holder_is_shown_and_the_game_runs_the_order_planned_on_the_map(
    live_site, live_site_env, browser, clicks, viewport
):
    made = seeded(live_site_env, f"from tests.support.step_order_games import make; make('ord{viewport['width']}x')")
    game, (taker, _yellow, holder) = made["game"], made["players"]
    context, page = open_game(browser, live_site, taker, game, viewport)
    switch = page.locator(".map-compose .map-modes button", has_text="Special action")
    if switch.count():
        switch.click()
    for area in clicks:
        page.locator(f'svg.map g.area.target[data-area="{area}"] text.area-name').first.click(force=True)
    listed = page.locator(".map-compose .map-steps li:not(.empty)")
    assert listed.count() == 2
    names = {"galicia": "Galicia", "castillo": "Castillo"}
    for index, area in enumerate(clicks):
        assert names[area] in listed.nth(index).inner_text()
    before = page.evaluate(VERSION)
    page.locator(".map-compose .map-confirm").click()
    page.wait_for_function(f"() => ({VERSION})() > {before} && {SETTLED}", timeout=TIMEOUT)
    context.close()

    expected = [[area, 1] for area in clicks]
    assert seeded(live_site_env, f"from tests.support.step_order_games import recorded; recorded({game})") == {
        "type": "special", "to": expected,
    }

    context, page = open_game(browser, live_site, holder, game, viewport)
    steps = page.locator("#decision-panel .veto-form ol.veto-steps li .step-text")
    assert steps.count() == 2
    for index, area in enumerate(clicks):
        assert names[area] in steps.nth(index).inner_text()
    assert names[clicks[1]] not in steps.nth(0).inner_text()
    context.close()


def test_the_map_and_its_confirm_stay_in_view_together_with_steps_planned(live_site, live_site_env, browser):
    """The desktop map was sized for an empty composing box (11 rem): with two steps listed and the
    French hint on two lines the box, stuck at the window's foot, was 13 rem tall and hid the
    map's foot (its bottom row of the score track, the Castillo's base) at 1366 x 900."""
    from tests.browser.test_phone import MAP_AND_CONFIRM

    made = seeded(live_site_env, "from tests.support.step_order_games import make; make('ordsize')")
    game, (taker, _yellow, _holder) = made["game"], made["players"]
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="fr-FR")
    context.add_cookies([{"name": "django_language", "value": "fr", "url": live_site}])
    page = log_in(context, live_site, taker)
    page.goto(f"{live_site}/games/{game}/")
    page.wait_for_selector(".map-compose")
    page.locator(".map-compose .map-modes button").nth(1).click()
    for area in ("galicia", "castillo"):
        page.locator(f'svg.map g.area.target[data-area="{area}"] text.area-name').first.click(force=True)
    assert page.locator(".map-compose .map-steps li:not(.empty)").count() == 2
    seen = page.evaluate(MAP_AND_CONFIRM)
    assert abs(seen["map"]["top"]) < 1, seen
    assert seen["map"]["bottom"] <= seen["compose"]["top"] + 1, seen
    assert seen["compose"]["bottom"] <= seen["window"], seen
    context.close()


# The outline of each area's shape: the dashes that invite a click, or "none".
DASHES = """() => Object.fromEntries(Array.from(document.querySelectorAll('svg.map g.area.placeable'))
    .map(area => [area.dataset.area + (area.classList.contains('target') ? ':target' : ':not'),
                  getComputedStyle(area.querySelector('.shape')).strokeDasharray]))"""


def test_a_placeable_region_the_map_no_longer_takes_loses_its_dashed_outline(live_site, live_site_env, browser):
    """The regions where caballeros may be placed are outlined in dashes, the map's sign for "click
    here". Once the placement's limit was reached (one caballero, planned in Aragon) every one of
    them was refused by the map, greyed, yet kept its dashes, as if it could still be clicked."""
    made = seeded(live_site_env, "from tests.support.step_order_games import make; make('dash')")
    game, (taker, _yellow, _holder) = made["game"], made["players"]
    context, page = open_game(browser, live_site, taker, game, {"width": 1366, "height": 900})
    page.wait_for_selector(".map-compose")
    before = page.evaluate(DASHES)
    assert before and all(key.endswith(":target") and dashes != "none" for key, dashes in before.items()), before
    page.locator('svg.map g.area.target[data-area="aragon"] text.area-name').first.click()
    after = page.evaluate(DASHES)
    assert set(after) == {area.replace(":target", ":not") for area in before}, after
    assert set(after.values()) == {"none"}, after
    context.close()


def test_confirm_asks_before_it_drops_what_was_planned_under_the_other_tab(live_site, live_site_env, browser):
    """A placement planned on the map (one caballero to Aragon), then the special action's tab
    opened, planned and confirmed: Confirm sent the special action alone and the placement planned
    was gone without a word, to be planned again. Confirm now says so first; pressed again, it sends."""
    made = seeded(live_site_env, "from tests.support.step_order_games import make; make('other')")
    game, (taker, _yellow, _holder) = made["game"], made["players"]
    context, page = open_game(browser, live_site, taker, game, PHONE)
    page.wait_for_selector(".map-compose")
    page.locator('svg.map g.area.target[data-area="aragon"] text.area-name').first.click(force=True)
    page.locator(".map-compose .map-modes button", has_text="Special action").click()
    for area in ("galicia", "castillo"):
        page.locator(f'svg.map g.area.target[data-area="{area}"] text.area-name').first.click(force=True)
    before = page.evaluate(VERSION)
    page.locator(".map-compose .map-confirm").click()
    page.wait_for_timeout(500)
    assert page.evaluate(VERSION) == before
    said = page.locator(".map-compose").inner_text()
    assert "What you planned under “Placement” is not sent with this" in said, said
    page.locator(".map-compose .map-confirm").click()
    page.wait_for_function(f"() => ({VERSION})() > {before} && {SETTLED}", timeout=TIMEOUT)
    context.close()
    assert seeded(live_site_env, f"from tests.support.step_order_games import recorded; recorded({game})") == {
        "type": "special", "to": [["galicia", 1], ["castillo", 1]],
    }
