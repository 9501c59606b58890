"""Settings of the live site that the browser modules of one test process share
(tests/browser/conftest.py: `shared_site`): those of the tests' other live sites
(tests/support/site_settings.py: passwords hashed with MD5), whose URLs add addresses for the tests
alone (tests/support/shared_site_urls.py). Only a server started by the tests runs these settings."""

from tests.support.site_settings import *  # noqa: F403

ROOT_URLCONF = "tests.support.shared_site_urls"
