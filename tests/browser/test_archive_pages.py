"""The archive and the statistics in a real browser, on a desk and on a phone: filters from the
form end up in the address, pages go on, and nothing is wider than the screen."""

import subprocess
import sys

import pytest

from tests.support.browser import MANAGE, PASSWORD, ROOT, SHOTS, copy_of_migrated, log_in, site_environment
from tests.support.helpers import serving

pytestmark = pytest.mark.browser

SEED = (
    "import django; django.setup(); "
    "from tests.support.archive_games import many_games; many_games(60); "
    "from accounts.models import User; ana = User.objects.get(username='ana'); "
    f"ana.set_password('{PASSWORD}'); ana.save()"
)


@pytest.fixture(scope="module")
def archive_site(tmp_path_factory, migrated_database):
    """The site (as conftest's live_site) with sixty finished games in its archive."""
    database = copy_of_migrated(migrated_database, tmp_path_factory.mktemp("archive-site") / "db.sqlite3")
    env = site_environment(database)
    subprocess.run([sys.executable, "-c", SEED], cwd=ROOT, env=env, check=True)
    with serving(
        lambda port: [*MANAGE, "runserver", "--noreload", f"127.0.0.1:{port}"],
        env=env, cwd=ROOT, log_path=database.parent / "server.log",
    ) as port:
        yield f"http://127.0.0.1:{port}"


def wider_than_the_screen(page):
    """Whether the page, or a table in its scrolling box, is wider than the screen."""
    return page.evaluate(
        "document.documentElement.scrollWidth > window.innerWidth || "
        "[...document.querySelectorAll('.table-scroll')].some(box => box.scrollWidth > box.clientWidth)"
    )


@pytest.mark.parametrize("width", [1280, 390])
def test_the_archive_filters_and_pages_in_a_browser(archive_site, browser, width):
    page = browser.new_page(viewport={"width": width, "height": 844 if width == 390 else 900})
    page.goto(f"{archive_site}/archive/")
    rows = page.locator("table.archive tbody tr")
    assert rows.count() == 25
    assert not wider_than_the_screen(page)
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/archive-{width}.png", full_page=True)
        page.screenshot(path=f"{SHOTS}/archive-{width}-top.png")

    page.fill("#id_player", "ana")
    page.select_option("#id_players", "3")
    page.click("#archive-filters button[type=submit]")
    page.wait_for_url("**/archive/?player=ana*")
    assert "players=3" in page.url
    assert rows.count() > 0
    for index in range(rows.count()):
        text = rows.nth(index).inner_text()
        assert "ana" in text and "3 players" in text
    assert page.locator("#id_players").input_value() == "3"
    assert not wider_than_the_screen(page)

    # A player's name narrows the list to the games against them.
    page.goto(f"{archive_site}/archive/?player=ana")
    page.locator("table.archive a.player-link", has_text="blas").first.click()
    page.wait_for_url("**/archive/?player=ana&against=blas")
    assert "Games between ana and blas" in page.locator("#archive").inner_text()

    page.goto(f"{archive_site}/archive/")
    first = rows.first.inner_text()
    page.get_by_role("link", name="Older games").click()
    page.wait_for_url("**/archive/?after=*")
    assert rows.count() == 25 and rows.first.inner_text() != first
    page.get_by_role("link", name="Newer games").click()
    page.wait_for_url("**/archive/?before=*")
    assert rows.first.inner_text() == first

    page.goto(f"{archive_site}/archive/?since=2025-02-30")
    assert page.locator("#archive-error").is_visible()
    assert not wider_than_the_screen(page)
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/archive-error-{width}.png", full_page=True)
    page.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_statistics_in_a_browser(archive_site, browser, width):
    context = browser.new_context(viewport={"width": width, "height": 844 if width == 390 else 900})
    # Logged in, the header holds the player's links too.
    page = log_in(context, archive_site, "ana")
    page.goto(f"{archive_site}/statistics/")
    assert "Drawn from the 60 finished public games" in page.locator("main").inner_text()
    for section in ("#by-players", "#positions", "#homes", "#cards"):
        assert page.locator(f"{section} table").is_visible()
    assert not wider_than_the_screen(page)
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/statistics-{width}.png", full_page=True)
        page.screenshot(path=f"{SHOTS}/statistics-{width}-top.png")
    context.close()
