"""Gunicorn's settings for the site's web processes: `gunicorn -c deploy/gunicorn.conf.py
elgrande_site.asgi:application`. Each worker is a Uvicorn event loop serving HTTP and WebSockets;
Gunicorn's master starts WEB_CONCURRENCY of them on one address and starts a new one at once when
one dies (docs/operations.md)."""

import os

bind = os.environ.get("WEB_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "uvicorn_worker.UvicornWorker"
# A worker whose loop has not answered the master for this long is killed and replaced.
timeout = 60
# On SIGTERM (systemd's stop, a restart to upgrade) requests in flight have this long to finish.
graceful_timeout = 20
# The site logs one line per request itself (elgrande_site.middleware.LogRequests).
accesslog = None
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "warning").lower()
# Behind the site's own proxy on this machine: X-Forwarded-For and -Proto from it are believed.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")


def child_exit(server, worker):
    """A worker that died no longer counts in the open sockets' gauge (elgrande_site/metrics.py)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
