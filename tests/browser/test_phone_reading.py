"""Reading the site on a phone (390×844) and at 1366×900: the header folds its links behind a
keyboard-friendly "Menu" button and takes at most 64 px, and the score chart shows the whole game
and names every line without scrolling sideways."""


import pytest

from tests.support.browser import PHONE, SHOTS, log_in, seeded, shoot

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1366, "height": 900}


@pytest.fixture(scope="module")
def games(live_site_env, live_site):
    return seeded(live_site_env, "from tests.support.replay_games import make; make()")


def header_height(page):
    return page.evaluate("document.querySelector('.site-header').getBoundingClientRect().height")


def test_on_a_phone_the_header_is_one_row_with_a_menu_the_keyboard_opens(live_site, browser, games):
    context = browser.new_context(viewport=PHONE)
    page = log_in(context, live_site, games["player"])
    page.goto(f"{live_site}/games/{games['running']}/")
    button = page.get_by_role("button", name="Menu")
    settings = page.locator(".site-header a[href='/accounts/settings/']")
    assert header_height(page) <= 64
    assert button.is_visible() and button.get_attribute("aria-expanded") == "false"
    assert not settings.is_visible()
    shoot(page, "header-closed", full_page=False)
    # The keyboard alone: Tab past the site's name to the button, Enter opens, Escape closes.
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.classList.contains('menu-toggle')")
    page.keyboard.press("Enter")
    assert button.get_attribute("aria-expanded") == "true"
    assert settings.is_visible() and page.get_by_role("button", name="Log out").is_visible()
    assert page.locator(".site-header button[value=fr]").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") == PHONE["width"]
    shoot(page, "header-open", full_page=False)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('#site-menu') !== null")
    page.keyboard.press("Escape")
    assert button.get_attribute("aria-expanded") == "false" and not settings.is_visible()
    assert page.evaluate("document.activeElement.classList.contains('menu-toggle')")
    # A tap on the button opens it too, and a tap elsewhere closes it.
    button.click()
    assert settings.is_visible()
    page.locator("main h1, main h2").first.click()
    assert not settings.is_visible()
    context.close()


def test_on_a_wide_window_the_header_shows_every_link_without_a_menu(live_site, browser, games):
    context = browser.new_context(viewport=DESKTOP)
    page = log_in(context, live_site, games["player"])
    page.goto(f"{live_site}/games/{games['running']}/")
    assert header_height(page) <= 64
    assert not page.locator(".site-header .menu-toggle").is_visible()
    assert page.locator(".site-header a[href='/accounts/settings/']").is_visible()
    assert page.get_by_role("button", name="Log out").is_visible()
    shoot(page, "header", full_page=False)
    context.close()


CHART = """() => {
    const svg = document.querySelector('.score-chart svg.chart');
    const box = svg.getBoundingClientRect();
    const frame = document.querySelector('.score-chart .chart-frame');
    const shown = selector => Array.from(svg.querySelectorAll(selector))
        .filter(element => getComputedStyle(element).display !== 'none');
    const inside = element => {
        const r = element.getBoundingClientRect();
        return r.width > 0 && r.left >= box.left - 1 && r.right <= box.right + 1 && r.right <= window.innerWidth;
    };
    const ticks = Array.from(svg.querySelectorAll('text.axis')).filter(t => /^\\d+$/.test(t.textContent));
    return {
        scrolls: frame.scrollWidth > frame.clientWidth + 1,
        right: box.right,
        lastRound: ticks[ticks.length - 1].textContent,
        lastRoundInside: inside(ticks[ticks.length - 1]),
        ends: shown('text.name, text.end-letter').map(t => [t.textContent.trim(), inside(t)]),
        smallestText: Math.min(...shown('text').map(t => t.getBoundingClientRect().height)),
        legend: Array.from(document.querySelectorAll('.score-chart .chart-legend li'))
            .filter(li => li.offsetParent !== null).map(li => li.textContent.replace(/\\s+/g, ' ').trim()),
    };
}"""


def test_the_score_chart_fits_a_phone_with_the_end_of_the_game_and_its_legend(live_site, browser, games):
    context = browser.new_context(viewport=PHONE)
    page = log_in(context, live_site, games["player"])
    page.goto(f"{live_site}/games/{games['finished']}/?at=1")
    page.wait_for_selector(".score-chart svg.chart")
    page.locator(".score-chart").scroll_into_view_if_needed()
    chart = page.evaluate(CHART)
    assert not chart["scrolls"] and chart["right"] <= PHONE["width"], chart
    assert chart["lastRound"] == "6" and chart["lastRoundInside"], "the last round of a short game is in view"
    assert len(chart["ends"]) == 3 and all(inside for _, inside in chart["ends"]), chart["ends"]
    assert chart["smallestText"] >= 9, "the chart's text stays readable"
    # The legend names each line's letter, with the final score.
    assert sorted(entry.split(" ")[1] for entry in chart["legend"]) == ["ana", "blas", "cris"]
    assert sorted(entry.split(" ")[0] for entry in chart["legend"]) == sorted(text for text, _ in chart["ends"])
    assert page.evaluate("document.documentElement.scrollWidth") == PHONE["width"]
    page.locator(".score-chart").screenshot(path=f"{SHOTS}/chart-390.png") if SHOTS else None
    page.set_viewport_size(DESKTOP)
    chart = page.evaluate(CHART)
    assert not chart["scrolls"] and chart["lastRoundInside"]
    # A wide window names the players at the lines' ends and needs no legend.
    assert sorted(text.split(" ")[1] for text, _ in chart["ends"]) == ["ana", "blas", "cris"]
    assert all(inside for _, inside in chart["ends"]) and chart["legend"] == []
    page.locator(".score-chart").screenshot(path=f"{SHOTS}/chart-1366.png") if SHOTS else None
    context.close()


# How many lines each value of the players' panel takes: its text boxes whose tops are more than
# 8 px apart (a card's box and the small text beside it sit on one line).
PANEL_LINES = """() => Array.from(document.querySelectorAll('section.players .player dl dd')).map(dd => {
    const range = document.createRange();
    range.selectNodeContents(dd);
    const tops = Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => r.top).sort((a, b) => a - b);
    let lines = tops.length ? 1 : 0;
    for (let i = 1; i < tops.length; i++) if (tops[i] - tops[i - 1] > 8) lines += 1;
    return [dd.previousElementSibling.textContent.trim(), dd.textContent.replace(/\\s+/g, ' ').trim(), lines];
})"""


def test_the_italian_player_panel_keeps_each_value_on_one_line(live_site, live_site_env, browser, games):
    seeded(live_site_env, f"from accounts.models import User; User.objects.filter(username={games['player']!r})"
           ".update(language='it')")
    for size in (DESKTOP, PHONE):
        context = browser.new_context(viewport=size)
        page = log_in(context, live_site, games["player"])
        page.goto(f"{live_site}/games/{games['running']}/")
        assert page.locator("html").get_attribute("lang") == "it"
        values = page.evaluate(PANEL_LINES)
        assert {label for label, _, _ in values} >= {"Corte", "Mano", "Carta"}
        # Court, provinces, home, hand, played and bid on one line each; the card's title in two at most.
        assert [value for value in values if value[2] > (2 if value[0] == "Carta" else 1)] == [], size
        if SHOTS:
            page.locator("section.players").screenshot(path=f"{SHOTS}/players-it-{size['width']}.png")
        context.close()
