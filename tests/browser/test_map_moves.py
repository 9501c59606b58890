"""Moves made on the map, in Chromium: three players play the last round of a game to its end where
every placement, an Intrigue's plan (one step of it undone before confirming), an eviction and the
secret choices are made by clicking the map (static/decision.js); bids and card choices are clicked
in the panel, a bid chosen and then confirmed. A chat message from one browser appears in the
others without reload. At 390×844 no phase scrolls sideways."""

import json
import time

import pytest

from tests.support.browser import OVERFLOWING, SETTLED, log_in, seeded, shoot

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
TIMEOUT = 15_000

VERSION = "() => parseInt(document.getElementById('play').dataset.version, 10)"
# The target areas holding caballeros of another colour than the seat's own.
FOREIGN_TARGETS = """() => {
    const me = document.querySelector('.players .player.me').className.match(/colour-(\\w+)/)[1];
    return Array.from(document.querySelectorAll('svg.map g.area.target'))
        .filter(area => Array.from(area.querySelectorAll('.cube')).some(cube => cube.dataset.colour !== me))
        .map(area => area.dataset.area);
}"""


def make_game(env, prefix):
    return seeded(env, f"from tests.support.map_games import make; make({prefix!r})")


def version(page):
    return page.evaluate(VERSION)


def fits(page, viewport, phase):
    if viewport is PHONE:
        assert page.evaluate("document.documentElement.scrollWidth") == PHONE["width"], (
            phase, page.evaluate(OVERFLOWING)
        )


def area_target(page, area):
    """The name of an area on the map: a click there lands inside the area."""
    return page.locator(f'svg.map g.area[data-area="{area}"] text.area-name').first


def targets(page):
    return page.evaluate(
        "() => Array.from(document.querySelectorAll('svg.map g.area.target')).map(a => a.dataset.area)"
    )


def steps(page):
    return page.locator(".map-compose .map-steps li:not(.empty)")


def use_mode(page, name):
    switch = page.locator(".map-compose .map-modes button", has_text=name)
    if switch.count():
        switch.click()
        assert switch.get_attribute("aria-pressed") == "true"


def place_on_the_map(page, seen):
    """Place every caballero the card allows by clicking the map; once, take one back first."""
    use_mode(page, "Placement")
    form = page.locator("#decision form.place-form")
    limit = int(form.get_attribute("data-limit"))
    areas = targets(page)
    assert areas and "castillo" in areas
    # An area where nobody may place says why, and a click there adds nothing.
    illegal = page.locator("svg.map g.area.illegal").first
    why = illegal.get_attribute("data-why")
    assert why and why in illegal.locator("title").first.text_content()
    illegal.locator("text.area-name").first.click(force=True)
    assert page.locator(".map-compose .map-status").inner_text() == why
    assert steps(page).count() == 0
    if not seen.get("took_back"):
        # With the keyboard: an area is focusable and Enter picks it.
        page.locator(f'svg.map g.area[data-area="{areas[0]}"]').focus()
        page.keyboard.press("Enter")
        assert page.locator(f'.map-marks .ghost[data-area="{areas[0]}"]').count() == 1
        page.locator(f'.map-marks .take-back[data-area="{areas[0]}"]').click()
        assert page.locator(".map-marks .ghost").count() == 0
        assert page.locator(f'#decision input[name="to-{areas[0]}"]').input_value() == "0"
        seen["took_back"] = True
    for number in range(limit):
        area_target(page, areas[number % len(areas)]).click()
    placed = sum(int(page.locator(f'#decision input[name="to-{area}"]').input_value()) for area in areas)
    assert placed == limit
    if not seen.get("placed"):
        shoot(page, "mid-placement", parts=(".map-column",))
    seen["placed"] = seen.get("placed", 0) + limit
    page.locator(".map-compose .map-confirm").click()


def plan_on_the_map(page, viewport, seen):
    """Pick a group, send one to a destination and one to another; undo the second; confirm."""
    use_mode(page, "Special action")
    page.locator("svg.map .cube.draggable").first.click()
    assert page.locator("svg.map g.area.picked").count() == 1
    destinations = [area for area in targets(page)
                    if area != page.locator("svg.map g.area.picked").get_attribute("data-area")]
    area_target(page, destinations[0]).click()
    assert steps(page).count() == 1
    if page.locator("svg.map g.area.picked").count() == 0:
        page.locator("svg.map .cube.draggable").first.click()
    area_target(page, destinations[1]).click()
    assert steps(page).count() == 2
    assert page.locator(".map-marks .ghost").count() >= 2 and page.locator("svg.map .cube.leaving").count() >= 1
    rows = page.locator("#decision select[name='plan-1-to']")
    assert rows.input_value() == destinations[1]
    shoot(page, "mid-plan", parts=(".map-column",))
    fits(page, viewport, "an Intrigue composed on the map")
    page.locator(".map-compose .map-undo").click()
    assert steps(page).count() == 1
    assert rows.input_value() == ""
    assert page.locator("#decision select[name='plan-0-to']").input_value() == destinations[0]
    seen["plan"] = True
    page.locator(".map-compose .map-confirm").click()


def act(page, viewport, game, seen):
    panel = page.locator("#decision-panel")
    kind = panel.get_attribute("data-kind")
    if kind == "bid":
        before = version(page)
        panel.locator("button[name=move]").first.click()
        page.wait_for_timeout(200)
        assert version(page) == before, "a bid is not sent by its first click"
        panel.locator(".bid-confirm").click()
    elif kind == "court":
        panel.locator("button[type=submit]").first.click()
    elif kind == "card":
        offers = {json.loads(button.get_attribute("value"))["card"]: button
                  for button in panel.locator("button[name=move]").all()}
        for wanted in ("eviction", game["plan_card"]):
            if wanted in offers:
                seen.setdefault("takers", {})[wanted] = page
                offers[wanted].click()
                break
        else:
            next(iter(offers.values())).click()
        panel.locator(".decision-confirm").click()
    elif kind == "action" and panel.locator("form.place-none-form").count():
        panel.locator("form.place-none-form button").click()
        panel.locator(".decision-confirm").click()
    elif kind == "action" and panel.locator("form.place-form").count():
        place_on_the_map(page, seen)
    elif kind == "action" and panel.locator("table.plan").count():
        plan_on_the_map(page, viewport, seen)
    elif kind == "action" and panel.locator("form.special-form select[name=region]").count() and \
            seen.get("takers", {}).get("eviction") is page:
        use_mode(page, "Special action")
        foreign = page.evaluate(FOREIGN_TARGETS)
        assert foreign, "a region to evict where another player stands"
        region = foreign[0]
        area_target(page, region).click()
        assert page.locator("#decision select[name=region]").input_value() == region
        seen["evicted"] = region
        page.locator(".map-compose .map-confirm").click()
    elif kind == "action":
        panel.locator("form.decline-form button").click()
        panel.locator(".decision-confirm").click()
    elif kind in ("region", "castillo"):
        area = targets(page)[0]
        area_target(page, area).click()
        assert page.locator(f"svg.map g.area.chosen[data-area='{area}']").count() == 1
        seen.setdefault("disks", []).append(kind)
        page.locator(".map-compose .map-confirm").click()
    elif kind == "share":
        needed = int(page.locator("#decision form.share-form").get_attribute("data-limit"))
        for _ in range(needed):
            area_target(page, targets(page)[0]).click()
        page.locator(".map-compose .map-confirm").click()
    else:
        pytest.fail(f"unexpected decision {kind}")
    return kind


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_three_players_play_the_last_round_on_the_map(live_site, live_site_env, browser, viewport):
    game = make_game(live_site_env, f"map{viewport['width']}x")
    contexts = [browser.new_context(viewport=viewport, has_touch=viewport is PHONE) for _ in range(3)]
    pages = [log_in(context, live_site, name) for context, name in zip(contexts, game["players"])]
    url = f"{live_site}/games/{game['game']}/"
    for page in pages:
        page.goto(url)
        page.wait_for_selector("svg.map")
        page.wait_for_function("() => window.htmx !== undefined")
        page.evaluate("window.stillTheSamePage = true")
        fits(page, viewport, "the bidding")
    shoot(pages[0], "start", parts=(".map-column",))

    # Table talk: a question from one browser reaches the others without reload.
    pages[0].fill("#chat-text", "Who takes the Eviction?")
    pages[0].get_by_role("button", name="Send").click()
    for page in pages[1:]:
        page.wait_for_function(
            "() => Array.from(document.querySelectorAll('#chat .chat-text'))"
            "     .some(line => line.innerText === 'Who takes the Eviction?')",
            timeout=TIMEOUT,
        )

    seen = {}
    kinds = []
    deadline = time.monotonic() + 150
    while not all(page.locator("#play .over").count() for page in pages):
        assert time.monotonic() < deadline, f"the game did not end: {kinds}"
        newest = max(version(page) for page in pages)
        acting = [page for page in pages if version(page) == newest and page.locator("#decision-panel").count()]
        if not acting:
            pages[0].wait_for_timeout(100)
            continue
        page = acting[0]
        # The map's controls are built once the new view has settled (static/decision.js).
        page.wait_for_function(f"() => {SETTLED}", timeout=TIMEOUT)
        before = version(page)
        kinds.append(act(page, viewport, game, seen))
        page.wait_for_function(f"() => ({VERSION})() > {before}", timeout=TIMEOUT)
        assert page.locator("#move-error").inner_text().strip() == "", page.locator("#move-error").inner_text()
        fits(page, viewport, kinds[-1])

    assert seen.get("plan") and seen.get("evicted") and seen.get("took_back") and seen.get("placed")
    assert "region" in seen.get("disks", []), "a secret disk set on the map (where the evicted go)"
    log = pages[0].locator("#log").inner_text()
    assert "Eviction" in log
    for page in pages:
        assert page.evaluate("window.stillTheSamePage") is True
        fits(page, viewport, "the end")
    shoot(pages[0], "end", parts=(".map-column",))
    for context in contexts:
        context.close()
