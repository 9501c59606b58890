import os

from celery import Celery
from celery.signals import worker_init, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "elgrande_site.settings")

app = Celery("elgrande_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def plain_database_connections(**kwargs):
    """A worker process runs one task at a time, so it has no use for the connection pool the web
    processes share between their threads, and the pool would stall the deadline sweep after a
    database outage: it reconnects with a doubling back-off (minutes, after a long outage), where
    a plain connection is opened again by the very next sweep."""
    from django.conf import settings

    settings.DATABASES["default"].get("OPTIONS", {}).pop("pool", None)


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
