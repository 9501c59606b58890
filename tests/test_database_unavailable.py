"""A request the database could not serve is answered with the 503 page (elgrande_site.middleware
.DatabaseUnavailable), wherever it failed; and on PostgreSQL a request's wait on a connection that
went silent is cut (elgrande_site.database). The whole web process against a real fault is in
tests/test_database_faults.py."""

import threading

import pytest
from django.db import OperationalError, connection
from django.test import Client

from accounts.middleware import UserTimeZoneMiddleware
from games.reading import selectors

pytestmark = pytest.mark.django_db


def database_gone(*args, **kwargs):
    raise OperationalError("connection failed: Connection refused")


def assert_unavailable(response):
    assert response.status_code == 503
    assert response["Retry-After"] == "10"
    assert response["X-Content-Type-Options"] == "nosniff"  # the site's headers, as on any page
    assert "The site cannot reach its database just now" in response.content.decode()


@pytest.mark.parametrize("debug", [True, False])
def test_a_view_whose_database_fails_answers_503(debug, settings, monkeypatch):
    settings.DEBUG = debug
    monkeypatch.setattr(selectors, "open_games", database_gone)
    assert_unavailable(Client(raise_request_exception=False).get("/"))


@pytest.mark.parametrize("debug", [True, False])
def test_a_middleware_whose_database_fails_answers_503(debug, settings, monkeypatch):
    # The signed-in player's settings are read before any view: Django makes that failure a 500
    # before the middleware sees the response.
    settings.DEBUG = debug
    monkeypatch.setattr(UserTimeZoneMiddleware, "__call__", database_gone)
    assert_unavailable(Client(raise_request_exception=False).get("/"))


def test_any_other_failure_is_still_a_server_error(settings, monkeypatch):
    settings.DEBUG = False

    def broken(*args, **kwargs):
        raise ValueError("a bug")

    monkeypatch.setattr(selectors, "open_games", broken)
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 500
    assert "Server error" in response.content.decode()


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="a connection to cut needs a PostgreSQL DATABASE_URL")
def test_a_requests_wait_on_a_silent_connection_is_cut_and_the_pools_check_sooner(request):
    from psycopg_pool import ConnectionPool

    from elgrande_site import database
    from tests.support.processes import Proxy

    settings = connection.settings_dict
    relay = Proxy((settings["HOST"] or "127.0.0.1", int(settings["PORT"] or 5432)))
    relay.up()
    request.addfinalizer(relay.down)
    params = {**connection.get_connection_params(), "host": "127.0.0.1", "port": relay.port}
    params.pop("cursor_factory", None)
    checked, executed = database.BoundedConnection.connect(**params), database.BoundedConnection.connect(**params)
    checked.autocommit = True
    outcomes = {}

    def wait(name, work):
        with database.bounded(3, 1):
            try:
                work()
            except Exception as error:
                outcomes[name] = str(error)

    relay.silent()
    threads = [
        threading.Thread(target=wait, args=("check", lambda: ConnectionPool.check_connection(checked)), daemon=True),
        threading.Thread(target=wait, args=("statement", lambda: executed.execute("SELECT 1")), daemon=True),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert outcomes == {
        "check": "no answer from the database within 1 s: the connection was cut",
        "statement": "no answer from the database within 3 s: the connection was cut",
    }
    assert checked.closed and executed.closed
