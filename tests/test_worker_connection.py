"""A Celery worker process's database connection (elgrande_site/celery.py): plain, not pooled, and
kept from one task to the next rather than opened anew for each of a sweep's batches."""

import copy
from types import SimpleNamespace

import pytest
from django.db import connection, connections

from elgrande_site import celery

pytestmark = pytest.mark.django_db


def test_a_worker_process_keeps_one_plain_connection_from_task_to_task(monkeypatch):
    database = copy.deepcopy(connection.settings_dict)
    database.setdefault("OPTIONS", {})["pool"] = {"min_size": 2}
    database["CONN_MAX_AGE"] = 0
    # The settings as the worker's main process has them when it starts (worker_init).
    monkeypatch.setattr("django.conf.settings", SimpleNamespace(DATABASES={"default": database}))
    celery.plain_database_connections()
    assert "pool" not in database["OPTIONS"]
    assert database["CONN_MAX_AGE"] == celery.WORKER_CONNECTION_SECONDS > 0
    assert database["CONN_HEALTH_CHECKS"] is True

    # What Celery's Django fixup does before and after each task: the connection stays while
    # it is usable and younger than its age, and goes after an error that left it unusable.
    worker = type(connections[connection.alias])(
        {**connection.settings_dict, "CONN_MAX_AGE": database["CONN_MAX_AGE"], "CONN_HEALTH_CHECKS": True},
        alias=connection.alias,
    )
    try:
        with worker.cursor() as cursor:
            cursor.execute("SELECT 1")
        kept = worker.connection
        worker.close_if_unusable_or_obsolete()
        assert worker.connection is kept
        monkeypatch.setattr(worker, "is_usable", lambda: False)
        worker.errors_occurred = True
        worker.close_if_unusable_or_obsolete()
        assert worker.connection is None
    finally:
        worker.close()
