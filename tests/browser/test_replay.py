"""In a real browser: a finished game opens as a replay that the keyboard steps through, with every
hand revealed; a running game's player steps back from his own seat's view only."""

import re

import pytest

from tests.support.browser import log_in, seeded, shoot

pytestmark = pytest.mark.browser

# SCREENSHOTS=<folder> saves the pages at these sizes there, to look at them by hand.
SHOTS_AT = [{"width": 1280, "height": 900}, {"width": 390, "height": 844}]
TIMEOUT = 10_000


@pytest.fixture(scope="module")
def games(live_site_env, live_site):
    return seeded(live_site_env, "from tests.support.replay_games import make; make()")


def at(page):
    return int(page.locator("#replay").get_attribute("data-at"))


def wait_at(page, position):
    page.wait_for_function(
        "n => { const r = document.getElementById('replay'); return r && parseInt(r.dataset.at, 10) === n; }",
        arg=position,
        timeout=TIMEOUT,
    )
    page.wait_for_url(re.compile(rf"\?at={position}$"), timeout=TIMEOUT)


def revealed_hands(page):
    """{seat: [cards]} as the page shows every player's hand."""
    hands = {}
    for player in page.locator(".players .player").all():
        seat = int(player.get_attribute("data-seat"))
        hands[seat] = [int(card) for card in player.locator("[data-revealed-card]").all_inner_texts()]
    return hands


def test_a_finished_game_opens_as_a_replay_the_keys_step_through_with_the_hands_revealed(browser, live_site, games):
    page = browser.new_context().new_page()
    page.goto(f"{live_site}/games/{games['finished']}/")
    last = at(page)
    assert last == int(page.locator("#replay").get_attribute("data-last")) > 20
    assert page.locator(".score-chart svg polyline").count() == 3
    # At the end every hand is empty but for the cards never played; at the setup each holds all 13.
    page.keyboard.press("Home")
    wait_at(page, 0)
    assert revealed_hands(page) == {seat: list(range(1, 14)) for seat in range(3)}
    for position in range(1, 6):
        page.keyboard.press("ArrowRight")
        wait_at(page, position)
    page.keyboard.press("ArrowLeft")
    wait_at(page, 4)
    # Each bid leaves its bidder's hand, which the others could not see while the game ran.
    hands = revealed_hands(page)
    assert sorted(len(cards) for cards in hands.values()) != [13, 13, 13]
    assert page.locator(".log li.latest").count() >= 1
    page.keyboard.press("PageDown")
    round_two = int(page.locator("#replay").get_attribute("data-round-starts").split(",")[1])
    wait_at(page, round_two)
    assert "round 2 of 6" in page.locator(".replay-where").inner_text()
    middle = last // 2
    page.goto(f"{live_site}/games/{games['finished']}/?at={middle}")
    assert at(page) == middle and len(revealed_hands(page)) == 3
    shoot(page, "replay-finished-middle", sizes=SHOTS_AT)
    page.keyboard.press("End")
    wait_at(page, last)
    assert "The game is over" in page.locator(".replay-who").inner_text()
    shoot(page, "replay-finished-end", sizes=SHOTS_AT)
    # The browser's back button returns to the position before.
    page.go_back()
    wait_at(page, middle)
    page.context.close()


def test_a_running_games_player_steps_back_in_his_own_seats_view(browser, live_site, games):
    page = log_in(browser.new_context(), live_site, games["player"])
    page.goto(f"{live_site}/games/{games['running']}/")
    page.get_by_role("link", name="◀ Step back").click()
    page.wait_for_selector("#replay")
    last = int(page.locator("#replay").get_attribute("data-last"))
    assert at(page) == last - 1
    assert page.locator("[data-revealed-card]").count() == 0
    assert page.locator(".hand [data-hand-card]").count() > 0
    page.keyboard.press("ArrowLeft")
    wait_at(page, last - 2)
    assert "as your seat saw it" in page.locator(".replay-who").inner_text()
    shoot(page, "replay-running", sizes=SHOTS_AT)
    page.get_by_role("link", name="Back to the live game").first.click()
    page.wait_for_selector("#play")
    page.context.close()


@pytest.mark.parametrize("touch", [False, True])
def test_the_keys_hint_shows_where_there_is_a_keyboard_and_not_on_a_touch_phone(browser, live_site, games, touch):
    """"Keys: ← → a move…" is no help on a phone, which has no keyboard: a touch screen without a
    hovering pointer hides it; a desktop browser still says it, at a phone's width too."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=touch)
    page = context.new_page()
    page.goto(f"{live_site}/games/{games['finished']}/")
    page.wait_for_selector("#replay")
    who = page.locator(".replay-who")
    assert "The game is over" in who.inner_text()
    assert ("Keys:" in who.inner_text()) is not touch
    context.close()
