"""The site's settings read in a Python process of their own, with an environment of the test's
choosing: how the tests see what the settings make of a variable, and that a bad one stops the
site at start with its reason."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent

# Everything the settings read, so that the environment of the test run leaks into none of these.
READ = [
    "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "DATABASE_URL", "DATABASE_POOL",
    "DATABASE_POOL_SIZE", "REDIS_URL", "REDIS_MAX_CONNECTIONS", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE",
    "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD",
    "SECURE_PROXY_SSL_HEADER", "DJANGO_SETTINGS_MODULE", "LOG_LEVEL", "SITE_URL", "PORT", "SITE_NAME",
    "ANSWERS_AHEAD_DELAY",
]


def environment(**variables):
    env = {key: value for key, value in os.environ.items() if key not in READ}
    return {**env, "PYTHONPATH": str(ROOT), **variables}


def run(code, **variables):
    """`code` run by a new Python in `environment(**variables)`: the finished process."""
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environment(**variables),
                          capture_output=True, text=True, timeout=60)


def django_set_up(code="", **variables):
    """Django set up with the site's settings in `environment(**variables)`, then `code` run: the
    finished process (a setting refused stops it, its reason on stderr)."""
    return run(f"import django; django.setup(); {code}", DJANGO_SETTINGS_MODULE="elgrande_site.settings", **variables)
