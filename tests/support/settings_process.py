"""The site's settings read in a Python process of their own, with an environment of the test's
choosing: how the tests see what the settings make of a variable, and that a bad one stops the
site at start with its reason.

Each run is a new process, but not a new interpreter: a warm Python (started once per test
process) has imported the libraries the site's start imports (Django, Celery, Daphne ...), and
forks a child per run, which takes the test's environment and only then imports the site's own
modules, its settings first. A cold `python -c "import django; django.setup()"` spent most of its
2.7 s of processor importing those libraries, once per run. The libraries are imported with no
settings module named, so none of them read a setting before the child does."""

import atexit
import json
import os
import select
import subprocess
import sys
import tempfile
import threading
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

# Libraries that the site's start imports and that read no setting of the site when imported.
WARM = [
    "django", "django.conf", "django.urls", "django.db.models", "django.template", "django.forms", "django.http",
    "celery", "celery.app.base", "kombu", "redis", "channels", "channels_redis.core", "daphne.server",
    "allauth", "dj_database_url", "pythonjsonlogger.json",
]

# The warm Python: imports WARM, then for each request (a line of JSON on its stdin: the code, the
# environment, the files for the child's output) forks a child that runs the code as `python -c`
# would, and answers with the child's exit status.
SERVER = r"""
import atexit, json, os, sys, threading
for name in WARM:
    __import__(name)
answers = os.fdopen(os.dup(1), "w")
answers.write("ready\n")
answers.flush()
for line in sys.stdin:
    request = json.loads(line)
    answers.flush(); sys.stdout.flush(); sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.environ.clear()
        os.environ.update(request["env"])
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(os.open(request["stdout"], os.O_WRONLY), 1)
        os.dup2(os.open(request["stderr"], os.O_WRONLY), 2)
        sys.stdin = open(0, closefd=False)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False, errors="backslashreplace")
        sys.argv = ["-c"]
        status = 0
        try:
            exec(compile(request["code"], "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
        except SystemExit as stop:
            if stop.code is None:
                status = 0
            elif isinstance(stop.code, int):
                status = stop.code
            else:
                print(stop.code, file=sys.stderr)
                status = 1
        except BaseException:
            sys.excepthook(*sys.exc_info())
            status = 1
        # As the interpreter ends: the other threads joined, the exit functions run, the output flushed.
        threading._shutdown()
        atexit._run_exitfuncs()
        sys.stdout.flush(); sys.stderr.flush()
        os._exit(status)
    _, waited = os.waitpid(pid, 0)
    answers.write(json.dumps(os.waitstatus_to_exitcode(waited)) + "\n")
    answers.flush()
"""


def environment(**variables):
    env = {key: value for key, value in os.environ.items() if key not in READ}
    return {**env, "PYTHONPATH": str(ROOT), **variables}


# How long the warm Python may take to import WARM (its first start, on a loaded machine).
STARTING = 600


class _Warm:
    """The warm Python of this test process, started on its first run."""

    lock = threading.Lock()
    process = None

    @classmethod
    def run(cls, code, env, timeout):
        with cls.lock:
            if cls.process is None or cls.process.poll() is not None:
                cls.process = subprocess.Popen(
                    [sys.executable, "-c", f"WARM = {WARM!r}\n{SERVER}"], cwd=ROOT, env=environment(),
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True,
                )
                # Its imports are not the run's: a loaded machine may take longer than a run's limit.
                cls.answer(STARTING, "the warm Python's imports")
            with tempfile.TemporaryDirectory() as folder:
                out, err = Path(folder, "stdout"), Path(folder, "stderr")
                out.touch()
                err.touch()
                request = {"code": code, "env": env, "stdout": str(out), "stderr": str(err)}
                cls.process.stdin.write(json.dumps(request) + "\n")
                cls.process.stdin.flush()
                answer = cls.answer(timeout, [sys.executable, "-c", code])
                return subprocess.CompletedProcess([sys.executable, "-c", code], json.loads(answer),
                                                   out.read_text(errors="replace"), err.read_text(errors="replace"))

    @classmethod
    def answer(cls, timeout, what):
        """The warm Python's next line, or TimeoutExpired (and the warm Python stopped)."""
        ready, _, _ = select.select([cls.process.stdout], [], [], timeout)
        line = cls.process.stdout.readline() if ready else ""
        if not line:
            ended = cls.process.poll() is not None
            cls.stop()
            if ended:
                raise RuntimeError("the warm Python ended (its error is in the test's output above)")
            raise subprocess.TimeoutExpired(what, timeout)
        return line

    @classmethod
    def stop(cls):
        if cls.process is not None and cls.process.poll() is None:
            os.killpg(cls.process.pid, 9)
            cls.process.wait()
        cls.process = None


atexit.register(_Warm.stop)


def _starts_alike(env):
    """Whether a child of the warm Python starts as a new interpreter in `env` would: the
    variables that Python reads when it starts are the warm one's."""
    own = environment()
    return all(env.get(name) == own.get(name) for name in {*env, *own} if name.startswith("PYTHON"))


def python(code, env, timeout=60, check=False):
    """`code` run as `python -c` runs it, in the environment `env` (whole, with PYTHONPATH naming
    the project) and in the project's folder: the finished process, stdout and stderr as text."""
    if _starts_alike(env):
        result = _Warm.run(code, env, timeout)
    else:
        result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                                timeout=timeout)
    if check:
        result.check_returncode()
    return result


def run(code, **variables):
    """`code` run by a new Python process in `environment(**variables)`: the finished process."""
    return python(code, environment(**variables))


def django_set_up(code="", **variables):
    """Django set up with the site's settings in `environment(**variables)`, then `code` run: the
    finished process (a setting refused stops it, its reason on stderr)."""
    return run(f"import django; django.setup(); {code}", DJANGO_SETTINGS_MODULE="elgrande_site.settings", **variables)
