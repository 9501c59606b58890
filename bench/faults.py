"""How long the web process takes to serve pages again after its PostgreSQL failed.

Starts the embedded site (Daphne, no REDIS_URL) on the PostgreSQL database DATABASE_URL names,
migrated, through the relay of tests/test_deadline_faults.py; warms its pool with `--parallel`
lobby requests at once; then, for each fault asked:

- `silent`: the relay forwards nothing for `--silent` seconds (1 by default) while requests are
  under way, and the connections it silenced stay so after (a path that lost their state);
- `refused`: the relay refuses connections and cuts those open for `--refused` seconds (each of a
  comma-separated list, 4 and 20 by default) while 5 requests at a time keep asking.

It prints, for each, the slowest answer to a request made during the fault or just after, the
statuses seen, and how long after the fault ended the lobby was served again (asked one request
after another). Run from the repository root:

    DATABASE_URL=postgres://... .venv/bin/python bench/faults.py [--silent 1] [--refused 4,20]
"""

import argparse
import collections
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "elgrande_site.settings")


def relay_class():
    """The tests' Proxy, without importing the tests as a package (they need pytest's Django)."""
    spec = importlib.util.spec_from_file_location("deadline_faults", ROOT / "tests" / "test_deadline_faults.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Proxy


def get(port, timeout=60):
    """(status or exception name, seconds taken) of a GET of the lobby."""
    started = time.monotonic()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=timeout) as response:
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    except OSError as error:
        status = type(error).__name__
    return status, time.monotonic() - started


def served_again(port, limit=120):
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if get(port)[0] == 200:
            return time.monotonic() - started
        time.sleep(0.05)
    return float("inf")


def report(name, answers, recovery):
    statuses = collections.Counter(status for status, _ in answers)
    slowest = max(took for _, took in answers)
    print(f"{name}: slowest answer {slowest:.1f} s, statuses {dict(statuses)}, "
          f"lobby served again {recovery:.1f} s after the fault ended", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--silent", type=float, default=1.0)
    parser.add_argument("--refused", default="4,20")
    parser.add_argument("--parallel", type=int, default=30)
    args = parser.parse_args()

    import django

    django.setup()
    from django.db import connection

    if connection.vendor != "postgresql":
        sys.exit("bench/faults.py needs a PostgreSQL DATABASE_URL (migrated)")
    settings = connection.settings_dict
    relay = relay_class()((settings["HOST"] or "127.0.0.1", int(settings["PORT"] or 5432)))
    relay.up()
    user = settings["USER"] + (f":{settings['PASSWORD']}" if settings["PASSWORD"] else "")
    env = {**os.environ, "DATABASE_URL": f"postgres://{user}@127.0.0.1:{relay.port}/{settings['NAME']}"}
    env.pop("REDIS_URL", None)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    port = listener.getsockname()[1]
    log = tempfile.NamedTemporaryFile(prefix="faults-daphne-", suffix=".log", delete=False)
    server = subprocess.Popen(
        [sys.executable, "-m", "daphne", "--fd", str(listener.fileno()), "elgrande_site.asgi:application"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, pass_fds=[listener.fileno()],
    )
    listener.close()
    try:
        if served_again(port, 60) == float("inf"):
            sys.exit(f"the site did not start: see {log.name}")
        with ThreadPoolExecutor(args.parallel) as pool:
            list(pool.map(lambda _: get(port), range(args.parallel)))

            during = [pool.submit(get, port) for _ in range(args.parallel // 2)]
            time.sleep(0.1)
            relay.silent()
            time.sleep(args.silent)
            relay.up()
            after = [pool.submit(get, port) for _ in range(args.parallel // 2)]
            recovery = served_again(port)
            report(f"silent {args.silent:g} s", [future.result() for future in during + after], recovery)

        for seconds in (float(value) for value in args.refused.split(",")):
            with ThreadPoolExecutor(5) as pool:
                relay.down()
                started, answers = time.monotonic(), []
                while time.monotonic() - started < seconds:
                    answers += pool.map(lambda _: get(port), range(5))
                outage = time.monotonic() - started
                relay.up()
                recovery = served_again(port)
                report(f"refused {outage:.1f} s", answers, recovery)
    finally:
        server.terminate()
        server.wait(30)
        relay.down()
    print(f"(the server's log: {log.name})")


if __name__ == "__main__":
    main()
