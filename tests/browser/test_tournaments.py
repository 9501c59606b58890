"""In a real browser, wide and narrow: the tournaments list from the header, a finished
tournament's page (standings, tie-breaks, its rounds' tables with links to the games), and signing
up for an open one; nothing wider than the screen."""

import pytest

from tests.support.browser import fits_the_screen, log_in, seeded, shoot

pytestmark = pytest.mark.browser

SIZES = [(1366, 900), (390, 844)]


@pytest.fixture(scope="module")
def site(live_site_env, live_site):
    seeded(live_site_env, "from tests.support.tournament_seed import seed; seed()")
    return live_site


@pytest.mark.parametrize("width,height", SIZES)
def test_a_finished_tournament_from_the_header(site, browser, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(f"{site}/")
    if page.locator("header .menu-toggle").is_visible():  # a phone: the header's links are in its menu
        page.click("header .menu-toggle")
    page.click("header >> text=Tournaments")
    page.wait_for_url(f"{site}/tournaments/")
    assert fits_the_screen(page)
    shoot(page, "tournaments")
    page.get_by_role("link", name="Copa de Otoño").click()
    page.wait_for_url(f"{site}/tournaments/*/")
    assert page.locator("h2", has_text="Final ranking").is_visible()
    rows = page.locator("table.standings tbody tr")
    assert rows.count() == 7
    assert rows.first.locator("td").nth(1).inner_text() == "alba"
    assert page.locator(".tournament-table").count() == 4
    assert fits_the_screen(page)
    shoot(page, "tournament")
    page.locator(".tournament-table h4 a").first.click()
    page.wait_for_url(f"{site}/games/*/")
    context.close()


@pytest.mark.parametrize("width,height", SIZES)
def test_signing_up_for_an_open_tournament(site, browser, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = log_in(context, site, "gaspard")
    page.goto(f"{site}/tournaments/")
    page.get_by_role("link", name="Winter Swiss").click()
    page.wait_for_url(f"{site}/tournaments/*/")
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_load_state()
    assert page.locator("ul.entrants li", has_text="gaspard").count() == 1
    assert page.locator("h2", has_text="6 entrants").is_visible()
    assert page.get_by_role("button", name="Withdraw").is_visible()
    assert fits_the_screen(page)
    shoot(page, "tournament-signup")
    page.get_by_role("button", name="Withdraw").click()
    page.wait_for_load_state()
    assert page.locator("ul.entrants li", has_text="gaspard").count() == 0
    context.close()


@pytest.mark.parametrize("width,height", SIZES)
def test_organising_a_tournament(site, browser, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = log_in(context, site, "chiara")
    page.goto(f"{site}/tournaments/")
    page.get_by_role("link", name="Organise a tournament").click()
    page.wait_for_url(f"{site}/tournaments/new/")
    assert fits_the_screen(page)
    shoot(page, "tournament-new")
    page.fill("input[name=name]", f"Chiara's cup {width}")
    page.fill("input[name=points]", "5, x")
    page.click("main form button[type=submit]")
    assert page.get_by_text("Write the points as whole numbers separated by commas.").is_visible()
    shoot(page, "tournament-new-refused")
    page.fill("input[name=points]", "6, 3, 1")
    page.select_option("select[name=format]", "groups")
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{site}/tournaments/*/")
    assert page.locator("h1").inner_text() == f"Chiara's cup {width}"
    assert page.get_by_text("By place in each game: 6, 3, 1.").is_visible()
    assert page.get_by_role("button", name="Start now").is_visible()
    assert page.get_by_label("I am sure").is_visible()
    shoot(page, "tournament-organiser")
    context.close()
