"""In a real browser: the lobby's "my games" follows the player's games live, the countdown runs,
and the tab title and favicon follow whose move it is across htmx swaps."""

import re

import pytest

from tests.support.browser import MOVE_TIMEOUT, SHOTS, act, create_game, sign_up, version, wait_for_version

pytestmark = pytest.mark.browser



def test_the_lobby_the_countdown_and_the_title_follow_the_game_live(live_site, browser):
    ana_context, blas_context = browser.new_context(), browser.new_context()
    ana = sign_up(ana_context, live_site, "ana")
    blas = sign_up(blas_context, live_site, "blas")

    game_url = create_game(ana, live_site)
    ana.goto(f"{live_site}/")
    assert "waiting for 1 more player" in ana.locator("#my-games").inner_text()
    ana.evaluate("window.stillTheSamePage = true")

    blas.goto(game_url)
    blas.get_by_role("button", name="Join").click()
    blas.wait_for_selector("svg.map")
    # Ana's lobby hears that her game started, and fetches its list again without reloading.
    ana.wait_for_function(
        "() => document.querySelector('#my-games').innerText.includes('round 1')", timeout=MOVE_TIMEOUT
    )
    assert ana.evaluate("window.stillTheSamePage") is True

    pages = {"ana": ana, "blas": blas}
    ana.goto(game_url)
    ana.wait_for_selector("svg.map")
    acting = next(name for name, page in pages.items() if page.locator("#decision-panel").count())
    page = pages[acting]
    other = next(p for n, p in pages.items() if n != acting)
    assert page.title().startswith("● Your move – Game")
    assert page.locator("#favicon").get_attribute("href").endswith("favicon-your-move.svg")
    assert not other.title().startswith("●")
    assert other.locator("#favicon").get_attribute("href").endswith("/favicon.svg")

    clock = page.locator("p.clock time.countdown")
    first = clock.inner_text()
    assert re.fullmatch(r"23 h 59 min left|1 d 0 h left", first)
    # It counts down in seconds once under a minute is left; here it only must keep going.
    page.evaluate("document.querySelector('p.clock time.countdown').dataset.ends = String(performance.now() + 65000)")
    page.wait_for_function(
        "() => /^1 min 0[0-4] s left$/.test(document.querySelector('p.clock time.countdown').textContent)"
    )

    if SHOTS:
        for width in (1280, 390):
            for name, shown in pages.items():
                shown.set_viewport_size({"width": width, "height": 900})
                shown.screenshot(path=f"{SHOTS}/game-{name}-{width}.png", full_page=True)

    # htmx settles a swap a moment after it: here 5 s after, so that a title that waited for the
    # settling would be seen under the new position, still settling.
    for shown in pages.values():
        shown.evaluate("htmx.config.defaultSettleDelay = 5000")
    before = version(page)
    act(page)
    wait_for_version(page, before + 1, settled=False)
    wait_for_version(other, before + 1, settled=False)
    # From the swap on, the title and icon follow the new position on both pages.
    for shown in pages.values():
        assert shown.locator("#play.htmx-settling").count() == 1, "the check comes before the settling"
        mine = shown.locator("#play").get_attribute("data-your-move") == "1"
        assert shown.title().startswith("● Your move – ") == mine
        assert shown.locator("#favicon").get_attribute("href").endswith(
            "favicon-your-move.svg" if mine else "/favicon.svg"
        )
        assert shown.locator("p.clock time.countdown").count() == 1

    if SHOTS:
        for width in (1280, 390):
            for name, shown in pages.items():
                shown.goto(f"{live_site}/")
                shown.set_viewport_size({"width": width, "height": 900})
                shown.screenshot(path=f"{SHOTS}/lobby-{name}-{width}.png", full_page=True)
    ana_context.close()
    blas_context.close()
