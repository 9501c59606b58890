"""No control of the decision panel sends a choice its player has not made or seen, in Chromium, with
the map script (static/decision.js) and without it: every card's special action, the secret disks,
the court and the share. On a panel nobody has touched, each visible button is clicked in turn; what
it sends (if anything) must hold no value of a field folded out of sight, no region, target or power
card the player did not pick, and what it sends the form must read as a move or refuse with a
sentence for the player."""

import re

import pytest
from django.core.exceptions import NON_FIELD_ERRORS
from django.http import QueryDict

from games.engine import view_for
from games.engine.cards import CARDS
from games.moves.moves_forms import read_move
from tests.support.map_page import KEEP_SUBMISSIONS as KEPT_BY_MAP_CHOICES
from tests.support.map_page import MAP_SCRIPT, page_for, special_turn
from tests.support.page_positions import position
from tests.support.static_pages import open_page

pytestmark = pytest.mark.browser

# A select that asks the player to pick one region, target or power card.
PICK = re.compile(r"^(region|to|card|mobile-to-.+|picks-\d+-region)$")

# Each submission is kept in window.sent instead of posted, with the names of its fields out of sight
# (folded away by the map, or not displayed at all): all of them, and those that send a value.
KEEP_SUBMISSIONS = """
window.sent = [];
document.addEventListener('submit', event => {
    event.preventDefault();
    const form = event.target;
    const data = new FormData(form, event.submitter);
    const folded = Array.from(form.elements).filter(field => {
        if (!field.name || field.type === 'hidden' || field.tagName === 'BUTTON') return false;
        if ((field.type === 'radio' || field.type === 'checkbox') && !field.checked) return false;
        return !field.checkVisibility();
    });
    const unseen = folded.filter(field => field.value !== '' && field.value !== '0');
    window.sent.push({
        data: Object.fromEntries(data),
        unseen: unseen.map(field => field.name),
        folded: folded.map(field => field.name),
    });
}, true);
"""

# The controls that may send the panel: its buttons in view, and the map's Confirm.
CONTROLS = "#decision form button:visible, .map-compose .map-confirm:visible"


# The decisions besides the special actions whose panel holds a form (tests/test_game_page_content's
# positions, found by random play).
OTHERS = {"region": ("region", None), "castillo": ("castillo", None), "court": ("court", None),
          "court-from_regions": ("court", "from_regions"), "share": ("share", None)}


def view_of(name):
    """The engine's view of the seat deciding: a card's special action, or one of OTHERS."""
    if name in CARDS:
        return special_turn(name)
    state, seat = position(OTHERS[name])
    return view_for(state, seat)


def page_without(view, script):
    """The panel and the board of `view`, keeping submissions in window.sent; `script`: with the map
    script (decision.js, the page's last script), or as a browser without it sees the page."""
    html = page_for(view).replace(KEPT_BY_MAP_CHOICES, KEEP_SUBMISSIONS)
    if not script:
        html = html.replace(MAP_SCRIPT, "")
    return html


# The page as a control could have changed it: its markup and its fields' values.
UNTOUCHED = """() => document.documentElement.outerHTML + JSON.stringify(Array.from(
    document.querySelectorAll('input, select, textarea'), field => [field.name, field.value, field.checked]))"""


@pytest.fixture(scope="module")
def page(browser):
    """One page for the module's cases, each opening its own document in it: a browser context and
    page of their own per case cost about a second each on a loaded machine (a renderer process),
    and nothing of the page outlives its document (no cookie, no storage)."""
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("script", [True, False], ids=["map", "no-script"])
@pytest.mark.parametrize("name", [*sorted(CARDS), *OTHERS])
def test_no_control_sends_a_choice_the_player_did_not_make(page, name, script):
    view = view_of(name)
    html = page_without(view, script)
    open_page(page, html)
    assert page.locator("#decision form").count() and page.locator("svg.map").count()
    # With the script, the map composes the panel's moves (but a court without regions to take from).
    assert page.locator("svg.map.composing").count() == (1 if script and name != "court" else 0)
    controls = page.locator(CONTROLS).count()
    assert controls, "the panel offers a control"
    untouched = page.evaluate(UNTOUCHED)
    for index in range(controls):
        # Each control on a panel nobody has touched: the page is opened again, unless no script
        # runs in it but the one that keeps submissions and the control left it as it was (the
        # map's script keeps state of its own, so with it the page is always opened again).
        if index and (script or page.evaluate(UNTOUCHED) != untouched):
            open_page(page, html)
        page.evaluate("() => { window.sent = []; document.activeElement?.blur(); }")
        control = page.locator(CONTROLS).nth(index)
        text = control.inner_text()
        if control.is_disabled():
            continue
        control.click()
        sent = page.evaluate("window.sent")
        for submission in sent:
            data = submission["data"]
            assert submission["unseen"] == [], (text, data)
            # A pick nobody made is sent empty, never as the first option of its select.
            picks = {key: value for key, value in data.items() if PICK.match(key)}
            assert all(value == "" for value in picks.values()), (text, picks)
            # ... and in view: a refusal telling the player to choose points at a field he can see.
            asked = [key for key in picks if key not in submission["folded"]]
            # What is sent is a move, or is refused with sentences for the player.
            post = QueryDict(mutable=True)
            for key, value in data.items():
                post[key] = value
            form = read_move(post, view, 7)
            if not form.is_valid():
                assert set(form.errors) <= {NON_FIELD_ERRORS, "move"}, (text, form.errors)
                if picks:
                    assert asked, (text, "refused for a pick out of sight", submission["folded"])
        if not sent and "map-confirm" in (control.get_attribute("class") or ""):
            # The map's Confirm that sends nothing says what is lacking, or, on a placement with
            # nothing planned (which gives the whole placement up), asks for a second press, which
            # sends it: one tap of the bar under the thumb must not give a turn's caballeros away.
            status = page.locator(".map-compose .map-status").inner_text()
            if status.startswith("Nothing placed:"):
                control.click()
                assert page.evaluate("window.sent"), "a second press of Confirm sends the empty placement"
            else:
                assert status.startswith("Not complete yet"), status
