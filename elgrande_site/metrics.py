"""What an operator can watch (docs/operations.md): Prometheus metrics, served at /metrics to a
scraper holding METRICS_TOKEN or coming from METRICS_ALLOWED_IPS.

Counters and histograms are kept by the process that counts them. With several processes on one
machine (Gunicorn's workers, the Celery worker's), PROMETHEUS_MULTIPROC_DIR names a folder they
all write to, and /metrics adds them up (prometheus-client's multiprocess mode). Figures read from
the database or the cache (games overdue, the mail outbox, the last sweep) are read when scraped,
so they are whole whichever process answers."""

import hmac
import ipaddress
import os
import time

from django.conf import settings
from django.http import HttpResponse, HttpResponseForbidden
from django.views.decorators.cache import never_cache
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily

REQUEST_SECONDS = Histogram(
    "elgrande_request_seconds", "Time to answer an HTTP request, by view and method.", ["view", "method"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15),
)
MOVES = Counter("elgrande_moves", "Moves posted by players, by outcome (accepted or refused).", ["outcome"])
SWEEP_SECONDS = Histogram(
    "elgrande_sweep_seconds", "Duration of one deadline sweep.",
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60),
)
SWEEP_GAMES = Counter("elgrande_sweep_games", "Overdue games moved on by the deadline sweep.")
COMPUTER_MOVES = Counter("elgrande_computer_moves", "Moves made by computer players.")
SOCKETS = Gauge("elgrande_websockets", "Open WebSocket connections.", multiprocess_mode="livesum")

# The cache key under which the last sweep leaves when it ended and what it took (read by
# /readyz and /metrics in whichever process answers).
LAST_SWEEP = "elgrande:last-sweep"


def sweep_done(seconds, moved):
    SWEEP_SECONDS.observe(seconds)
    SWEEP_GAMES.inc(moved)
    from django.core.cache import cache

    try:
        cache.set(LAST_SWEEP, {"at": time.time(), "seconds": seconds, "moved": moved}, timeout=None)
    except Exception:  # noqa: BLE001 -- a cache away (Redis down) must not fail the sweep
        pass


def last_sweep():
    from django.core.cache import cache

    try:
        return cache.get(LAST_SWEEP)
    except Exception:  # noqa: BLE001 -- Redis down: no sweep is known
        return None


class ReadAtScrape:
    """The figures read from the database and the cache when scraped."""

    def describe(self):
        return []  # so that registering it reads nothing

    def collect(self):
        from django.db.models import Count
        from django.utils import timezone

        from games.models import Game, Notification

        overdue = GaugeMetricFamily("elgrande_games_overdue", "Running games whose deadline has passed.")
        overdue.add_metric([], Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=timezone.now()).count())
        yield overdue
        running = GaugeMetricFamily("elgrande_games_running", "Games being played.")
        running.add_metric([], Game.objects.filter(status=Game.Status.ACTIVE).count())
        yield running
        # Mails by status: pending and failed (to be retried) are the backlog; sent and given up.
        outbox = GaugeMetricFamily("elgrande_mail_outbox", "Mails in the outbox, by status.", labels=["status"])
        counts = dict(Notification.objects.values_list("status").annotate(count=Count("pk")).order_by("status"))
        for status in Notification.Status.values:
            outbox.add_metric([status], counts.get(status, 0))
        yield outbox
        sweep = last_sweep()
        age = GaugeMetricFamily("elgrande_last_sweep_age_seconds", "Seconds since the last deadline sweep ended.")
        duration = GaugeMetricFamily("elgrande_last_sweep_seconds", "Duration of the last deadline sweep.")
        if sweep:
            age.add_metric([], max(0.0, time.time() - sweep["at"]))
            duration.add_metric([], sweep["seconds"])
        yield age
        yield duration


def exposition():
    scraped = CollectorRegistry()
    scraped.register(ReadAtScrape())
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.MultiProcessCollector(scraped)
        return generate_latest(scraped)
    return generate_latest(REGISTRY) + generate_latest(scraped)


def allowed(request):
    token = settings.METRICS_TOKEN
    given = request.headers.get("Authorization", "")
    if token and hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return True
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    # Behind the site's own proxy every request comes from its address: only a token opens it then.
    return not request.headers.get("X-Forwarded-For") and any(
        address in ipaddress.ip_network(network) for network in settings.METRICS_ALLOWED_IPS
    )


@never_cache
def metrics_view(request):
    if not allowed(request):
        return HttpResponseForbidden("Metrics need their token.\n", content_type="text/plain")
    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
