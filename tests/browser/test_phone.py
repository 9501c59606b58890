"""In a real browser at 390×844: every page works without scrolling sideways (the lobby, the rules,
the game page in each phase: bidding, an Intrigue's plan table, a secret choice, the general
scoring's Castillo choice, the end), and the decision panel's controls are at least 44 px tall."""


import pytest

from tests.support.browser import PHONE, fits_the_phone, log_in, seeded, shoot

pytestmark = pytest.mark.browser

# SCREENSHOTS=<folder> saves each page at these widths there, with its decision and its log.
SHOTS_AT = [{"width": 1280, "height": 900}, PHONE]

# The decision panel's controls that a finger must hit, smaller than 44 CSS px either way (a radio's
# or a checkbox's whole label is its target).
SMALL_TARGETS = """() => Array.from(document.querySelectorAll(
        '#decision-panel button, #decision-panel select, '
        + '#decision-panel input:not([type=hidden]):not([type=radio]):not([type=checkbox]), '
        + '#decision-panel label:has(input[type=radio]), #decision-panel label:has(input[type=checkbox])'))
    .filter(element => element.offsetParent !== null)
    .map(element => ({what: element.outerHTML.slice(0, 90), rect: element.getBoundingClientRect()}))
    .filter(target => target.rect.height < 44 || target.rect.width < 44)
    .map(target => `${target.what} ${Math.round(target.rect.width)}x${Math.round(target.rect.height)}`)"""


@pytest.fixture(scope="module")
def games(live_site_env, live_site):
    return seeded(live_site_env, "from tests.support.phone_games import make; make()")



@pytest.mark.parametrize("phase, kind", [
    ("bidding", "bid"), ("intrigue", "action"), ("secret", "region"), ("scoring", "castillo"), ("end", None),
])
def test_each_phase_of_the_game_page_fits_a_phone_with_fingers_sized_targets(live_site, browser, games, phase, kind):
    game, player = games[phase]
    context = browser.new_context(viewport=PHONE, has_touch=True)
    page = log_in(context, live_site, player)
    fits_the_phone(page, "the lobby")
    page.goto(f"{live_site}/games/{game}/")
    page.wait_for_selector("svg.map")
    panel = page.locator("#decision-panel")
    if kind is None:
        assert panel.count() == 0 and page.locator(".over").count() == 1
    else:
        assert panel.get_attribute("data-kind") == kind
    if phase == "intrigue":
        assert page.locator("#decision-panel table.plan").count() == 1, "an Intrigue's plan form is shown"
    shoot(page, f"phone-{phase}", sizes=SHOTS_AT, parts=("#decision", "#log"))
    page.set_viewport_size(PHONE)
    fits_the_phone(page, phase)
    # The panel stacks under the map, not beside it.
    assert page.evaluate("document.querySelector('#decision-panel, .over').getBoundingClientRect().width") <= 390
    assert page.evaluate(SMALL_TARGETS) == [], phase
    # A card named in the log opens its explanation on a tap, without scrolling sideways.
    summary = page.locator("#log details.card-ref > summary").first
    if summary.count():
        summary.tap()
        assert summary.locator("xpath=..").get_attribute("open") is not None
        fits_the_phone(page, f"{phase}, a card's explanation open")
    context.close()


def test_the_rules_page_fits_a_phone(live_site, browser):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{live_site}/rules/#card-eviction")
    fits_the_phone(page, "the rules")
    assert page.locator("#card-eviction").is_visible()
    shoot(page, "phone-rules", sizes=SHOTS_AT, parts=("#decision", "#log"))
    context.close()


FOOTER_OFFSET = """() => {
    const main = document.querySelector('main'), footer = document.querySelector('.site-footer');
    const left = (element) => element.getBoundingClientRect().left + parseFloat(getComputedStyle(element).paddingLeft);
    return Math.round(left(footer) - left(main));
}"""


@pytest.mark.parametrize("size", [{"width": 1366, "height": 900}, PHONE])
def test_the_footer_starts_where_the_page_above_it_does(live_site, browser, games, size):
    """The footer kept the lobby's 960 px column on every page: on the log-in page (a narrow form)
    and on a game (1280 px wide) it stood to one side of the text above it."""
    context = browser.new_context(viewport=size)
    page = context.new_page()
    for url in ("/accounts/login/", "/accounts/signup/", "/rules/"):
        page.goto(f"{live_site}{url}")
        assert page.evaluate(FOOTER_OFFSET) == 0, url
    game, player = games["bidding"]
    page = log_in(context, live_site, player)
    for url in ("/", f"/games/{game}/", f"/games/{games['end'][0]}/", "/accounts/settings/"):
        page.goto(f"{live_site}{url}")
        assert page.evaluate(FOOTER_OFFSET) == 0, url
    context.close()


MAP_AND_CONFIRM = """() => {
    const map = document.querySelector('svg.map');
    window.scrollTo(0, map.getBoundingClientRect().top + window.scrollY);
    const compose = document.querySelector('.map-compose');
    return {map: map.getBoundingClientRect().toJSON(), column: map.parentElement.getBoundingClientRect().width,
            compose: compose.getBoundingClientRect().toJSON(), window: window.innerHeight};
}"""


@pytest.mark.parametrize("size", [{"width": 1366, "height": 900}, {"width": 1280, "height": 720}, PHONE])
def test_the_map_and_its_confirm_are_in_the_window_together(live_site, browser, games, size):
    """On a 1366 x 900 desktop the square map, as wide as its column, was 906 px tall: its foot
    and the Confirm under it could not be in view with its top. Now the map with its top at the
    window's top ends above the composing box, and the box is whole in the window; a phone's
    map still takes the phone's whole width."""
    game, player = games["intrigue"]
    context = browser.new_context(viewport=size)
    page = log_in(context, live_site, player)
    page.goto(f"{live_site}/games/{game}/")
    page.wait_for_selector(".map-compose")
    seen = page.evaluate(MAP_AND_CONFIRM)
    assert abs(seen["map"]["top"]) < 1, seen
    assert seen["map"]["bottom"] <= seen["compose"]["top"] + 1, seen
    assert seen["compose"]["bottom"] <= seen["window"], seen
    if size == PHONE:
        assert seen["map"]["width"] == seen["column"]
        fits_the_phone(page, "the map")
    else:
        assert seen["map"]["width"] >= 480
    context.close()
