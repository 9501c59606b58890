"""What the browser tests share: where Chromium and the site are, the live site's environment and
its migrated database, and the steps of a player in a page (sign up, log in, create a game, play a
move, wait for the page to show a version)."""

import json
import os
import re
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from contextlib import closing, contextmanager
from pathlib import Path

# Debian's old headless shell (package chromium-headless-shell) where it is installed, else its
# Chromium: the same engine, without the full browser's windowing, whose "new" headless mode cost
# about 60% more processor in the same browser tests (bench/README.md, "Chromium's headless shell").
CHROMIUM = next(
    (path for path in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if os.access(path, os.X_OK)),
    "/usr/bin/chromium-headless-shell",
)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
MANAGE = [sys.executable, str(ROOT / "manage.py")]

# The addresses, on the browser modules' shared site alone (tests/support/shared_site_urls.py), that
# put it back to the migrated database, that log a player in without the form and that run a seed's
# code in the server; SHARED_SITES holds that site's address and its database while it runs
# (tests/browser/conftest.py).
RESET = "__tests__/reset/"
SESSION = "__tests__/session/"
RUN = "__tests__/run/"
SHARED_SITES = {}


def site_environment(database, extra=()):
    """The environment of a site process on the SQLite file `database` (the tests' REDIS_URL left
    out; the settings of the tests' live sites, tests/support/site_settings.py), with `extra` added."""
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(DATABASE_URL=f"sqlite:///{database}", DEBUG="1", PYTHONUNBUFFERED="1",
               DJANGO_SETTINGS_MODULE="tests.support.site_settings")
    env.update(extra)
    return env


def copy_of_migrated(migrated, database):
    """Copy the migrated database to `database` through SQLite's backup, which also takes what is
    still in the write-ahead log."""
    with closing(sqlite3.connect(migrated)) as source, closing(sqlite3.connect(database)) as copy:
        source.backup(copy)
    return database


PASSWORD = "a-long-enough-Passw0rd"

# SCREENSHOTS=<folder> saves the pages that the tests `shoot` there, to look at them by hand.
SHOTS = os.environ.get("SCREENSHOTS")


def seeded(env, code):
    """Run `code` in `manage.py shell` against the live site's database (`env`, the site's
    environment): the way a module fills its site before its tests. Returns what the code printed
    last as JSON (the ids and names of what it made), or None if it printed nothing. On the shared
    site's own environment, the code runs in its server (`RUN`) instead of a new Django process."""
    # pytest names the test and its phase in PYTEST_CURRENT_TEST: a module's environment, made at
    # its first test's setup, still names that setup during a later test's call.
    def asked_of(environment):
        return {key: value for key, value in environment.items() if key != "PYTEST_CURRENT_TEST"}

    shared = [site for site, database in SHARED_SITES.items() if asked_of(env) == asked_of(site_environment(database))]
    if shared:
        asked = urllib.request.Request(f"{shared[0]}/{RUN}", data=urllib.parse.urlencode({"code": code}).encode())
        try:
            with urllib.request.urlopen(asked, timeout=300) as answer:
                printed = answer.read().decode()
        except urllib.error.HTTPError as error:
            raise RuntimeError(f"the code failed in the shared site:\n{error.read().decode()}") from None
    else:
        printed = subprocess.run(
            [*MANAGE, "shell", "-v0", "-c", code], cwd=ROOT, env=env, check=True, capture_output=True, text=True
        ).stdout
    lines = printed.strip().splitlines()
    return json.loads(lines[-1]) if lines else None


# The loop of a `site_shell`: each line it reads is a JSON string of code, run in a namespace of its
# own; it answers with one line, ANSWER and JSON: what the code printed or the error that stopped it
# (other lines, a log handler's, are passed over).
SHELL_LOOP = """
import contextlib, io, json, sys, traceback
for line in sys.stdin:
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(json.loads(line), {})
        answer = {"printed": printed.getvalue()}
    except Exception:
        answer = {"printed": printed.getvalue(), "error": traceback.format_exc()}
    sys.stdout.write("ANSWER " + json.dumps(answer) + "\\n")
    sys.stdout.flush()
"""


@contextmanager
def site_shell(env):
    """A `manage.py shell` against the live site's database that stays open: calling it with code
    runs the code there and returns what it printed last as JSON, as `seeded` does. For a test
    that reads the site's database again and again: each `seeded` starts Django anew (seconds of
    processor on a loaded machine), this one starts it once."""
    shell = subprocess.Popen(
        [*MANAGE, "shell", "-v0", "-c", SHELL_LOOP], cwd=ROOT, env=env, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True,
    )

    def run(code):
        shell.stdin.write(json.dumps(code) + "\n")
        shell.stdin.flush()
        for line in shell.stdout:
            if line.startswith("ANSWER "):
                break
        else:
            raise RuntimeError(f"the site's shell ended (exit status {shell.wait()})")
        answer = json.loads(line.removeprefix("ANSWER "))
        if "error" in answer:
            raise RuntimeError(f"the code failed in the site's shell:\n{answer['error']}")
        lines = answer["printed"].strip().splitlines()
        return json.loads(lines[-1]) if lines else None

    try:
        yield run
    finally:
        shell.stdin.close()
        try:
            shell.wait(timeout=30)
        except subprocess.TimeoutExpired:
            shell.kill()
            shell.wait()


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



def short_game_of_two(browser, site, first, second):
    """`first` and `second` sign up, each in a browser context of their own; `first` opens a short
    two-player game without veto cards and `second` joins it. Returns both pages, each showing the
    started game's map, and the game page's URL."""
    opener = sign_up(browser.new_context(), site, first)
    joiner = sign_up(browser.new_context(), site, second)
    game_url = create_game(opener, site, check=["input[name=short_game][value=True]"], uncheck=["input[name=veto]"])
    joiner.goto(game_url)
    joiner.get_by_role("button", name="Join").click()
    joiner.wait_for_selector("svg.map")
    opener.wait_for_selector("svg.map", timeout=MOVE_TIMEOUT)
    return opener, joiner, game_url

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


# Elements wider than the window, or sticking out of its right edge.
OVERFLOWING = """() => Array.from(document.querySelectorAll('body *'))
    .filter(element => element.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
    .filter(element => !element.closest('.table-scroll, .chart-frame, .log ol, .chat-lines'))
    .map(element => element.tagName + '.' + element.className + ' ' + Math.round(element.getBoundingClientRect().right))
    .slice(0, 10)"""


def log_in(context, site, name):
    """A new page of `context` where `name` (password PASSWORD) has logged in; it is on the lobby.
    On the shared site the session is made by the site (`SESSION`) and set as the context's cookie;
    elsewhere the page fills the log-in form."""
    page = context.new_page()
    if site in SHARED_SITES:
        asked = urllib.request.Request(f"{site}/{SESSION}", data=urllib.parse.urlencode({"username": name}).encode())
        with urllib.request.urlopen(asked, timeout=60) as answer:
            key = answer.read().decode()
        context.add_cookies([{"name": "sessionid", "value": key, "url": site}])
        page.goto(f"{site}/")
        return page
    page.goto(f"{site}/accounts/login/")
    page.fill("input[name=login]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{site}/")
    return page


PHONE = {"width": 390, "height": 844}


def fits_the_phone(page, name):
    """Nothing of the page is wider than a phone's 390 px; else the elements that overflow."""
    assert page.evaluate("document.documentElement.scrollWidth") == PHONE["width"], (
        name, page.evaluate(OVERFLOWING)
    )


def fits_the_screen(page):
    """Whether nothing of the page is wider than its window."""
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def shoot(page, name, *, sizes=None, parts=(), full_page=True, in_view=None):
    """With SCREENSHOTS set, save `page` there as <name>-<width>.png at its own size, or at each of
    `sizes` in turn (and back to the first afterwards), with each of `parts` (selectors, shown
    on the page) as <name>-<part>-<width>.png; `in_view` is scrolled into view first."""
    if not SHOTS:
        return
    for size in sizes or [page.viewport_size]:
        page.set_viewport_size(size)
        if in_view:
            page.locator(in_view).scroll_into_view_if_needed()
        page.screenshot(path=os.path.join(SHOTS, f"{name}-{size['width']}.png"), full_page=full_page)
        for part in parts:
            # A part the page has but hides (the decision panel of a finished game) has no picture.
            if page.locator(part).count() and page.locator(part).first.is_visible():
                label = part.lstrip(".#")
                page.locator(part).first.screenshot(path=os.path.join(SHOTS, f"{name}-{label}-{size['width']}.png"))
    if sizes:
        page.set_viewport_size(sizes[0])
