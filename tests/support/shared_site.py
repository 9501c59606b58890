"""Settings of the live site that the browser modules of one test process share
(tests/browser/conftest.py: `shared_site`): the site's own, whose URLs add one address for the
tests alone (tests/support/shared_site_urls.py). Only a server started by the tests runs these
settings."""

from elgrande_site.settings import *  # noqa: F403

ROOT_URLCONF = "tests.support.shared_site_urls"

# Passwords hashed with MD5 rather than PBKDF2's million rounds (0.35 s of processor each on this
# machine): the modules' seeds make dozens of players and each sign-up hashes twice. No browser
# test is about the hash, and the other tests hash so too (tests/conftest.py: fast_password_hashing).
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
