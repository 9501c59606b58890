"""A spectator's page in a real browser takes each new version's view from its socket (a gzip frame
that static/game.js unpacks and swaps in), without fetching anything; so do the players' pages,
each brought its own view by its own socket (games/live/own_views.py), the mover's by his move's
answer."""

import pytest

from tests.support.browser import MOVE_TIMEOUT, act, create_game, sign_up, version, wait_for_version

pytestmark = pytest.mark.browser


def test_a_spectators_page_shows_each_move_from_its_socket_alone(live_site, browser):
    contexts = [browser.new_context() for _ in range(3)]
    rosa = sign_up(contexts[0], live_site, "rosa")
    tomas = sign_up(contexts[1], live_site, "tomas")
    game_url = create_game(rosa, live_site)
    tomas.goto(game_url)
    tomas.get_by_role("button", name="Join").click()
    tomas.wait_for_selector("svg.map")
    rosa.wait_for_selector("svg.map", timeout=MOVE_TIMEOUT)
    players = {"rosa": rosa, "tomas": tomas}

    watcher = contexts[2].new_page()
    watcher.goto(game_url)
    watcher.wait_for_selector("svg.map")
    watcher.evaluate("window.stillTheSamePage = true")
    asked = []
    watcher.on("request", lambda request: asked.append(request.url))
    fetched_by_players = []
    for page in players.values():
        page.on("request", lambda request: fetched_by_players.append(request.url))

    for _ in range(4):
        acting = [page for page in players.values() if page.locator("#decision-panel").count()]
        page = acting[0]
        before = version(page)
        act(page)
        wait_for_version(page, before + 1)
        now = version(page)
        for shown in (*players.values(), watcher):
            wait_for_version(shown, now)
        # The spectator sees what the players see of the board, at once.
        assert watcher.locator("#log li").first.inner_text() == page.locator("#log li").first.inner_text()

    assert asked == []
    assert watcher.evaluate("window.stillTheSamePage") is True
    assert watcher.locator("#decision-panel").count() == 0
    # Nor did the players' pages fetch their views: each came in its own socket's frame.
    assert not [url for url in fetched_by_players if "/partials/play/" in url]
    # The clock of a view from a frame runs as a fetched one's does (static/clocks.js).
    clock = watcher.locator("p.clock time.countdown")
    first = clock.get_attribute("data-left")
    assert int(first) > 0
    watcher.evaluate(
        "document.querySelector('p.clock time.countdown').dataset.ends = String(performance.now() + 65000)"
    )
    watcher.wait_for_function(
        "() => /^1 min 0[0-4] s left$/.test(document.querySelector('p.clock time.countdown').textContent)"
    )
    for context in contexts:
        context.close()
