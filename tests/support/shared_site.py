"""Settings of the live site that the browser modules of one test process share
(tests/browser/conftest.py: `shared_site`): the site's own, whose URLs add one address for the
tests alone, `RESET` (tests/support/shared_site_urls.py). Only a server started by the tests runs
these settings."""

from elgrande_site.settings import *  # noqa: F403

ROOT_URLCONF = "tests.support.shared_site_urls"
