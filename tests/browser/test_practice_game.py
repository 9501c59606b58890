"""A person plays a short practice game against two computer players through the browser: the
computer players' moves arrive by themselves (the embedded site's runner, after its pause), the
page follows them over its WebSocket, and the game ends with its scores."""

import re
import time

import pytest

from tests.support.browser import act, sign_up, version, wait_for_version

pytestmark = pytest.mark.browser

GAME_TIMEOUT = 600


# A shorter pause before a computer player's move than the site's default. Not shorter than 0.2 s:
# at 0.05 s the computer playing a seat handed to it replaced the panel so often that the person's
# "Play myself again" button was never still long enough to be clicked (CI on PostgreSQL).
SITE_ENV = {"BOT_MOVE_DELAY": "0.2"}

# The person's turn or the game's end.
PERSON_OR_END = "document.querySelector('#decision-panel') !== null || document.querySelector('p.over') !== null"


@pytest.mark.timeout(GAME_TIMEOUT + 300)
def test_a_short_game_against_two_computer_players(live_site, browser):
    context = browser.new_context()
    page = sign_up(context, live_site, "practiser")
    # A click on a panel that a computer's move has just replaced fails fast and is tried again.
    page.set_default_timeout(10_000)
    page.goto(f"{live_site}/games/new/")
    page.select_option("select[name=num_players]", "3")
    page.check("input[name=short_game][value=True]")
    page.fill("input[name=computer_greedy]", "1")
    page.fill("input[name=computer_random]", "1")
    page.click("main form button[type=submit]")
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    # (The "created and started" message may already be gone: a computer's first move, 0.2 s
    # later, can refresh the page before this line reads it.)
    assert page.locator(".options .badge.practice").count() == 1
    page.wait_for_selector("svg.map")
    page.evaluate("window.stillTheSamePage = true")

    kinds, moves, scorings = set(), 0, 0
    started = time.monotonic()
    while not page.locator("p.over").count():
        assert time.monotonic() - started < GAME_TIMEOUT, f"the game did not end in {GAME_TIMEOUT} s"
        if not page.locator("#decision-panel").count():
            # The computer players' moves come by the socket: wait for the person's turn.
            left = GAME_TIMEOUT - (time.monotonic() - started)
            page.wait_for_function(PERSON_OR_END, timeout=max(left, 0.001) * 1000)
            continue
        before = version(page)
        try:
            kinds.add(act(page))
        except Exception:
            # The panel changed under the click (a computer player answered first and the page
            # refreshed): look again.
            continue
        wait_for_version(page, before + 1)
        error = page.locator("#move-error").inner_text().strip() if page.locator("#move-error").count() else ""
        assert error == "" or "moved on" in error, error
        moves += 1
    log = page.locator("#log").inner_text()
    scorings = len(re.findall(r"scor", log, flags=re.IGNORECASE))
    assert page.evaluate("window.stillTheSamePage") is True
    assert page.locator("section.scores").is_visible()
    assert {"bid", "card", "action"} <= kinds and moves > 10 and scorings
    names = page.locator("section.scores").inner_text()
    assert "Computer (greedy)" in names and "Computer (random)" in names
    page.set_viewport_size({"width": 1280, "height": 900})
    page.screenshot(path="/tmp/botsite-practice-1280.png")
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path="/tmp/botsite-practice-390.png")
    print(f"practice game over in {time.monotonic() - started:.0f} s, {moves} moves of the person")
    context.close()


def test_the_computer_plays_a_seat_handed_to_it_at_once_and_gives_it_back(live_site, browser):
    context = browser.new_context()
    page = sign_up(context, live_site, "handsover")
    page.set_default_timeout(10_000)
    page.goto(f"{live_site}/games/new/")
    page.select_option("select[name=num_players]", "3")
    page.check("input[name=short_game][value=True]")
    page.fill("input[name=computer_greedy]", "2")
    page.click("main form button[type=submit]")
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    # The person's first decision: the computer players wait for it, so the page stands still.
    page.wait_for_selector("#decision-panel")
    assert page.locator("#log").inner_text().count("On autopilot") == 0
    # One click on the button alone sends nothing: the tick comes first.
    page.click("form.autopilot-offer button")
    page.wait_for_timeout(500)
    assert page.locator("form.autopilot-offer").count() == 1 and page.locator("form.autopilot-note").count() == 0
    page.check("form.autopilot-offer input[name=sure]")
    page.click("form.autopilot-offer button")
    # The same request made the person's move: the page it ends on shows the autopilot's move.
    page.wait_for_selector("form.autopilot-note")
    assert "The computer plays your seat" in page.locator("form.autopilot-note").inner_text()
    log = page.locator("#log")
    assert "lets the computer play their seat" in log.inner_text()
    assert "On autopilot: the site chose for handsover" in log.inner_text()
    # The computer players and the autopilot go on by themselves: a second move of the seat comes.
    page.wait_for_function(
        "document.querySelector('#log').innerText.split('On autopilot: the site chose for handsover').length > 2"
    )
    page.click("form.autopilot-note button")
    page.wait_for_selector("form.autopilot-offer")
    assert "is back from autopilot and plays again" in page.locator("#log").inner_text()
    context.close()
