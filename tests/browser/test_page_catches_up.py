"""A game page fetches its view when its socket tells of a new version. A second notice that comes
while that fetch is under way must not be lost: the page then shows the newest version, not the
one its first fetch brought. And a notice the server failed to send leaves the page behind for a
minute at most: a page that heard nothing for a while asks for the version again."""

import os
import re
import tempfile
from pathlib import Path

import pytest

from tests.support.browser import act, short_game_of_two, version, wait_for_version

pytestmark = pytest.mark.browser

# While this file exists, the site's channel layer loses every notice to the game pages
# (tests/support/lossy_layer.py).
LOSE_NOTICES = Path(tempfile.gettempdir()) / f"elgrande-lose-notices-{os.getpid()}"
SITE_ENV = {"DJANGO_SETTINGS_MODULE": "tests.support.lossy_layer", "LOSE_NOTICES_WHILE": str(LOSE_NOTICES)}


def acting_page(pages):
    for _ in range(100):
        for page in pages:
            if page.locator("#decision-panel").count():
                return page
        pages[0].wait_for_timeout(100)
    raise AssertionError("nobody is to act")


def test_a_notice_that_comes_while_the_page_is_fetching_is_not_lost(live_site, browser):
    isabel, felipe, game_url = short_game_of_two(browser, live_site, "catchisabel", "catchfelipe")

    # A spectator whose browser cannot unpack the socket's frames: it fetches its view on every
    # notice. Its first fetch is held back (answered later with what the server said at once).
    watcher = browser.new_context().new_page()
    watcher.add_init_script("delete window.DecompressionStream")
    watcher.goto(game_url)
    watcher.wait_for_selector("svg.map")
    start = version(watcher)
    held = []

    def hold_the_first(route):
        if held:
            route.continue_()
        else:
            held.append((route, route.fetch()))

    watcher.route(re.compile(r"/partials/play/"), hold_the_first)

    mover = acting_page([isabel, felipe])
    act(mover)
    wait_for_version(mover, start + 1)
    for _ in range(100):
        if held:
            break
        watcher.wait_for_timeout(50)
    assert held, "the spectator's page did not fetch the new version"

    # The next move is made while that fetch is still under way; its notice reaches the page then.
    mover = acting_page([isabel, felipe])
    act(mover)
    wait_for_version(mover, start + 2)
    watcher.wait_for_timeout(1000)
    route, response = held[0]
    route.fulfill(response=response)

    wait_for_version(watcher, start + 2)
    assert version(watcher) == version(mover)


def test_a_page_whose_notice_was_lost_reaches_the_new_version_by_itself(live_site, browser):
    isabel, felipe, game_url = short_game_of_two(browser, live_site, "lostisabel", "lostfelipe")

    # A spectator's page, whose clock the test moves on (its timers fire as if that time passed).
    context = browser.new_context()
    context.clock.install()
    watcher = context.new_page()
    watcher.goto(game_url)
    watcher.wait_for_selector("svg.map")
    assert watcher.evaluate("document.visibilityState") == "visible"
    start = version(watcher)

    LOSE_NOTICES.touch()
    try:
        mover = acting_page([isabel, felipe])
        act(mover)
        wait_for_version(mover, start + 1)
        # The notice of the move was lost: the page still shows the version before it...
        watcher.wait_for_timeout(1000)
        assert version(watcher) == start
        # ...until, having heard nothing for a minute, it asks and fetches the new one.
        watcher.clock.fast_forward(60_000)
        wait_for_version(watcher, start + 1)
    finally:
        LOSE_NOTICES.unlink(missing_ok=True)
