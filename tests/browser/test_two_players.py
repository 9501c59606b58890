"""Two people play a whole short game in two browsers, each page kept current over its WebSocket."""

import re

import pytest

from tests.support.browser import MOVE_TIMEOUT, act, create_game, sign_up, version, wait_for_version

pytestmark = pytest.mark.browser


def test_two_players_play_a_short_game_to_the_end(live_site, browser):
    isabel_context, felipe_context = browser.new_context(), browser.new_context()
    isabel = sign_up(isabel_context, live_site, "isabel")
    felipe = sign_up(felipe_context, live_site, "felipe")

    game_url = create_game(
        isabel, live_site, check=["input[name=short_game][value=True]"], uncheck=["input[name=veto]"]
    )
    isabel.wait_for_function("() => window.htmx !== undefined")

    felipe.goto(game_url)
    felipe.get_by_role("button", name="Join").click()
    felipe.wait_for_selector("svg.map")
    # Isabel's page learns of the start over its socket, without reloading.
    isabel.wait_for_selector("svg.map", timeout=MOVE_TIMEOUT)
    pages = {"isabel": isabel, "felipe": felipe}
    for page in pages.values():
        page.evaluate("window.stillTheSamePage = true")

    kinds = set()
    placed = 0
    for _ in range(400):
        if isabel.locator("p.over").count() and felipe.locator("p.over").count():
            break
        acting = [name for name, page in pages.items() if page.locator("#decision-panel").count()]
        if not acting:
            isabel.wait_for_timeout(100)
            continue
        name = acting[0]
        page, other = pages[name], next(p for n, p in pages.items() if n != name)
        assert "Your move" in page.title()
        before = version(page)
        kind = act(page)
        kinds.add(kind)
        wait_for_version(page, before + 1)
        assert page.locator("#move-error").inner_text().strip() == "", page.locator("#move-error").inner_text()
        if kind == "action" and page.locator("form.place-form").count() == 0:
            placed += 1
        now = version(page)
        # The other browser sees the move arrive without any navigation.
        wait_for_version(other, now)
        assert other.locator("#log li").first.inner_text() == page.locator("#log li").first.inner_text()
    else:
        pytest.fail("the game did not end")

    for page in pages.values():
        assert page.evaluate("window.stillTheSamePage") is True
        assert "Your move" not in page.title()
        assert page.locator("section.scores").is_visible()
    assert {"bid", "court", "card", "action"} <= kinds
    assert placed
    # Each placement was one caballero added by clicking the map (static/decision.js).
    assert re.search(r"places 1 in ", isabel.locator("#log").inner_text())
    isabel_context.close()
    felipe_context.close()
