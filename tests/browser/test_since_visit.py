"""What changed since a player's last visit, shown on the game page at 1366×900 and 390×844: the
regions whose caballeros others changed are hatched on the map (with a legend line and words in the
region's title), and what the others said in the chat is marked New, not the player's own lines;
looked at once, neither is new again."""


import pytest

from tests.support.browser import SHOTS, log_in, seeded

pytestmark = pytest.mark.browser

SIZES = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}
HATCHED = "() => Array.from(document.querySelectorAll('svg.map g.area.changed')).map(a => a.dataset.area).sort()"
NEW_LINES = "() => Array.from(document.querySelectorAll('#chat .chat-lines li.new .chat-text')).map(t => t.textContent)"


@pytest.mark.parametrize("size", SIZES)
def test_a_returning_player_sees_what_changed_on_the_map_and_in_the_chat(live_site, live_site_env, browser, size):
    made = seeded(live_site_env, f"from tests.support.since_games import make; make('since{size}')")
    url = f"{live_site}/games/{made['game']}/"
    context = browser.new_context(viewport=SIZES[size])
    page = log_in(context, live_site, made["players"][0])
    page.goto(url)
    # A first visit: nothing is new.
    assert page.evaluate(HATCHED) == [] and page.locator(".changed-legend").count() == 0
    page.fill("#chat-text", "Good luck, all.")
    page.get_by_role("button", name="Send").click()
    page.wait_for_selector("#chat .chat-lines li[data-mine]")
    assert page.evaluate(NEW_LINES) == []
    page.close()

    # Away: the others talk and play.
    changed = seeded(live_site_env, f"from tests.support.since_games import others_play; "
                                   f"others_play({made['game']}, 'Who takes the King?')")
    assert changed
    page = context.new_page()
    page.goto(url)
    assert page.evaluate(HATCHED) == changed
    assert page.locator(".changed-legend").is_visible()
    title = page.locator(f'svg.map g.area[data-area="{changed[0]}"] > title').text_content()
    assert "changed since your last visit" in title
    assert page.evaluate(NEW_LINES) == ["Who takes the King?"], "the others' line is new, not her own"
    label = page.locator("#chat .chat-lines li.new").evaluate("li => getComputedStyle(li, '::before').content")
    assert label == '"new"', "the word itself; CSS shows it in capitals"
    assert page.evaluate("document.documentElement.scrollWidth") == SIZES[size]["width"]
    if SHOTS:
        page.locator(".map-column").screenshot(path=f"{SHOTS}/since-visit-map-{size}.png")
        page.locator("#chat").screenshot(path=f"{SHOTS}/since-visit-chat-{size}.png")

    # Seen: no longer new.
    page.reload()
    assert page.evaluate(HATCHED) == [] and page.evaluate(NEW_LINES) == []
    context.close()
