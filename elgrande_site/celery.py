import os

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_init, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "elgrande_site.settings")

app = Celery("elgrande_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


# How long a worker process keeps its database connection from one task to the next (Django's
# CONN_MAX_AGE, in the worker only).
WORKER_CONNECTION_SECONDS = 600


@worker_init.connect
def plain_database_connections(**kwargs):
    """A worker process runs one task at a time, so it has no use for the connection pool the web
    processes share between their threads, and the pool would stall the deadline sweep after a
    database outage: it reconnects with a doubling back-off (minutes, after a long outage), where
    a plain connection is opened again by the very next sweep.

    That connection is kept from task to task for WORKER_CONNECTION_SECONDS, as Django keeps a
    web process's between requests: Celery's Django fixup leaves it open (CELERY_DB_REUSE_MAX in
    the settings), and `check_connections` checks it around each task. Closed after every task,
    each of a sweep's batch tasks opened a new one, a new PostgreSQL backend with its caches cold
    (bench/README.md, "The worker's kept connection")."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    database.get("OPTIONS", {}).pop("pool", None)
    database["CONN_MAX_AGE"] = WORKER_CONNECTION_SECONDS
    database["CONN_HEALTH_CHECKS"] = True


@task_prerun.connect
@task_postrun.connect
def check_connections(sender=None, **kwargs):
    """Before and after each task a worker process runs, what Django does before and after each
    request: a connection older than its CONN_MAX_AGE, or left unusable by an error, is closed,
    and one kept is checked (a round trip) before the task's first statement, so that a
    connection the database dropped meanwhile is replaced rather than failing the task. A task
    run eagerly, inside a caller's, leaves the caller's connection be."""
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


@task_prerun.connect
def check_the_kept_connection(sender=None, **kwargs):
    """The check of a kept connection (`check_connections`) made now, before the task, and given up
    after DATABASE_CHECK_LIMIT seconds (the connection is then closed, and the task opens a new
    one), as the web process's pool gives up its own check (elgrande_site/database.py). Made by
    the task's first statement instead, it had no bound but the task's time limit: a connection
    silenced for good between two tasks (a firewall or a relay that lost it; TCP notices nothing
    while the path still acknowledges) held the next task until then, five minutes for a mail or
    a computer's move, and every sweep queued behind it on that process
    (tests/test_worker_connection.py)."""
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return
    from django.conf import settings
    from django.db import connection

    from elgrande_site import database

    if connection.vendor != "postgresql" or connection.connection is None:
        return
    with database.watched(connection.connection.pgconn.socket, settings.DATABASE_CHECK_LIMIT):
        connection.close_if_health_check_failed()


@worker_init.connect
def load_the_sweep(**kwargs):
    """Import the deadline sweep, and the engine with it, before the worker starts its processes:
    they inherit it, and none pays for it in its first sweep."""
    import games.deadlines  # noqa: F401


@worker_process_init.connect
def tune_the_collector(**kwargs):
    """Each worker process, once started, leaves what it inherited to the collector's frozen
    generation (elgrande_site/collector.py)."""
    from elgrande_site import collector

    collector.tune()
