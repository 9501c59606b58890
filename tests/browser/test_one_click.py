"""No decision of a seat is sent by one click (static/decision.js): an action card, declining the special
action, going on without placing and every answer to a veto are chosen first, then sent by the Confirm
that appears after the choice, with the mouse or the keyboard alone; a lone click sends nothing and
the version stays. The map's Confirm stays in view while the map scrolls under it, and with nothing
planned asks again before it gives the placement up."""

import json
from urllib.parse import parse_qs

import pytest

from tests.support.browser import PHONE, log_in, seeded, shoot, version, wait_for_version

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1366, "height": 900}
CONFIRM = "#decision-panel .decision-confirm"


@pytest.fixture(scope="module")
def games(live_site_env, live_site):
    return seeded(live_site_env, "from tests.support.oneclick_games import make; make()")


def open_game(browser, site, games, name, viewport=DESKTOP, script=True):
    """The page of the seat to act in the game standing at `name`, and the list of the moves it posts
    (each as its posted `move` field), kept as they leave the page."""
    game, player = games[name]
    context = browser.new_context(viewport=viewport, java_script_enabled=script)
    page = log_in(context, site, player)
    posts = []

    def keep(request):
        if request.method == "POST" and request.url.endswith("/move/"):
            posts.append(parse_qs(request.post_data or "").get("move", [""])[0])

    page.on("request", keep)
    page.goto(f"{site}/games/{game}/")
    page.wait_for_selector("#decision-panel")
    if script:
        page.wait_for_function("() => window.htmx !== undefined")
    return context, page, posts


def nothing_sent(page, posts, before):
    assert posts == [], posts
    assert version(page) == before


def chosen(page, button):
    """`button` is shown chosen, with the one Confirm of the panel after it."""
    assert "chosen" in button.get_attribute("class")
    assert button.get_attribute("aria-pressed") == "true"
    assert page.locator(CONFIRM).count() == 1
    assert page.locator(CONFIRM).is_visible()


def sent(page, posts, before, move, earlier=0):
    """Confirm sends `move` (the chosen button's value), once, and the game goes on from it (after
    `earlier` moves of the page's)."""
    page.locator(CONFIRM).click()
    wait_for_version(page, before + 1)
    assert [json.loads(p) for p in posts[earlier:]] == [json.loads(move)]
    assert page.locator("#move-error").inner_text().strip() == ""


def test_an_action_card_is_taken_only_once_confirmed(live_site, browser, games):
    context, page, posts = open_game(browser, live_site, games, "card")
    before = version(page)
    cards = page.locator("#decision-panel .action-card-button")
    assert cards.count() >= 2
    cards.first.click()
    chosen(page, cards.first)
    nothing_sent(page, posts, before)
    # Another card replaces the choice: still one Confirm, naming it.
    cards.nth(1).click()
    chosen(page, cards.nth(1))
    assert "chosen" not in cards.first.get_attribute("class")
    assert cards.nth(1).locator("strong").inner_text() in page.locator(CONFIRM).inner_text()
    nothing_sent(page, posts, before)
    shoot(page, "card-choice", sizes=[DESKTOP, PHONE], full_page=False, in_view="#decision-panel")
    sent(page, posts, before, cards.nth(1).get_attribute("value"))
    context.close()


def test_an_action_card_is_chosen_and_confirmed_with_the_keyboard_alone(live_site, browser, games):
    context, page, posts = open_game(browser, live_site, games, "card_keys")
    before = version(page)

    def tab_to(selector, most):
        for _ in range(most):
            page.keyboard.press("Tab")
            if page.evaluate("s => document.activeElement.matches(s)", selector):
                return
        pytest.fail(f"Tab never reaches {selector}")

    tab_to("#decision-panel .action-card-button", 400)
    card = page.locator("#decision-panel .action-card-button:focus")
    move = card.get_attribute("value")
    page.keyboard.press(" ")
    chosen(page, card)
    nothing_sent(page, posts, before)
    tab_to(CONFIRM, 10)
    page.keyboard.press("Enter")
    wait_for_version(page, before + 1)
    assert [json.loads(p) for p in posts] == [json.loads(move)]
    context.close()


def test_without_javascript_a_card_is_sent_only_once_the_choice_is_ticked_as_confirmed(live_site, browser, games):
    context, page, posts = open_game(browser, live_site, games, "card_plain", script=False)
    before = version(page)
    card = page.locator("#decision-panel .action-card-button").first
    move = card.get_attribute("value")
    # The browser refuses to send the form until the tick is there: the lone click sends nothing.
    card.click()
    nothing_sent(page, posts, before)
    assert page.evaluate("document.querySelector('#decision-panel form.card-choices').checkValidity()") is False
    tick = page.locator("#decision-panel form.card-choices .noscript-confirm input[type=checkbox]")
    assert tick.is_visible() and not tick.is_checked()
    tick.check()
    card.click()
    page.wait_for_load_state()
    assert version(page) == before + 1
    assert [json.loads(p) for p in posts] == [json.loads(move)]
    context.close()


def test_declining_the_special_action_is_sent_only_once_confirmed(live_site, browser, games):
    context, page, posts = open_game(browser, live_site, games, "decline")
    before = version(page)
    decline = page.get_by_role("button", name="Decline the special action", exact=True)
    decline.click()
    chosen(page, decline)
    nothing_sent(page, posts, before)
    # The chosen button pressed again lets the choice go.
    decline.click()
    assert page.locator(CONFIRM).count() == 0
    assert "chosen" not in decline.get_attribute("class")
    nothing_sent(page, posts, before)
    decline.click()
    sent(page, posts, before, '{"type": "decline"}')
    context.close()


def test_a_special_action_with_nothing_to_choose_is_carried_out_only_once_confirmed(live_site, browser, games):
    """A scoring card's special action, say: carried out by a stray click (before the placement,
    when the player meant to place first) it cannot be taken back."""
    context, page, posts = open_game(browser, live_site, games, "special_none")
    before = version(page)
    carry = page.get_by_role("button", name="Carry out the special action", exact=True)
    carry.click()
    chosen(page, carry)
    nothing_sent(page, posts, before)
    shoot(page, "special-choice", sizes=[DESKTOP, PHONE], full_page=False, in_view="#decision-panel")
    carry.click()
    assert page.locator(CONFIRM).count() == 0
    nothing_sent(page, posts, before)
    carry.click()
    sent(page, posts, before, '{"type": "special"}')
    context.close()


def test_going_on_without_placing_is_sent_only_once_confirmed(live_site, browser, games):
    context, page, posts = open_game(browser, live_site, games, "place_none")
    before = version(page)
    go_on = page.get_by_role("button", name="Go on without placing", exact=True)
    go_on.click()
    chosen(page, go_on)
    nothing_sent(page, posts, before)
    sent(page, posts, before, '{"type": "place", "to": {}}')
    context.close()


def test_the_maps_confirm_with_nothing_planned_asks_again_before_giving_the_placement_up(
    live_site, browser, games
):
    """The map's Confirm sits in the bar at the window's foot, under the thumb: pressed with nothing
    planned, it would give up every caballero the turn may place. The first press says so and sends
    nothing; the second sends the placement of none; planning something meanwhile starts afresh."""
    context, page, posts = open_game(browser, live_site, games, "place_empty", PHONE)
    page.wait_for_selector(".map-compose .map-confirm")
    before = version(page)
    confirm = page.locator(".map-compose .map-confirm")
    status = page.locator(".map-compose .map-status")
    confirm.click()
    assert status.inner_text().startswith("Nothing placed: press Confirm again")
    page.wait_for_timeout(300)
    nothing_sent(page, posts, before)
    # A caballero planned and taken back: the question is asked afresh.
    page.locator("svg.map g.area.placeable text.area-name").first.click()
    page.locator(".map-compose .map-clear").click()
    confirm.click()
    assert status.inner_text().startswith("Nothing placed: press Confirm again")
    page.wait_for_timeout(300)
    nothing_sent(page, posts, before)
    confirm.click()
    wait_for_version(page, before + 1)
    assert len(posts) == 1
    context.close()


def test_a_veto_and_allowing_are_each_sent_only_once_confirmed(live_site, browser, games):
    context, page, posts = open_game(browser, live_site, games, "veto")
    before = version(page)
    allow = page.get_by_role("button", name="Allow", exact=True)
    veto = page.locator("#decision-panel .veto-form button[data-cut]").first
    allow.click()
    chosen(page, allow)
    nothing_sent(page, posts, before)
    veto.click()
    chosen(page, veto)
    assert "chosen" not in allow.get_attribute("class")
    nothing_sent(page, posts, before)
    sent(page, posts, before, veto.get_attribute("value"))
    context.close()


def test_answering_a_veto_with_allow_is_sent_only_once_confirmed(live_site, browser, games):
    context, page, posts = open_game(browser, live_site, games, "counter_veto")
    assert page.locator("#decision-panel").get_attribute("data-kind") == "counter_veto"
    before = version(page)
    veto = page.get_by_role("button", name="Veto the veto", exact=True)
    allow = page.get_by_role("button", name="Allow", exact=True)
    veto.click()
    chosen(page, veto)
    nothing_sent(page, posts, before)
    allow.click()
    chosen(page, allow)
    nothing_sent(page, posts, before)
    sent(page, posts, before, '{"type": "allow"}')
    context.close()


IN_VIEW = """() => {
    const r = document.querySelector('.map-compose .map-confirm').getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
}"""


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_map_confirm_stays_in_view_while_the_map_scrolls(live_site, browser, games, size):
    viewport = {"desktop": DESKTOP, "phone": PHONE}[size]
    context, page, posts = open_game(browser, live_site, games, f"place_{size}", viewport)
    page.wait_for_selector(".map-compose .map-confirm")
    assert page.evaluate("document.documentElement.scrollHeight") > viewport["height"], "the page scrolls"
    for block in ("start", "end"):
        # The map's top, then its bottom, at the window's edge: the Confirm above the map stays in view.
        page.evaluate("b => document.querySelector('svg.map').scrollIntoView({block: b})", block)
        assert page.evaluate("window.scrollY") > 0
        assert page.evaluate(IN_VIEW), block
    shoot(page, "map-confirm", full_page=False)
    # ... and, over the map, still answers: a caballero placed at the map's foot is confirmed from there.
    page.locator("svg.map g.area.placeable text.area-name").last.click()
    before = version(page)
    page.locator(".map-compose .map-confirm").click()
    wait_for_version(page, before + 1)
    assert len(posts) == 1
    # The panel swapped in after the move (htmx) is confirmed as the first one was: declining now.
    decline = page.get_by_role("button", name="Decline the special action", exact=True)
    decline.click()
    chosen(page, decline)
    sent(page, posts, before + 1, '{"type": "decline"}', earlier=1)
    context.close()
