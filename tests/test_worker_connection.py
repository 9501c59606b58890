"""A Celery worker process's database connection (elgrande_site/celery.py): plain, not pooled."""

import copy
from types import SimpleNamespace

import pytest
from django.db import connection

from elgrande_site import celery

pytestmark = pytest.mark.django_db


def test_a_worker_process_uses_a_plain_connection_not_the_pool(monkeypatch):
    database = copy.deepcopy(connection.settings_dict)
    database.setdefault("OPTIONS", {})["pool"] = {"min_size": 2}
    database["CONN_MAX_AGE"] = 0
    # The settings as the worker's main process has them when it starts (worker_init).
    monkeypatch.setattr("django.conf.settings", SimpleNamespace(DATABASES={"default": database}))
    celery.plain_database_connections()
    assert "pool" not in database["OPTIONS"]
