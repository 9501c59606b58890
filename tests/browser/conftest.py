import shutil
import subprocess

import pytest

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, MANAGE, ROOT, copy_of_migrated, site_environment
from tests.support.helpers import serving


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives the site in headless Chromium against a live server")


@pytest.fixture(scope="session")
def migrated_database(tmp_path_factory):
    """An SQLite database migrated once for the whole session: each module's site starts from a
    copy of it (`copy_of_migrated`) instead of migrating one of its own."""
    if not shutil.which(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    database = tmp_path_factory.mktemp("migrated") / "db.sqlite3"
    subprocess.run([*MANAGE, "migrate", "--noinput", "-v0"], cwd=ROOT, env=site_environment(database), check=True)
    return database


@pytest.fixture(scope="module")
def site_database(request, tmp_path_factory, migrated_database):
    """The live site's database, migrated: (its path, the environment that points at it). A test
    may fill it with `manage.py shell` under that environment before or while the site runs. A
    test module's `SITE_ENV` (a dict) adds to the site's environment."""
    database = copy_of_migrated(migrated_database, tmp_path_factory.mktemp("site") / "db.sqlite3")
    return database, site_environment(database, getattr(request.module, "SITE_ENV", {}))


@pytest.fixture(scope="module")
def live_site_env(site_database):
    """The environment of the live site's processes, for a test that runs `manage.py` in it."""
    return site_database[1]


@pytest.fixture(scope="module")
def live_site(site_database):
    """The whole site (HTTP and WebSocket, daphne's runserver) on a free loopback port, with a
    database of its own: pytest-django's live_server speaks no WebSocket, and the server runs in
    another process, which cannot see the tests' in-memory database."""
    database, env = site_database
    runserver = [*MANAGE, "runserver", "--noreload"]
    with serving(
        lambda port: [*runserver, f"127.0.0.1:{port}"],
        env=env,
        cwd=ROOT,
        log_path=database.parent / "server.log",
    ) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium for one module. Not for the session: while Playwright's synchronous API is
    running, its event loop counts as running in the test thread, and Django refuses database
    queries there (SynchronousOnlyOperation) in every test that runs after it in the process."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
