"""The map fills every kind of region field of a special action (static/decision.js), in Chromium on
a page of its own: the King's and a Grande's destination, the picks of "one of each", the area to
score, a mobile scoreboard's destination. Nothing is sent before Confirm, and Confirm sends the
same fields the plain form posts."""

import json

import pytest

from tests.support.map_page import page_for, special_turn
from tests.support.static_pages import open_page

pytestmark = pytest.mark.browser


def click_area(page, area):
    page.locator(f'svg.map g.area[data-area="{area}"] text.area-name').first.click(force=True)


@pytest.mark.parametrize("card, clicks, expected", [
    ("king_card", ["aragon"], {"to": "aragon"}),
    ("move_grande", ["basque"], {"to": "basque"}),
    ("score_one_region", ["castillo"], {"region": "castillo"}),
    ("mobile_scoreboard", ["galicia"], {"scoreboard": "8/4/0", "mobile-to-8/4/0": "galicia"}),
    ("one_each_to_provinces", ["aragon", "valencia", "granada"],
     {"picks-0-region": "aragon", "picks-1-region": "valencia", "picks-2-region": "granada"}),
    # The order of the spread's steps goes too: the order its list shows, announced to a veto holder.
    ("intrigue_court_2", ["castillo", "aragon"], {"to-aragon": "1", "to-castillo": "1", "to-order": "castillo,aragon"}),
    # With the court option of an "either" card, clicks count caballeros; no region is asked.
    ("intrigue_court_2_or_own_region", ["castillo", "castillo"], {"option": "court", "to-castillo": "2",
                                                                      "to-order": "castillo"}),
])
def test_a_special_actions_region_fields_are_filled_on_the_map_and_sent_on_confirm(browser, card, clicks, expected):
    view = special_turn(card)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    open_page(page, page_for(view))
    switch = page.locator(".map-compose .map-modes button", has_text="Special action")
    if switch.count():
        switch.click()
    # An area that is no choice says why and takes nothing.
    illegal = page.locator("svg.map g.area.illegal")
    if illegal.count():
        assert illegal.first.get_attribute("data-why")
    for area in clicks:
        assert page.locator(f'svg.map g.area.target[data-area="{area}"]').count() == 1, area
        click_area(page, area)
        shown = "g.area.chosen" if any(key.endswith("region") or key.startswith("mobile") or key == "to"
                                       for key in expected) else ".map-marks .ghost"
        assert page.locator(f'svg.map {shown}[data-area="{area}"]').count() == 1
    assert page.locator(".map-compose .map-steps li:not(.empty)").count() == len(set(clicks))
    assert page.evaluate("window.sent") == []
    page.locator(".map-compose .map-confirm").click()
    sent = page.evaluate("window.sent")
    assert len(sent) == 1 and sent[0]["move_form"] == "special" and sent[0]["expected_version"] == "7"
    assert {key: sent[0][key] for key in expected} == expected
    assert page.evaluate("document.documentElement.scrollWidth") == 390
    context.close()


def test_the_panels_catch_all_form_sends_nothing_on_one_click(browser):
    """A decision the panel has no form of its own for gets its moves as plain buttons: each is
    chosen by a first click and sent only by the Confirm, as every decision of a seat is."""
    view = special_turn("king_card")
    view["decision"] = {**view["decision"], "kind": "unheard_of", "moves": [{"type": "pass"}, {"type": "wait"}]}
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    open_page(page, page_for(view))
    first = page.locator("#decision form[data-confirm-every] button[name=move]").first
    first.click()
    assert page.evaluate("window.sent") == [], "one click sent the decision"
    assert first.get_attribute("aria-pressed") == "true"
    page.locator("#decision .decision-confirm").click()
    assert [json.loads(sent["move"]) for sent in page.evaluate("window.sent")] == [{"type": "pass"}]
    page.close()
