"""In a real browser, wide and narrow: the ladder, the jump to one's own row, the profile's rating
charts and a finished game's rating changes, none wider than the screen."""

import pytest

from tests.support.browser import fits_the_screen, log_in, seeded, shoot

pytestmark = pytest.mark.browser

SIZES = [(1280, 900), (390, 844)]


@pytest.fixture(scope="module")
def site(live_site_env, live_site):
    seeded(live_site_env, "from tests.support.ratings_seed import seed; seed()")
    return live_site


def nothing_scrolls_sideways(page, selector):
    """The tables' scrolling boxes hold their tables whole: no column is hidden to the right."""
    return page.evaluate(
        "s => [...document.querySelectorAll(s)].every(box => box.scrollWidth <= box.clientWidth)", selector
    )


@pytest.mark.parametrize("width,height", SIZES)
def test_my_rank_takes_me_to_my_highlighted_row_on_its_page(site, browser, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = log_in(context, site, "ana")
    if page.locator("header .menu-toggle").is_visible():  # a phone: the header's links are in its menu
        page.click("header .menu-toggle")
    page.click("header >> text=Ladders")
    page.wait_for_url(f"{site}/ladders/")
    assert page.locator(".ladder-tabs a[aria-current=page]").inner_text() == "All games"
    assert page.locator("tr.me").count() == 0
    assert fits_the_screen(page)
    # Every column is on the screen (a phone's hides the last game's date), no sideways scrolling.
    assert nothing_scrolls_sideways(page, ".table-scroll")
    assert page.locator("th.last-game").is_visible() == (width > 600)
    shoot(page, "ladder")

    page.get_by_role("link", name="Show my row").click()
    page.wait_for_url(f"{site}/ladders/?page=2#player-*")
    row = page.locator("tr.me")
    assert row.locator("td.player").inner_text() == "ana"
    box = row.bounding_box()
    assert -1 <= box["y"] and box["y"] + box["height"] <= height + 1
    shoot(page, "my-row")

    page.locator(".ladder-tabs").get_by_role("link", name="2 players").click()
    page.wait_for_url(f"{site}/ladders/2/")
    assert page.locator(".ladder-tabs a[aria-current=page]").inner_text() == "2 players"
    assert page.locator("table.ladder tbody tr").count() == 5
    context.close()


@pytest.mark.parametrize("width,height", SIZES)
def test_the_profile_charts_each_ladder_and_the_game_shows_the_changes(site, browser, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = log_in(context, site, "ana")
    page.goto(f"{site}/players/ana/")
    charts = page.locator("#ratings figure.rating-chart svg")
    assert charts.count() == 5
    assert page.locator("#rating-0 svg circle").count() == 9
    chart = charts.first.bounding_box()
    assert chart["width"] <= width and chart["height"] > 50
    assert fits_the_screen(page)
    shoot(page, "profile")

    page.locator("#finished a[href^='/games/']").first.click()
    page.wait_for_selector("#rating-changes")
    assert page.locator("#rating-changes tbody tr").count() == 2
    assert fits_the_screen(page)
    assert nothing_scrolls_sideways(page, "#rating-changes .table-scroll")
    shoot(page, "game")
    context.close()
