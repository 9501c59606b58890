"""The settings docs/operations.md tells a self-hoster to write are the ones Django's deployment
check finds nothing to warn about."""

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def documented_environment():
    """The KEY=VALUE lines of the block that follows "The settings, in `/etc/elgrande/env`"."""
    text = (ROOT / "docs" / "operations.md").read_text()
    block = re.search(r"The settings, in `/etc/elgrande/env`.*?```sh\n(.*?)```", text, re.S).group(1)
    variables = {}
    for line in block.splitlines():
        name, _, value = line.partition("=")
        # <a placeholder> is for the reader to fill in: here, a random secret.
        variables[name] = secrets.token_urlsafe(50) if value.startswith("<") else value
    return variables


def test_the_documented_settings_pass_django_s_deployment_check():
    documented = documented_environment()
    assert {"DEBUG", "SECRET_KEY", "SITE_URL", "ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL"} <= documented.keys()
    assert documented["DEBUG"] == "0"
    env = {key: value for key, value in os.environ.items() if key not in documented and key != "DJANGO_SETTINGS_MODULE"}
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env={**env, **documented, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
