"""Settings of the live sites that the browser tests start (tests/browser/conftest.py): the site's
own, with passwords hashed by MD5 rather than PBKDF2's million rounds (0.35 s of processor each on
this machine; each sign-up hashes twice, each log-in through the form once). No browser test is
about the hash, and the other tests hash so too (tests/settings.py). A
module's `SITE_ENV` may name settings of its own, made from these."""

from elgrande_site.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
