import asyncio
import shutil
import subprocess
import urllib.request
from contextlib import contextmanager

import pytest

from tests.support.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    MANAGE,
    RESET,
    ROOT,
    SHARED_SITES,
    copy_of_migrated,
    site_environment,
)
from tests.support.helpers import serving


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives the site in headless Chromium against a live server")


@pytest.fixture(scope="session")
def migrated_database(tmp_path_factory):
    """An SQLite database migrated once for the whole session: each module's site starts from a
    copy of it (`copy_of_migrated`) instead of migrating one of its own."""
    if not shutil.which(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium-headless-shell)")
    database = tmp_path_factory.mktemp("migrated") / "db.sqlite3"
    subprocess.run([*MANAGE, "migrate", "--noinput", "-v0"], cwd=ROOT, env=site_environment(database), check=True)
    return database


@pytest.fixture(scope="session")
def shared_site(tmp_path_factory, migrated_database):
    """The live site that the modules of this process without a `SITE_ENV` share: (its database,
    its address). Starting a server per module cost Django's start (seconds of processor) and the
    copy each time; `site_database` puts this one back to the migrated database before each module
    (tests/support/shared_site_urls.py: `reset`), caches and ids included."""
    database = copy_of_migrated(migrated_database, tmp_path_factory.mktemp("shared-site") / "db.sqlite3")
    env = site_environment(
        database,
        {"DJANGO_SETTINGS_MODULE": "tests.support.shared_site", "SITE_TEMPLATE_DATABASE": str(migrated_database)},
    )
    with running_site(database, env) as site:
        SHARED_SITES[site] = database
        yield database, site
        del SHARED_SITES[site]


@pytest.fixture(scope="module")
def site_database(request, tmp_path_factory, migrated_database):
    """The live site's database, migrated: (its path, the environment that points at it). A test
    may fill it with `manage.py shell` under that environment before or while the site runs. A
    test module's `SITE_ENV` (a dict) adds to the site's environment; such a module's site and
    database are its own, the others' are the process's `shared_site`, reset for the module."""
    if hasattr(request.module, "SITE_ENV"):
        database = copy_of_migrated(migrated_database, tmp_path_factory.mktemp("site") / "db.sqlite3")
        return database, site_environment(database, request.module.SITE_ENV)
    database, site = request.getfixturevalue("shared_site")
    urllib.request.urlopen(urllib.request.Request(f"{site}/{RESET}", method="POST"), timeout=60).close()
    return database, site_environment(database)


@pytest.fixture(scope="module")
def live_site_env(site_database):
    """The environment of the live site's processes, for a test that runs `manage.py` in it."""
    return site_database[1]


@contextmanager
def running_site(database, env):
    """The whole site (HTTP and WebSocket, daphne's runserver) on a free loopback port: yields its
    address. pytest-django's live_server speaks no WebSocket, and the server runs in another
    process, which cannot see the tests' in-memory database."""
    runserver = [*MANAGE, "runserver", "--noreload"]
    with serving(
        lambda port: [*runserver, f"127.0.0.1:{port}"],
        env=env,
        cwd=ROOT,
        log_path=database.parent / "server.log",
    ) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def live_site(request, site_database):
    """The live site of the module, with the database of `site_database`: a server of the module's
    own for a module with a `SITE_ENV`, else the process's `shared_site`."""
    if not hasattr(request.module, "SITE_ENV"):
        yield request.getfixturevalue("shared_site")[1]
        return
    with running_site(*site_database) as site:
        yield site


@pytest.fixture(scope="session")
def chromium_of_the_session():
    """Playwright's driver and headless Chromium, started once per test process: (the browser, the
    event loop Playwright runs). Between its calls, Playwright's synchronous API leaves that loop
    marked as running in the test thread, and there Django refuses database queries
    (SynchronousOnlyOperation) and asyncio refuses to start another loop: `browser` marks it so
    only while a browser module runs, and the process's other tests find no loop running."""
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    loop = asyncio._get_running_loop()
    asyncio._set_running_loop(None)
    yield chromium, loop
    asyncio._set_running_loop(loop)
    chromium.close()
    playwright.stop()


@pytest.fixture(scope="module")
def browser(chromium_of_the_session):
    """Headless Chromium for one module, shared by the modules of the process (starting Chromium and
    Playwright's driver per module cost a second or two of processor each). What a module opened
    in it is closed when it ends, so that no page of one module's site outlives it."""
    chromium, loop = chromium_of_the_session
    asyncio._set_running_loop(loop)
    try:
        yield chromium
        for context in chromium.contexts:
            context.close()
    finally:
        asyncio._set_running_loop(None)
