"""The axe-core audit (the npm package, tests' own package.json), injected into Debian's Chromium on
the lobby, the game page in each phase, a replay, the archive and the settings page, at 1366×900
and 390×844: no "serious" or "critical" violation."""

import shutil
import subprocess

import pytest

from tests.support.browser import ROOT, log_in, seeded

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SIZES = [{"width": 1366, "height": 900}, {"width": 390, "height": 844}]
GRAVE = ("serious", "critical")


@pytest.fixture(scope="session")
def axe_source():
    """axe-core's script, installed from package-lock.json by npm when it is not there yet."""
    if not AXE.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is missing: the accessibility audit needs it to install axe-core (apt-get install -y npm)")
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=ROOT, check=True)
    return AXE.read_text()


@pytest.fixture(scope="module")
def games(live_site_env, live_site):
    return seeded(live_site_env, "from tests.support.a11y_games import make; make()")


def grave_violations(page, axe_source):
    """axe's serious and critical violations on the page as it stands, one line each."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_source)
    results = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{violation['id']} ({violation['impact']}): {node['target']} {node['failureSummary'][:160]}"
        for violation in results["violations"] if violation["impact"] in GRAVE
        for node in violation["nodes"][:5]
    ]


def audit(page, axe_source, url):
    """{width: violations} of the page at `url` at each size."""
    found = {}
    for size in SIZES:
        page.set_viewport_size(size)
        page.goto(url)
        page.wait_for_load_state("load")
        found[size["width"]] = grave_violations(page, axe_source)
    return found


@pytest.mark.parametrize("phase", ["bidding", "card", "placing", "veto", "scoring", "end"])
def test_the_game_page_in_each_phase_has_no_serious_violation(live_site, browser, games, axe_source, phase):
    game, player = games[phase]
    context = browser.new_context()
    page = log_in(context, live_site, player)
    found = audit(page, axe_source, f"{live_site}/games/{game}/")
    context.close()
    assert found == {1366: [], 390: []}


def test_the_lobby_replay_archive_and_settings_have_no_serious_violation(live_site, browser, games, axe_source):
    game, player = games["end"]
    context = browser.new_context()
    page = log_in(context, live_site, player)
    paths = ("/", f"/games/{game}/?at=5", "/archive/", "/accounts/settings/")
    found = {path: audit(page, axe_source, f"{live_site}{path}") for path in paths}
    # On a phone, the header's menu open too.
    page.goto(f"{live_site}/")
    page.click("header .menu-toggle")
    found["the menu open"] = grave_violations(page, axe_source)
    context.close()
    assert found == {**{path: {1366: [], 390: []} for path in paths}, "the menu open": []}
