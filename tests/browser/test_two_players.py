"""Two people play a whole short game in two browsers, each page kept current over its WebSocket."""

import re

import pytest

pytestmark = pytest.mark.browser

PASSWORD = "a-long-enough-Passw0rd"
MOVE_TIMEOUT = 10_000


def sign_up(context, site, name):
    page = context.new_page()
    sign_up_on(page, site, name)
    return page


def sign_up_on(page, site, name):
    """Sign `name` up in `page`, which ends on the lobby."""
    page.goto(f"{site}/accounts/signup/")
    page.fill("input[name=username]", name)
    page.fill("input[name=email]", f"{name}@example.org")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("main form button[type=submit]")
    # The sign-up asks to check the mail, as it does for an address that has an account; the
    # address's confirmation is optional, so the password logs in at once.
    page.wait_for_url(f"{site}/accounts/confirm-email/")
    page.goto(f"{site}/accounts/login/")
    page.fill("input[name=login]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{site}/")


def create_game(page, site, *, check=(), uncheck=()):
    """Create a two-player game from the "new game" form, ticking `check` and clearing `uncheck`
    (selectors); returns the game page's URL, where `page` now is."""
    page.goto(f"{site}/games/new/")
    page.select_option("select[name=num_players]", "2")
    for selector in check:
        page.check(selector)
    for selector in uncheck:
        page.uncheck(selector)
    page.click("main form button[type=submit]")
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    return page.url


def version(page):
    return int(page.locator("#play").get_attribute("data-version"))


# No swap is still settling: htmx settles a swap a moment after it, and the page's scripts finish
# their work on the new view then (static/decision.js builds the map's controls).
SETTLED = "!document.querySelector('.htmx-settling')"


def wait_for_version(page, number, settled=True):
    """Wait until `page` shows version `number` or a later one, settled unless `settled` is False."""
    page.wait_for_function(
        "n => { const p = document.getElementById('play');"
        f" return p && parseInt(p.dataset.version, 10) >= n && {SETTLED if settled else 'true'}; }}",
        arg=number,
        timeout=MOVE_TIMEOUT,
    )


def act(page):
    """Make the seat's current decision through the panel: the first offer, one caballero placed
    by clicking the map, and the special action declined."""
    panel = page.locator("#decision-panel")
    kind = panel.get_attribute("data-kind")
    if kind == "bid":
        # A bid is chosen, then confirmed (static/decision.js): one stray click sends nothing.
        panel.locator("button[data-bid]").first.click()
        panel.locator(".bid-confirm").click()
    elif kind == "court":
        panel.get_by_role("button", name="Move to court").click()
    elif kind == "card":
        # A card, declining, going on without placing and a veto's answer are confirmed as a bid is.
        panel.locator(".action-card-button").first.click()
        panel.locator(".decision-confirm").click()
    elif kind == "action" and panel.locator("form.place-none-form").count():
        panel.get_by_role("button", name="Go on without placing").click()
        panel.locator(".decision-confirm").click()
    elif kind == "action" and panel.locator("form.place-form").count():
        target = page.locator("svg.map g.area.placeable text.area-name").first
        if target.count():
            target.click()
        page.locator(".map-compose .map-confirm").click()
    elif kind == "action":
        panel.get_by_role("button", name="Decline the special action").click()
        panel.locator(".decision-confirm").click()
    elif kind in ("region", "castillo"):
        # A secret choice clicked in the panel is shown on the map and sent by the map's Confirm.
        panel.locator(".region-choices button").first.click()
        page.locator(".map-compose .map-confirm").click()
    elif kind == "share":
        page.evaluate(
            """() => {
                const form = document.querySelector('#decision-panel form.share-form');
                let left = parseInt(form.dataset.limit, 10);
                for (const input of form.querySelectorAll('input[data-area-count]')) {
                    const n = Math.min(left, parseInt(input.max, 10));
                    input.value = n; left -= n;
                }
            }"""
        )
        panel.get_by_role("button", name="Send to the provinces").click()
    else:
        panel.get_by_role("button", name="Allow").click()
        panel.locator(".decision-confirm").click()
    return kind


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
