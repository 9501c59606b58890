"""The production topology of docs/operations.md, brought up by its own commands and used through
nginx only: `make serve` (Gunicorn with two Uvicorn workers, a Celery worker and beat under
supervisord) on PostgreSQL and Redis, DEBUG=0, nginx in front with deploy/nginx/elgrande.conf
ending TLS. A browser signs up (the mail goes through an SMTP server), two players start a game
and play, each page hearing the other's moves over its WebSocket through the proxy; then a web
worker and the Celery worker are killed, come back, and the game goes on with nothing lost."""

import http.client
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.support.browser import CHROMIUM
from tests.support.helpers import free_port
from tests.support.smtp import smtp_server

ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
TOKEN = "a-scrapers-token-0123456789"
PASSWORD = "a-long-enough-Passw0rd"

pytestmark = [
    pytest.mark.skipif(not os.path.exists(NGINX), reason="needs nginx (apt-get install -y nginx; .ci/run does)"),
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="needs Chromium (apt-get install -y chromium-headless-shell)"),
    pytest.mark.skipif(
        not os.environ.get("REDIS_URL") or not os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="the production topology runs on PostgreSQL and Redis (CI sets DATABASE_URL and REDIS_URL)",
    ),
]


@pytest.fixture
def mailbox():
    with smtp_server() as server:
        yield server


@pytest.fixture
def database():
    """A new, empty PostgreSQL database on the test run's server, as for a fresh install."""
    import psycopg

    parts = urlsplit(os.environ["DATABASE_URL"])
    name = f"elgrande_production_{os.getpid()}"
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')
    yield parts._replace(path=f"/{name}").geturl()
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def nginx_config(folder, *, http_port, https_port, web_port):
    """deploy/nginx/elgrande.conf as docs/operations.md installs it, with this test's ports, name and
    certificate, inside a main configuration of its own."""
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")],
        check=True, capture_output=True,
    )
    site = (ROOT / "deploy" / "nginx" / "elgrande.conf").read_text()
    site = site.replace("server 127.0.0.1:8000;", f"server 127.0.0.1:{web_port};")
    site = re.sub(r"\n\s*listen \[::\]:\d+[^;]*;", "", site)
    site = site.replace("listen 80;", f"listen 127.0.0.1:{http_port};")
    site = site.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;")
    site = site.replace("elgrande.example", "127.0.0.1")
    site = site.replace("/etc/letsencrypt/live/127.0.0.1/fullchain.pem", str(folder / "cert.pem"))
    site = site.replace("/etc/letsencrypt/live/127.0.0.1/privkey.pem", str(folder / "key.pem"))
    (folder / "elgrande.conf").write_text(site)
    temp = folder / "temp"
    temp.mkdir()
    main = f"""
{"user root;" if os.geteuid() == 0 else ""}
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    include /etc/nginx/mime.types;
    access_log {folder}/access.log;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    include {folder}/elgrande.conf;
}}
"""
    (folder / "nginx.conf").write_text(main)
    return folder / "nginx.conf"


def fetch(url, token=None):
    """(status, headers, body) of a GET through nginx, its certificate our own."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, context=context, timeout=20) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()
    except OSError:
        return None, {}, ""


def wait_until(check, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.5)
    raise AssertionError(f"{what} within {seconds} s")


def supervised_pid(env, program):
    result = subprocess.run([sys.executable, "-m", "supervisor.supervisorctl", "--configuration",
                             "deploy/supervisord.conf", "pid", program], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=30)
    return int(result.stdout.strip()) if result.stdout.strip().isdigit() else None


def children(pid):
    result = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(line) for line in result.stdout.split()]


def metric(text, name):
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name + " "))


@pytest.fixture
def production(tmp_path, database, mailbox):
    box, smtp_port = mailbox
    http_port, https_port, web_port = free_port(), free_port(), free_port()
    site = f"https://127.0.0.1:{https_port}"
    redis_url = os.environ["REDIS_URL"].rsplit("/", 1)[0] + "/13"
    subprocess.run(["redis-cli", "-n", "13", "flushdb"], capture_output=True)
    env = {
        **{key: value for key, value in os.environ.items() if key not in ("DJANGO_SETTINGS_MODULE", "STATIC_ROOT")},
        # docs/operations.md's settings for a site behind nginx on this machine.
        "DEBUG": "0", "SECRET_KEY": "production-test-" + "k" * 50, "SITE_URL": site,
        "ALLOWED_HOSTS": "127.0.0.1", "CSRF_TRUSTED_ORIGINS": site,
        "SECURE_PROXY_SSL_HEADER": "1", "TRUSTED_PROXY_COUNT": "1",
        "DATABASE_URL": database, "REDIS_URL": redis_url,
        "EMAIL_URL": f"smtp://127.0.0.1:{smtp_port}?starttls=off",
        "DEFAULT_FROM_EMAIL": "El Grande <games@elgrande.example>",
        "WEB_BIND": f"127.0.0.1:{web_port}", "WEB_CONCURRENCY": "2", "WORKER_CONCURRENCY": "2",
        "METRICS_TOKEN": TOKEN, "LOG_LEVEL": "INFO",
        "SERVE_STATE": str(tmp_path / "serve"), "STATIC_ROOT": str(tmp_path / "staticfiles"),
        "DEADLINE_SWEEP_SECONDS": "2", "BOT_MOVE_DELAY": "0",
    }
    log = open(tmp_path / "serve.log", "w")
    serve = subprocess.Popen(["make", "serve"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
    config = nginx_config(tmp_path, http_port=http_port, https_port=https_port, web_port=web_port)
    nginx = subprocess.Popen([NGINX, "-c", str(config), "-g", "daemon off;"], stderr=subprocess.STDOUT,
                             stdout=open(tmp_path / "nginx.out", "w"))
    try:
        wait_until(lambda: fetch(f"{site}/readyz")[0] == 200 or serve.poll() is not None, 300, "the site is ready")
        assert serve.poll() is None, (tmp_path / "serve.log").read_text()[-5000:]
        yield {"site": site, "env": env, "mailbox": box, "log": tmp_path / "serve.log", "database": database,
               "http_port": http_port}
    finally:
        nginx.send_signal(signal.SIGQUIT)
        os.killpg(serve.pid, signal.SIGTERM)
        try:
            serve.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(serve.pid, signal.SIGKILL)
        nginx.wait(timeout=20)
        log.close()


def test_the_production_topology_serves_plays_and_survives_killed_processes(production):
    from playwright.sync_api import sync_playwright

    from tests.support.browser import CHROMIUM_ARGS, act, create_game, version, wait_for_version

    site, env = production["site"], production["env"]
    plain = http.client.HTTPConnection("127.0.0.1", production["http_port"], timeout=10)
    plain.request("GET", "/readyz")
    answer = plain.getresponse()
    assert answer.status == 301 and answer.getheader("Location") == "https://127.0.0.1/readyz"
    status, _, body = fetch(f"{site}/readyz")
    assert status == 200 and '"redis": "ok"' in body and '"sweep": "ok"' in body

    # The first staff account, as docs/operations.md makes it (without the questions), logs in to
    # the admin through nginx, its pages styled by the web process's static files.
    subprocess.run([sys.executable, "manage.py", "createsuperuser", "--noinput", "--username", "keeper",
                    "--email", "keeper@elgrande.example"], cwd=ROOT, check=True, capture_output=True,
                   env={**env, "DJANGO_SUPERUSER_PASSWORD": PASSWORD})

    statics = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        contexts = {name: browser.new_context(ignore_https_errors=True) for name in ("isabel", "felipe")}
        for context in contexts.values():
            context.on("response", lambda response: "/static/" in response.url and statics.append(
                (response.url, response.status, response.headers.get("cache-control", ""))))
        pages = {}
        for name, context in contexts.items():
            page = context.new_page()
            page.goto(f"{site}/accounts/signup/")
            page.fill("input[name=username]", name)
            page.fill("input[name=email]", f"{name}@example.org")
            page.fill("input[name=password1]", PASSWORD)
            page.fill("input[name=password2]", PASSWORD)
            page.click("main form button[type=submit]")
            page.wait_for_url(f"{site}/accounts/confirm-email/")
            # The confirmation went through the SMTP server, its link to the site behind nginx;
            # following it confirms the address and logs the player in.
            mail = production["mailbox"].wait_for(f"{name}@example.org")
            text = mail.get_body(("plain",)).get_content()
            link = re.search(rf"{re.escape(site)}/accounts/confirm-email/\S+/", text)
            assert link, text
            page.goto(link.group(0))
            page.locator("main form button[type=submit]").click()
            page.wait_for_url(f"{site}/")
            assert page.locator(f"header a.who:text('{name}')").count() == 1
            pages[name] = page
        isabel, felipe = pages["isabel"], pages["felipe"]

        game_url = create_game(isabel, site, check=["input[name=short_game][value=True]"], uncheck=["input[name=veto]"])
        felipe.goto(game_url)
        felipe.get_by_role("button", name="Join").click()
        felipe.wait_for_selector("svg.map")
        isabel.wait_for_selector("svg.map", timeout=20_000)  # learnt over its socket, through nginx

        def play(count):
            made = 0
            for _ in range(count * 20):
                if made == count:
                    return made
                acting = [name for name, page in pages.items() if page.locator("#decision-panel").count()]
                if not acting:
                    isabel.wait_for_timeout(100)
                    continue
                page = pages[acting[0]]
                other = felipe if page is isabel else isabel
                before = version(page)
                act(page)
                wait_for_version(page, before + 1)
                wait_for_version(other, version(page))  # the other page, over its WebSocket only
                made += 1
            raise AssertionError("the game stopped moving")

        made = play(6)

        keeper = browser.new_context(ignore_https_errors=True)
        keeper.on("response", lambda response: "/static/" in response.url and statics.append(
            (response.url, response.status, response.headers.get("cache-control", ""))))
        admin = keeper.new_page()
        admin.goto(f"{site}/admin/")
        admin.fill("input[name=username]", "keeper")
        admin.fill("input[name=password]", PASSWORD)
        admin.click("input[type=submit]")
        admin.wait_for_url(f"{site}/admin/")
        assert admin.locator("#site-name").count() == 1 and admin.get_by_role("link", name="Games").count()
        keeper.close()

        # Every static file the pages loaded came from the web process (WhiteNoise), hashed and cached.
        assert statics
        for url, status, cache_control in statics:
            assert status == 200, url
            assert re.search(r"\.[0-9a-f]{12}\.", url), url
            assert "immutable" in cache_control and "max-age=315360000" in cache_control, (url, cache_control)

        # The metrics are refused without their token (through nginx no address is trusted).
        assert fetch(f"{site}/metrics")[0] == 403
        status, _, text = fetch(f"{site}/metrics", TOKEN)
        assert status == 200
        assert metric(text, 'elgrande_moves_total{outcome="accepted"}') >= made
        assert metric(text, "elgrande_websockets") >= 2

        # A web worker and the Celery worker are killed; supervisord and Gunicorn bring them back.
        web, worker = supervised_pid(env, "web"), supervised_pid(env, "worker")
        assert web and worker and len(children(web)) == 2
        killed_at = time.time()
        os.kill(children(web)[0], signal.SIGKILL)
        os.kill(worker, signal.SIGKILL)
        wait_until(lambda: (supervised_pid(env, "worker") or worker) != worker, 60, "the worker came back")
        wait_until(lambda: len(children(web)) == 2, 60, "Gunicorn replaced its worker")
        # The deadline sweeps go on (beat to the new worker).
        wait_until(
            lambda: 0 <= metric(fetch(f"{site}/metrics", TOKEN)[2], "elgrande_last_sweep_age_seconds")
            < time.time() - killed_at,
            60, "a sweep ran after the kill",
        )

        for page in pages.values():
            page.reload()
            page.wait_for_selector("svg.map")
        made += play(4)
        shown = version(isabel)
        browser.close()

    import psycopg

    game_id = int(re.search(r"/games/(\d+)/$", game_url).group(1))
    with psycopg.connect(production["database"]) as connection:
        moves = connection.execute("SELECT count(*) FROM games_move WHERE game_id = %s", [game_id]).fetchone()[0]
        stored = connection.execute("SELECT version FROM games_game WHERE id = %s", [game_id]).fetchone()[0]
    assert moves == made, "every move acknowledged is stored, once"
    assert stored == shown
