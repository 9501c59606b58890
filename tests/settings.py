"""The settings of the test processes: the site's own (elgrande_site/settings.py), except that each
pytest-xdist worker (`make test` runs several) gets a Redis database of its own. The workers' test
databases already differ (pytest-django suffixes their names with _gw0, _gw1 ...); without this
their Celery workers would take each other's tasks from one queue. The new REDIS_URL is put in the
environment, so that the servers and workers a test starts use it too."""

import os
from urllib.parse import urlsplit, urlunsplit

_worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # gw0, gw1 ...
_url = os.environ.get("REDIS_URL", "")
if _worker and _url and os.environ.get("TEST_REDIS_WORKER") != _worker:
    # Spread the workers over Redis's 16 databases: with 2 workers REDIS_URL's database n and n+8.
    _parts = urlsplit(_url)
    _first = int(_parts.path.strip("/") or 0)
    _step = max(1, 16 // int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    _number = (_first + int(_worker.removeprefix("gw")) * _step) % 16
    os.environ["REDIS_URL"] = urlunsplit(_parts._replace(path=f"/{_number}"))
    # A process this one starts inherits the worker's name: it must not move its database again.
    os.environ["TEST_REDIS_WORKER"] = _worker

from elgrande_site.settings import *  # noqa: E402, F403

# The processes the tests start (servers, manage.py, Celery workers) run the site's own settings,
# with the environment above: some run in a copy of the code that has no tests/. The test
# processes themselves are pointed here by --ds in pyproject.toml, which the environment does not
# override.
os.environ["DJANGO_SETTINGS_MODULE"] = "elgrande_site.settings"

# Set for the test processes once, not by an autouse fixture in each test: each change of a
# setting is sent to some twenty receivers on the way in and again on the way out (bench/README.md).
# A fast hash (tests/support/site_settings.py says why that is safe), and no pause before a
# computer player's move.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
BOT_MOVE_DELAY = 0
