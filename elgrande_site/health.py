"""Health checks for a load balancer or a supervisor (docs/operations.md): cheap, never cached,
saying nothing private.

- /healthz: the process answers.
- /readyz: the database answers and has every migration applied, Redis answers when the site uses
  it, and a deadline sweep ended within READY_SWEEP_SECONDS. 200 with each check's result when
  all pass, else 503 naming the ones that failed."""

import time

from django.conf import settings
from django.db import DatabaseError, connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

from .metrics import last_sweep

_migrated = False


@never_cache
def healthz(request):
    return JsonResponse({"status": "ok"})


@never_cache
def readyz(request):
    checks = {"database": _database(), "migrations": _migrations(), "sweep": _sweep()}
    if settings.REDIS_URL:
        checks["redis"] = _redis()
    ready = all(result == "ok" for result in checks.values())
    return JsonResponse({"status": "ok" if ready else "unavailable", "checks": checks}, status=200 if ready else 503)


def _database():
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return "ok"
    except DatabaseError:
        return "unreachable"


def _migrations():
    """Once every migration is found applied, this process does not look again: an upgrade that
    adds migrations restarts the processes (docs/operations.md)."""
    global _migrated
    if _migrated:
        return "ok"
    from django.db.migrations.executor import MigrationExecutor

    try:
        executor = MigrationExecutor(connection)
        _migrated = not executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError:
        return "unknown"
    return "ok" if _migrated else "pending"


def _redis():
    import redis

    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2)
        try:
            client.ping()
        finally:
            client.close()
        return "ok"
    except redis.RedisError:
        return "unreachable"


def _sweep():
    sweep = last_sweep()
    if sweep is None:
        return "none yet"
    return "ok" if time.time() - sweep["at"] <= settings.READY_SWEEP_SECONDS else "late"
