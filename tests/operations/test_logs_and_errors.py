"""The logs an operator reads and the errors sent to Sentry (docs/operations.md)."""

import json
import logging
import os
import warnings
from pathlib import Path

import pytest
import sentry_sdk
from django.test import Client
from django.urls import reverse

from games import deadlines
from tests.support.helpers import logged_in, user_at
from tests.support.sentry import sentry_capturing
from tests.support.settings_process import python

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_each_request_is_one_line_at_info_with_its_latency_and_view(client, caplog):
    with caplog.at_level(logging.INFO, logger="elgrande.requests"):
        client.get(reverse("rules"))
        client.get("/no/such/page/")
    lines = [record for record in caplog.records if record.name == "elgrande.requests"]
    assert [(record.method, record.path, record.status, record.view) for record in lines] == [
        ("GET", "/rules/", 200, "rules"), ("GET", "/no/such/page/", 404, "unrouted")
    ]
    assert all(record.ms >= 0 and "ms" in record.getMessage() for record in lines)


def test_a_sweep_is_logged_when_it_finds_something_overdue_else_once_a_minute(start_game, caplog, monkeypatch):
    from django.utils import timezone

    from games.models import Game

    clock = [1000.0]
    monkeypatch.setattr(deadlines.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(deadlines, "_last_logged", [float("-inf")])

    def sweeps_logged():
        return len([record for record in caplog.records if record.getMessage().startswith("deadline sweep:")])

    with caplog.at_level(logging.INFO, logger="games.deadlines"):
        deadlines.sweep()
        assert sweeps_logged() == 1
        clock[0] += 5
        deadlines.sweep()
        clock[0] += 50
        deadlines.sweep()
        assert sweeps_logged() == 1
        game = start_game(3)
        Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timezone.timedelta(seconds=1))
        clock[0] += 1
        deadlines.sweep()
        assert sweeps_logged() == 2
        assert "1 overdue, 1 moved on here" in caplog.records[-1].getMessage()
        clock[0] += 61
        deadlines.sweep()
        assert sweeps_logged() == 3


def run(code, **variables):
    names = ("LOG_FORMAT", "LOG_LEVEL", "BEAT_SCHEDULE_FILE", "DEBUG")
    env = {key: value for key, value in os.environ.items() if key not in names}
    return python(code, {**env, "PYTHONPATH": str(ROOT), **variables})


def test_log_format_json_writes_one_json_object_per_record():
    code = "import django, logging\ndjango.setup()\nlogging.getLogger('games.deadlines').warning('a line %s', 7)"
    result = run(code, DJANGO_SETTINGS_MODULE="elgrande_site.settings", LOG_FORMAT="json")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stderr.strip().splitlines()[-1])
    assert record["message"] == "a line 7"
    assert record["level"] == "WARNING" and record["logger"] == "games.deadlines" and record["time"]


def test_an_unknown_log_format_is_refused():
    result = run("from elgrande_site import settings", LOG_FORMAT="xml")
    assert result.returncode != 0
    assert "LOG_FORMAT must be text or json, not 'xml'" in result.stderr


def test_celery_s_lines_for_each_routine_sweep_are_left_out_and_the_others_kept(settings):
    from elgrande_site.logs import WithoutRoutineSweeps

    def shown(name, message, level=logging.INFO):
        return WithoutRoutineSweeps().filter(logging.LogRecord(name, level, __file__, 1, message, (), None))

    assert not shown("celery.beat", "Scheduler: Sending due task sweep-deadlines (games.tasks.sweep_deadlines)")
    assert not shown("celery.worker.strategy", "Task games.tasks.sweep_deadlines[5f1c] received")
    assert not shown("celery.app.trace", "Task games.tasks.sweep_deadlines[5f1c] succeeded in 0.01s: 0")
    assert shown("celery.app.trace", "Task games.tasks.expire_deadlines[77aa] succeeded in 0.2s: 1")
    assert shown("celery.beat", "beat: Starting...")
    assert shown("celery.app.trace", "Task games.tasks.sweep_deadlines[5f1c] raised", logging.ERROR)
    assert shown("games.deadlines", "deadline sweep: 1 overdue")
    assert settings.LOGGING["handlers"]["console"]["filters"] == ["without_routine_sweeps"]
    assert settings.CELERY_WORKER_HIJACK_ROOT_LOGGER is False


def test_beat_s_schedule_file_lies_outside_the_code_and_can_be_placed():
    code = "from elgrande_site import settings; print(settings.CELERY_BEAT_SCHEDULE_FILENAME)"
    default = Path(run(code).stdout.strip())
    assert ROOT not in default.parents
    assert run(code, BEAT_SCHEDULE_FILE="/var/lib/elgrande/beat").stdout.strip() == "/var/lib/elgrande/beat"


@pytest.fixture
def sentry():
    with sentry_capturing() as transport:
        yield transport


async def served(path, query, headers):
    """One GET through the site's ASGI application, as Uvicorn hands it a request."""
    from asgiref.testing import ApplicationCommunicator

    from elgrande_site.asgi import application

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": query.encode(), "root_path": "",
        "headers": [(b"host", b"testserver"), *headers], "client": ("127.0.0.1", 5000), "server": ("testserver", 80),
    }
    communicator = ApplicationCommunicator(application, scope)
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await communicator.receive_output(timeout=30)
    await communicator.receive_output(timeout=30)
    return start["status"]


@pytest.mark.django_db(transaction=True)
async def test_an_error_reaches_sentry_without_the_request_s_query_cookies_user_or_local_variables(
    sentry, start_game, monkeypatch
):
    from channels.db import database_sync_to_async

    from games.web import views

    game = await database_sync_to_async(start_game)(3)
    player = await database_sync_to_async(user_at)(game, 0)
    session = (await database_sync_to_async(logged_in)(player)).cookies["sessionid"].value
    # Made at run time: the event carries the source lines around the error, where literals show.
    hand = "-".join([player.username, "holds", "13", "12", "11"])
    query, address, csrf = "=".join(["q", "private"]), ".".join("1234"), "-".join(["a", "csrf", "token"])

    def broken(*args, **kwargs):
        secret_hand = hand  # noqa: F841 -- a local variable Sentry must not send
        raise RuntimeError("a fault of the site's own")

    monkeypatch.setattr(views, "render", broken)
    headers = [(b"cookie", f"sessionid={session}".encode()), (b"x-forwarded-for", address.encode()),
               (b"x-csrftoken", csrf.encode())]
    assert await served(reverse("lobby"), query, headers) == 500
    sentry_sdk.flush()
    assert sentry.events, "the error was not reported"
    sent = json.dumps(sentry.events)
    assert "a fault of the site's own" in sent
    assert "/" in json.dumps(sentry.events[-1].get("request", {}).get("url", ""))
    for private in (hand, session, address, query, csrf, player.email, player.username):
        assert private not in sent, private
    assert "user" not in sentry.events[-1]


def test_sentry_starts_without_a_deprecated_option_and_sends_no_personal_data():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        with sentry_capturing():
            assert sentry_sdk.get_client().should_send_default_pii() is False


def test_without_sentry_dsn_nothing_is_started():
    result = run("from elgrande_site import settings\nimport sentry_sdk\nprint(sentry_sdk.is_initialized())")
    assert result.stdout.strip() == "False", result.stderr
    Client()  # the site runs all the same
