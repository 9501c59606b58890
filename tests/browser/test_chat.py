"""Table talk in real browsers: a message from one player appears in the other player's page and a
spectator's without reload, a draft being written survives it, a refusal is shown beside the
field, a mute holds across reloads, and the chat fits a phone's width."""

import re

import pytest

from tests.support.browser import SHOTS, create_game, sign_up

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
ARRIVAL_TIMEOUT = 10_000


def say(page, text):
    page.fill("#chat-text", text)
    page.get_by_role("button", name="Send").click()


def lines(page):
    return page.locator("#chat .chat-text")


def test_a_message_from_one_browser_appears_in_the_others_without_reload(live_site, browser):
    isabel_context, felipe_context = browser.new_context(viewport=DESKTOP), browser.new_context(viewport=PHONE)
    spectator_context = browser.new_context(viewport=PHONE)
    isabel = sign_up(isabel_context, live_site, "isabel")
    felipe = sign_up(felipe_context, live_site, "felipe")
    game_url = create_game(isabel, live_site)
    felipe.goto(game_url)
    felipe.get_by_role("button", name="Join").click()
    felipe.wait_for_selector("#chat-text")
    # Isabel's page was open before the start: the table talk opens there too, without reload.
    isabel.wait_for_selector("#chat-text", timeout=ARRIVAL_TIMEOUT)
    spectator = spectator_context.new_page()
    spectator.goto(game_url)
    assert spectator.locator("#chat h2").inner_text() == "Table talk"
    assert spectator.locator("#chat-text").count() == 0
    pages = (isabel, felipe, spectator)
    for page in pages:
        page.evaluate("window.stillTheSamePage = true")

    # Felipe is writing when Isabel's question arrives: his draft stays in his field.
    felipe.fill("#chat-text", "Let me th")
    say(isabel, "Will you use the veto? <script>alert(1)</script>")
    for page in pages:
        page.wait_for_function(
            "() => document.querySelectorAll('#chat .chat-text').length === 1", timeout=ARRIVAL_TIMEOUT
        )
        assert lines(page).first.inner_text() == "Will you use the veto? <script>alert(1)</script>"
        assert re.match(r"isabel \(\w+\)", page.locator("#chat .chat-meta .who").first.inner_text())
    assert isabel.input_value("#chat-text") == ""
    assert felipe.input_value("#chat-text") == "Let me th"

    felipe.fill("#chat-text", "Let me think about it.")
    felipe.keyboard.press("Enter")
    for page in pages:
        page.wait_for_function(
            "() => document.querySelectorAll('#chat .chat-text').length === 2", timeout=ARRIVAL_TIMEOUT
        )
        assert lines(page).last.inner_text() == "Let me think about it."

    # Too fast: the refusal shows beside the field, the message stays to be sent again.
    sent = 0
    for number in range(7):
        say(isabel, f"quick {number}")
        isabel.wait_for_function(
            """n => document.querySelectorAll('#chat .chat-text').length === n
                   || document.querySelector('#chat-error .error-fragment')""",
            arg=3 + sent,
            timeout=ARRIVAL_TIMEOUT,
        )
        if isabel.locator("#chat-error .error-fragment").count():
            break
        sent += 1
    else:
        pytest.fail("no message was refused for coming too fast")
    assert "Slow down" in isabel.locator("#chat-error").inner_text()
    assert isabel.input_value("#chat-text") == f"quick {number}"
    assert lines(isabel).count() == 2 + sent

    # Felipe mutes Isabel: her lines go from his page only, and stay gone after a reload.
    felipe.get_by_role("button", name="Mute isabel").click()
    felipe.wait_for_selector("button:has-text('Unmute isabel')", timeout=ARRIVAL_TIMEOUT)
    assert [text for text in lines(felipe).all_inner_texts()] == ["Let me think about it."]
    felipe.reload()
    assert [text for text in lines(felipe).all_inner_texts()] == ["Let me think about it."]
    spectator.wait_for_function(
        "n => document.querySelectorAll('#chat .chat-text').length === n", arg=2 + sent, timeout=ARRIVAL_TIMEOUT
    )

    for page, viewport in ((isabel, DESKTOP), (spectator, PHONE)):
        assert page.evaluate("window.stillTheSamePage") is True
        assert page.evaluate("document.documentElement.scrollWidth") == viewport["width"]
    assert felipe.evaluate("document.documentElement.scrollWidth") == PHONE["width"]
    if SHOTS:
        for name, page in (("player", isabel), ("muted", felipe), ("spectator", spectator)):
            page.locator("#chat").scroll_into_view_if_needed()
            page.screenshot(path=f"{SHOTS}/chat-{name}-{page.viewport_size['width']}.png", full_page=True)
            page.locator("#chat").screenshot(path=f"{SHOTS}/chat-section-{name}-{page.viewport_size['width']}.png")
    for context in (isabel_context, felipe_context, spectator_context):
        context.close()


def test_without_javascript_a_player_talks_through_the_plain_form(live_site, browser):
    contexts = [browser.new_context(viewport=PHONE, java_script_enabled=False) for _ in range(2)]
    host, guest = sign_up(contexts[0], live_site, "elena"), sign_up(contexts[1], live_site, "fermin")
    game_url = create_game(host, live_site)
    guest.goto(game_url)
    guest.get_by_role("button", name="Join").click()
    guest.wait_for_selector("#chat-text")
    say(guest, "Hola, Elena")
    guest.wait_for_url(game_url + "#chat")
    assert lines(guest).all_inner_texts() == ["Hola, Elena"]
    # One long word without a space wraps inside the phone's width.
    word = "https://example.org/" + "x" * 300
    say(guest, word)
    assert lines(guest).all_inner_texts() == ["Hola, Elena", word]
    say(guest, "bad \u202e line")
    assert "control character U+202E" in guest.locator("main").inner_text()
    host.goto(game_url)
    assert lines(host).all_inner_texts() == ["Hola, Elena", word]
    assert host.evaluate("document.documentElement.scrollWidth") == PHONE["width"]
    for context in contexts:
        context.close()
