"""Two players, one reading Italian (chosen with the header's switcher) and one French (her
browser's language), play the first turns of a game: each reads the pages, the log, a refusal and
the clock in their own language."""

import html
import re

import pytest

from tests.support.browser import MOVE_TIMEOUT, version, wait_for_version
from tests.support.browser import sign_up_on as sign_up

pytestmark = pytest.mark.browser


def log_lines(page):
    return page.locator("#log li").all_inner_texts()


def bid(page):
    """Play the first power card the panel offers; returns the version the move makes."""
    before = version(page)
    # Chosen, then confirmed (static/decision.js): the choice alone sends nothing.
    page.locator("#decision-panel button[data-bid]").first.click()
    assert version(page) == before
    page.locator("#decision-panel .bid-confirm").click()
    wait_for_version(page, before + 1)
    return before + 1


def forge_a_bid(page, card):
    """Send a bid of a power card nobody holds through the panel's own form: the server refuses."""
    page.evaluate(
        """card => {
            const offered = document.querySelector('#decision-panel button[data-bid]');
            const forged = offered.cloneNode(true);
            forged.value = JSON.stringify({type: 'bid', card: card});
            forged.hidden = true;
            // As the bid's Confirm button sends a chosen bid (static/decision.js).
            forged.dataset.confirmed = '1';
            offered.after(forged);
            forged.click();
            forged.remove();
        }""",
        card,
    )
    page.wait_for_selector("#move-error .error-fragment", timeout=MOVE_TIMEOUT)
    return page.locator("#move-error").inner_text()


def test_an_italian_and_a_french_player_each_read_the_game_in_their_language(live_site, browser, tmp_path):
    giulia_context = browser.new_context(locale="en-GB")
    amelie_context = browser.new_context(locale="fr-FR")
    giulia, amelie = giulia_context.new_page(), amelie_context.new_page()

    # Giulia's browser speaks English: she switches to Italian in the header before signing up.
    giulia.goto(f"{live_site}/accounts/signup/")
    assert giulia.locator("html").get_attribute("lang") == "en"
    giulia.get_by_role("button", name="Italiano").click()
    giulia.wait_for_selector("html[lang=it]")
    assert giulia.locator("main h1").inner_text() == "Registrati"
    sign_up(giulia, live_site, "giulia")
    # Amélie's browser asks for French, and gets it at once.
    amelie.goto(f"{live_site}/")
    assert amelie.locator("html").get_attribute("lang") == "fr"
    assert amelie.locator("header nav").get_by_role("link", name="Archives").count() == 1
    sign_up(amelie, live_site, "amelie")

    giulia.goto(f"{live_site}/games/new/")
    assert giulia.locator("main h1").inner_text() == "Crea una partita"
    giulia.select_option("select[name=num_players]", "2")
    giulia.get_by_role("button", name="Crea", exact=True).click()
    giulia.wait_for_url(re.compile(r"/games/\d+/$"))
    assert "Partita creata." in giulia.locator("#messages").inner_text()
    game_url = giulia.url

    amelie.goto(game_url)
    amelie.get_by_role("button", name="Rejoindre").click()
    amelie.wait_for_selector("svg.map")
    giulia.wait_for_selector("svg.map", timeout=MOVE_TIMEOUT)
    pages = {"it": giulia, "fr": amelie}

    # Whoever bids first is refused a forged power card, in their own words, and nothing changes.
    first = next(lang for lang, page in pages.items() if page.locator("#decision-panel button[data-bid]").count())
    second = "fr" if first == "it" else "it"
    refusal = {"it": "Non è una delle mosse che puoi fare ora.",
               "fr": "Ce n'est pas l'un des coups qui vous sont ouverts maintenant."}
    before = version(pages[first])
    assert forge_a_bid(pages[first], 99) == refusal[first]
    assert version(pages[first]) == before

    # The other player, not to act, is told so by the server in theirs (a move posted out of turn).
    out_of_turn = pages[second].request.post(
        game_url + "move/",
        form={"move": '{"type": "bid", "card": 13}', "expected_version": str(before),
              "csrfmiddlewaretoken": pages[second].evaluate(
                  "() => document.querySelector('[name=csrfmiddlewaretoken]').value")},
        headers={"HX-Request": "true", "Referer": game_url},
    )
    assert out_of_turn.status == 409
    assert {"it": "Non è il tuo turno.", "fr": "Ce n'est pas votre tour."}[second] in html.unescape(out_of_turn.text())

    # A few turns: both bid, each page follows over its socket.
    made = bid(pages[first])
    wait_for_version(pages[second], made)
    pages[second].wait_for_selector("#decision-panel button[data-bid]", timeout=MOVE_TIMEOUT)
    made = bid(pages[second])
    wait_for_version(pages[first], made)

    plays = {
        "it": re.compile(r"\(\w+\) gioca la carta potere \d+\."),
        "fr": re.compile(r"\(\w+\) joue la carte de pouvoir \d+\."),
    }
    for language, page in pages.items():
        lines = log_lines(page)
        assert sum(bool(plays[language].search(line)) for line in lines) == 2, lines
        english = [line for line in lines if "plays power card" in line or "bids first" in line]
        assert not english, english
        # The clock counts down in the reader's words.
        clock = page.locator("p.clock time.countdown").inner_text()
        left = {"it": r"\d+ (g|h|min) \d+ (h|min|s) rimasti", "fr": r"\d+ (j|h|min) \d+ (h|min|s) restantes?"}
        assert re.fullmatch(left[language], clock), clock
        assert page.locator("#log h2").inner_text() == {"it": "Registro", "fr": "Journal"}[language]

    # The one to act now reads the panel and the title's mark in their language.
    acting = next(lang for lang, page in pages.items() if page.locator("#decision-panel").count())
    title = {"it": "● Tocca a te – ", "fr": "● À vous – "}[acting]
    pages[acting].wait_for_function("t => document.title.startsWith(t)", arg=title, timeout=MOVE_TIMEOUT)
    heading = pages[acting].locator("#decision-panel h2").inner_text()
    assert heading.startswith({"it": "La tua decisione", "fr": "Votre décision"}[acting]), heading

    for language, page in pages.items():
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.screenshot(path=str(tmp_path / f"game-{language}-{width}.png"), full_page=False)
    giulia_context.close()
    amelie_context.close()
