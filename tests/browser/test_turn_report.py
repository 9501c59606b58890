"""The turn report at the top of the game page, in Chromium at 1366x900 and 390x844: above the
decision, open with the others' moves and a scoring table, scrolled within at most 45% of the
screen, fitting a phone; one tap folds it, and once seen it comes back folded."""


import pytest

from tests.support.browser import SHOTS, fits_the_phone, log_in, seeded, wait_for_version

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def game(live_site_env, live_site):
    return seeded(live_site_env, "from tests.support.turn_report_games import make; make()")


@pytest.mark.parametrize("viewport", [{"width": 1366, "height": 900}, {"width": 390, "height": 844}])
def test_the_turn_report_sits_above_the_decision_then_folds(live_site, live_site_env, browser, game, viewport):
    number, player = game
    # Each size is a first visit: nothing of the game seen yet (but its start). The view cache keys
    # a seat's page by the version it has seen, which never goes back on the site: each size goes
    # back to a value of its own, so that neither is served the page the other has already seen.
    first = 0 if viewport["width"] == 1366 else 1
    unseen = f"from games.models import Seat; Seat.objects.filter(game={number}).update(seen_version={first})"
    seeded(live_site_env, unseen)
    context = browser.new_context(viewport=viewport)
    page = log_in(context, live_site, player)
    page.goto(f"{live_site}/games/{number}/")
    page.wait_for_selector("svg.map")
    report = page.locator("details.turn-report")
    assert report.get_attribute("open") is not None
    assert report.locator("> summary").text_content().startswith("Since your last move:")
    assert report.locator("table.turn-report-scoring").count() >= 1
    assert report.locator("li", has_text="Scores:").count() == 1
    above = page.evaluate(
        "document.querySelector('details.turn-report').getBoundingClientRect().bottom"
        " <= document.querySelector('#decision-panel').getBoundingClientRect().top"
    )
    assert above
    body = report.locator(".turn-report-body").bounding_box()
    assert body["height"] <= 0.45 * viewport["height"] + 1
    if viewport["width"] == 390:
        fits_the_phone(page, "the game page with its turn report")
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/turn-report-{viewport['width']}.png")
    # One click (or tap) on its heading folds it; seen, it comes back folded.
    report.locator("> summary").click()
    assert report.get_attribute("open") is None
    page.reload()
    page.wait_for_selector("svg.map")
    assert page.locator("details.turn-report").get_attribute("open") is None
    context.close()


def test_the_turn_report_goes_once_the_reader_has_moved(live_site, live_site_env, browser, game):
    """The report is part of the page's head, which a live update does not swap: after the reader's
    own bid it still said "Since your last move: 5 moves by the others", the moves before that bid,
    until he reloaded. It goes once he has moved; the others' moves that come after, live, are
    marked new in the log, and the page asks nothing more for them."""
    number, player = game
    seeded(live_site_env, f"from games.models import Seat; Seat.objects.filter(game={number}).update(seen_version=0)")
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = log_in(context, live_site, player)
    page.goto(f"{live_site}/games/{number}/")
    page.wait_for_selector("svg.map")
    assert page.locator("details.turn-report > summary").text_content().startswith("Since your last move:")
    version = int(page.locator("#play").get_attribute("data-version"))
    page.locator("#decision-panel form.choice-buttons button[name=move]").first.click()
    page.locator(".decision-confirm").first.click()
    wait_for_version(page, version + 1)
    page.wait_for_function("() => !document.querySelector('details.turn-report')")
    # Another seat moves: its move comes in the frame, new in the log; the page fetches nothing.
    fetched = []
    page.on("request", lambda request: fetched.append(request.url) if "/partials/" in request.url else None)
    seeded(live_site_env, f"from games.models import Game; from tests.support.helpers import play; "
                          f"play(Game.objects.get(pk={number}), moves=1)")
    wait_for_version(page, version + 2)
    assert page.locator("details.turn-report").count() == 0
    assert page.locator("#log .new").count() >= 1
    assert fetched == [], fetched
    # A reload tells the others' moves since his last one again.
    page.reload()
    page.wait_for_selector("details.turn-report")
    summary = page.locator("details.turn-report > summary").text_content()
    assert summary == "Since your last move: 1 move by the others", summary
    context.close()
