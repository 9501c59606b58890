"""The settings module as each environment makes it: imported in a fresh process every time, since
it is read once per process."""

import json
import secrets
import subprocess
import sys

import pytest

from tests.support.settings_process import ROOT, environment, run

NAMES = [
    "DEBUG", "SECRET_KEY", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD", "SECURE_PROXY_SSL_HEADER",
    "CHANNEL_LAYERS", "DATABASES", "ALLAUTH_TRUSTED_PROXY_COUNT", "ALLAUTH_TRUSTED_CLIENT_IP_HEADER", "SITE_URL",
    "SITE_NAME", "ANSWERS_AHEAD_DELAY",
]
A_KEY = secrets.token_urlsafe(50)
PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": A_KEY,
    "ALLOWED_HOSTS": "elgrande.example",
    "CSRF_TRUSTED_ORIGINS": "https://elgrande.example",
    "SECURE_SSL_REDIRECT": "1",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
    "SECURE_HSTS_PRELOAD": "1",
    "SECURE_PROXY_SSL_HEADER": "1",
    "DATABASE_URL": "postgres://elgrande@db.internal:5432/elgrande",
    "REDIS_URL": "redis://redis.internal:6379/0",
    "SITE_URL": "https://elgrande.example",
}


def settings_with(**variables):
    """The settings that the module makes of these environment variables."""
    code = (
        "import json\nfrom elgrande_site import settings\n"
        f"print(json.dumps({{name: getattr(settings, name, None) for name in {NAMES!r}}}, default=str))"
    )
    result = run(code, **variables)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("key", [None, "", "   "])
def test_production_refuses_to_start_without_a_secret_key(key):
    variables = {"DEBUG": "0"} if key is None else {"DEBUG": "0", "SECRET_KEY": key}
    result = run("import elgrande_site.settings", **variables)
    assert result.returncode != 0
    assert "ImproperlyConfigured: SECRET_KEY must be set when DEBUG=0" in result.stderr


def test_manage_py_in_production_without_a_secret_key_stops_with_the_reason():
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=environment(DEBUG="0"),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG=0" in result.stderr


def test_development_runs_on_its_own_key_with_plain_http_cookies():
    settings = settings_with()
    assert settings["DEBUG"] is True
    assert settings["SECRET_KEY"].startswith("django-insecure-")
    assert settings["SESSION_COOKIE_SECURE"] is False
    assert settings["CSRF_COOKIE_SECURE"] is False
    assert settings["SECURE_SSL_REDIRECT"] is False
    assert settings["SECURE_HSTS_SECONDS"] == 0
    assert settings["SECURE_PROXY_SSL_HEADER"] is None


def test_production_uses_the_given_key_and_secure_cookies_by_default():
    settings = settings_with(DEBUG="0", SECRET_KEY=A_KEY, SITE_URL="https://elgrande.example")
    assert settings["DEBUG"] is False
    assert settings["SECRET_KEY"] == A_KEY
    assert settings["SESSION_COOKIE_SECURE"] is True
    assert settings["CSRF_COOKIE_SECURE"] is True
    # HSTS is remembered by browsers, and a redirect needs the proxy's header: both are asked for.
    assert settings["SECURE_HSTS_SECONDS"] == 0
    assert settings["SECURE_SSL_REDIRECT"] is False
    assert settings["SECURE_PROXY_SSL_HEADER"] is None


def test_every_https_setting_is_switched_on_from_the_environment():
    settings = settings_with(**PRODUCTION)
    assert settings["SECURE_SSL_REDIRECT"] is True
    assert settings["SECURE_HSTS_SECONDS"] == 31536000
    assert settings["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert settings["SECURE_HSTS_PRELOAD"] is True
    assert settings["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert settings["SESSION_COOKIE_SECURE"] is True
    assert settings["CSRF_COOKIE_SECURE"] is True


def test_secure_cookies_can_be_switched_off_and_on_against_the_default():
    off = settings_with(DEBUG="0", SECRET_KEY=A_KEY, SITE_URL="https://elgrande.example", SESSION_COOKIE_SECURE="0",
                        CSRF_COOKIE_SECURE="false")
    assert (off["SESSION_COOKIE_SECURE"], off["CSRF_COOKIE_SECURE"]) == (False, False)
    on = settings_with(SESSION_COOKIE_SECURE="1", CSRF_COOKIE_SECURE="yes")
    assert (on["SESSION_COOKIE_SECURE"], on["CSRF_COOKIE_SECURE"]) == (True, True)


def test_check_deploy_finds_nothing_to_warn_about_with_the_production_variables():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=environment(**PRODUCTION), capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_every_celery_task_has_a_time_limit_and_the_sweeps_their_own():
    code = (
        "import django, json\ndjango.setup()\nfrom elgrande_site.celery import app\nfrom games import tasks\n"
        "print(json.dumps([app.conf.task_time_limit, tasks.send_notification.time_limit,"
        " tasks.play_computer_move.time_limit, tasks.sweep_deadlines.time_limit]))"
    )
    result = run(code, DJANGO_SETTINGS_MODULE="elgrande_site.settings", DEADLINE_SWEEP_TIME_LIMIT="45")
    assert result.returncode == 0, result.stderr
    # The mail and the computer's move take the app's limit; the sweep has its own.
    assert json.loads(result.stdout) == [300, 300, 300, 45]


def test_the_redis_layer_outwaits_its_blocking_read_and_takes_its_pool_size_from_the_environment():
    from channels_redis.core import RedisChannelLayer

    settings = settings_with(REDIS_URL="redis://redis.internal:6379/2", REDIS_MAX_CONNECTIONS="250")
    layer = settings["CHANNEL_LAYERS"]["default"]
    [host] = layer["CONFIG"]["hosts"]
    assert host["address"] == "redis://redis.internal:6379/2"
    assert host["max_connections"] == 250
    assert host["socket_timeout"] > RedisChannelLayer.brpop_timeout
    assert settings_with(REDIS_URL="redis://redis.internal:6379/2")["CHANNEL_LAYERS"]["default"]["CONFIG"][
        "hosts"][0]["max_connections"] == 100


def test_postgresql_sessions_idle_in_a_transaction_are_ended_and_the_urls_server_options_still_apply():
    settings = settings_with(DATABASE_URL="postgres://u@db.internal:5432/x")
    assert settings["DATABASES"]["default"]["OPTIONS"]["options"] == "-c idle_in_transaction_session_timeout=60000"
    settings = settings_with(DATABASE_URL="postgres://u@db.internal:5432/x?options=-c%20work_mem%3D8MB")
    assert settings["DATABASES"]["default"]["OPTIONS"]["options"] == (
        "-c idle_in_transaction_session_timeout=60000 -c work_mem=8MB"
    )


def test_the_database_pool_size_comes_from_the_environment():
    settings = settings_with(DATABASE_URL="postgres://u@db.internal:5432/x", DATABASE_POOL_SIZE="7")
    assert settings["DATABASES"]["default"]["OPTIONS"]["pool"]["max_size"] == 7


@pytest.mark.parametrize(
    "name, value, least",
    [
        # The pool keeps 2 connections open (its min_size): a smaller most failed every query.
        ("DATABASE_POOL_SIZE", "1", 2),
        ("REDIS_MAX_CONNECTIONS", "0", 1),
        ("DEADLINE_SWEEP_BATCH", "0", 1),
        ("STATISTICS_SECONDS", "-5", 1),
        ("BOT_RETRIES", "-1", 0),
    ],
)
def test_a_number_below_its_least_stops_the_site_with_the_variables_name(name, value, least):
    result = run("import elgrande_site.settings", DATABASE_URL="postgres://u@db.internal:5432/x",
                 REDIS_URL="redis://redis.internal:6379/2", **{name: value})
    assert result.returncode != 0
    assert f"ImproperlyConfigured: {name} must be at least {least}, not {value}." in result.stderr


def test_the_sites_own_proxies_are_told_from_the_environment():
    assert settings_with()["ALLAUTH_TRUSTED_PROXY_COUNT"] == 0
    assert settings_with()["ALLAUTH_TRUSTED_CLIENT_IP_HEADER"] is None
    assert settings_with(TRUSTED_PROXY_COUNT="1")["ALLAUTH_TRUSTED_PROXY_COUNT"] == 1
    assert settings_with(TRUSTED_CLIENT_IP_HEADER="X-Real-IP")["ALLAUTH_TRUSTED_CLIENT_IP_HEADER"] == "X-Real-IP"


def test_the_least_numbers_start_the_site():
    result = run(
        "import elgrande_site.settings as s; print(s.DATABASES['default']['OPTIONS']['pool']['max_size'],"
        " s.CHANNEL_LAYERS['default']['CONFIG']['hosts'][0]['max_connections'])",
        DATABASE_URL="postgres://u@db.internal:5432/x", REDIS_URL="redis://redis.internal:6379/2",
        DATABASE_POOL_SIZE="2", REDIS_MAX_CONNECTIONS="1",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["2", "1"]


@pytest.mark.parametrize("name", ["REDIS_MAX_CONNECTIONS", "DATABASE_POOL_SIZE", "SECURE_HSTS_SECONDS"])
def test_a_number_that_is_not_one_stops_the_site_with_the_variables_name(name):
    result = run("import elgrande_site.settings", DATABASE_URL="postgres://u@db.internal:5432/x",
                 REDIS_URL="redis://redis.internal:6379/2", **{name: "lots"})
    assert result.returncode != 0
    assert f"ImproperlyConfigured: {name} must be a whole number, not 'lots'." in result.stderr


def test_the_pause_of_an_answer_given_ahead_comes_from_the_environment():
    assert settings_with()["ANSWERS_AHEAD_DELAY"] == [3.0, 12.0]
    assert settings_with(ANSWERS_AHEAD_DELAY="0.5, 2")["ANSWERS_AHEAD_DELAY"] == [0.5, 2.0]
    assert settings_with(ANSWERS_AHEAD_DELAY="4,4")["ANSWERS_AHEAD_DELAY"] == [4.0, 4.0]


@pytest.mark.parametrize("value", ["lots", "5", "12,3", "-1,3", "1,2,3", "3,inf"])
def test_a_pause_of_answers_given_ahead_that_is_not_two_bounds_stops_the_site_with_the_reason(value):
    result = run("import elgrande_site.settings", ANSWERS_AHEAD_DELAY=value)
    assert result.returncode != 0
    assert (
        "ImproperlyConfigured: ANSWERS_AHEAD_DELAY must be two numbers of seconds, the least and the most, "
        f'as "3,12"; not {value!r}.' in result.stderr
    )


# ---- where players reach the site (SITE_URL) ----------------------------------------------------


def test_unset_the_sites_address_follows_the_port_it_runs_on():
    assert settings_with()["SITE_URL"] == "http://localhost:8000"
    assert settings_with(PORT="8001")["SITE_URL"] == "http://localhost:8001"
    assert settings_with(PORT="8001", SITE_URL="https://elgrande.example")["SITE_URL"] == "https://elgrande.example"


def test_the_sites_name_in_its_mails_comes_from_the_environment():
    assert settings_with()["SITE_NAME"] == "El Grande"
    assert settings_with(SITE_NAME="  ")["SITE_NAME"] == "El Grande"
    assert settings_with(SITE_NAME="Los Grandes")["SITE_NAME"] == "Los Grandes"


def test_production_refuses_to_start_without_the_sites_address():
    result = run("import elgrande_site.settings", DEBUG="0", SECRET_KEY=A_KEY, PORT="8001")
    assert result.returncode != 0
    assert "ImproperlyConfigured: SITE_URL must be set when DEBUG=0" in result.stderr
    assert settings_with(DEBUG="0", SECRET_KEY=A_KEY, SITE_URL="https://elgrande.example")["SITE_URL"] == (
        "https://elgrande.example"
    )


@pytest.mark.parametrize("value", ["elgrande.example", "ftp://elgrande.example", "https://", "http://[::1"])
def test_a_sites_address_that_is_not_one_stops_the_site_with_the_reason(value):
    result = run("import elgrande_site.settings", SITE_URL=value)
    assert result.returncode != 0
    assert "ImproperlyConfigured: SITE_URL must be an http:// or https:// address with a host" in result.stderr
    assert repr(value) in result.stderr


def test_a_port_that_is_not_a_number_stops_the_site_with_the_variables_name():
    result = run("import elgrande_site.settings", PORT="eighty")
    assert result.returncode != 0
    assert "ImproperlyConfigured: PORT must be a whole number, not 'eighty'." in result.stderr


def test_a_management_command_mails_the_links_of_the_port_the_site_runs_on():
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         "from games.models import Game; from games.mail.links import play_url; print(play_url(Game(pk=7)))"],
        cwd=ROOT, env=environment(PORT="8001"), capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "http://localhost:8001/games/7/play/"


@pytest.mark.parametrize("how, port", [("environment", "8001"), ("command line", "8002"), ("default", "8000")])
def test_make_run_hands_its_port_to_the_server(tmp_path, how, port):
    """`make run` with a stand-in for the venv's python that notes its arguments and PORT."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    python = bin_dir / "python"
    python.write_text(f'#!/bin/sh\necho "PORT=$PORT $*" >> {calls}\n')
    python.chmod(0o755)
    (tmp_path / ".installed-stamp").touch()  # newer than pyproject.toml: nothing to install
    variables = environment(PORT=port) if how == "environment" else environment()
    command = ["make", "--no-print-directory", "run", f"VENV={tmp_path}"]
    if how == "command line":
        command.append(f"PORT={port}")
    result = subprocess.run(command, cwd=ROOT, env=variables, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert calls.read_text().splitlines() == [
        f"PORT={port} manage.py migrate --noinput",
        f"PORT={port} manage.py runserver 127.0.0.1:{port}",
    ]
