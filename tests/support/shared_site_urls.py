"""The site's URLs plus `RESET`, `SESSION` and `RUN`, for the live site the browser modules of one test process share
(tests/support/shared_site.py names this URLconf; never the site's own settings). Between two
modules the tests post to it, and the server puts itself back as a server just started on a copy of
the migrated database would be: what the previous module left must not show in the next."""

import io
import os
import queue
import sqlite3
import sys
import threading
import traceback
from contextlib import closing

from django.conf import settings
from django.contrib.auth import get_user_model, login
from django.core.cache import caches
from django.db import connections
from django.http import HttpResponse, HttpResponseNotAllowed
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

# allauth looks for the page of a request over a rate limit in the root URLconf.
from elgrande_site.urls import handler429  # noqa: F401
from elgrande_site.urls import urlpatterns as site_urlpatterns
from games.infra import work
from tests.support.browser import RESET, RUN, SESSION


@csrf_exempt
def reset(request):
    """Drop the jobs the embedded workers have not begun (a stopped server lost them too), put the
    migrated database (SITE_TEMPLATE_DATABASE) back in place of the site's, and empty every cache
    of this process (sessions, pages, log lines, presence, rate limits). The ids of the rows the
    next module makes go on from the previous module's instead of starting again at 1, so that
    nothing held by id elsewhere in this process (a job already under way, a socket's group, the
    spectators' hub) can be taken for the next module's game or player."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    for worker in list(work._embedded.values()):
        while True:
            try:
                worker._queue.get_nowait()
            except queue.Empty:
                break
    connections.close_all()
    with closing(sqlite3.connect(settings.DATABASES["default"]["NAME"], timeout=30)) as database:
        reached = database.execute("SELECT name, seq FROM sqlite_sequence").fetchall()
        with closing(sqlite3.connect(os.environ["SITE_TEMPLATE_DATABASE"])) as template:
            template.backup(database)
        # sqlite_sequence keeps each AUTOINCREMENT table's largest id (Django's sqlite3 backend
        # declares every AutoField so); it has no unique name, hence the update before an insert.
        for name, seq in reached:
            raised = database.execute("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", (seq, name))
            if not raised.rowcount:
                database.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (name, seq))
        database.commit()
    for alias in settings.CACHES:
        caches[alias].clear()
    return HttpResponse(status=204)


@csrf_exempt
def session(request):
    """Log the player named in the posted `username` in, as the log-in form would once the password
    is checked, and answer the new session's key: a test that is not about logging in sets it as the
    browser's cookie instead of filling the form (two pages and a password hash fewer)."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    user = get_user_model().objects.get(username=request.POST["username"])
    login(request, user, backend=settings.AUTHENTICATION_BACKENDS[0])
    return HttpResponse(request.session.session_key, content_type="text/plain")


class _ThreadsOutput:
    """The process's standard output, but what a thread running `run`'s code prints goes to that
    code's buffer: the server's other threads (an embedded worker's console mail) print to the
    real one meanwhile, and must not end up in the code's answer."""

    def __init__(self, real):
        self.real, self.buffers = real, {}

    def write(self, text):
        return self.buffers.get(threading.get_ident(), self.real).write(text)

    def __getattr__(self, name):
        return getattr(self.real, name)


@csrf_exempt
def run(request):
    """Run the posted `code` in this server, as `manage.py shell -c` would run it against the same
    database, and answer what it printed (500 and the traceback if it failed): how
    tests.support.browser.seeded fills this site, without starting Django in a new process (about
    2.7 s of processor each on this machine) for each seed."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    if not isinstance(sys.stdout, _ThreadsOutput):
        sys.stdout = _ThreadsOutput(sys.stdout)
    printed = sys.stdout.buffers[threading.get_ident()] = io.StringIO()
    try:
        exec(request.POST["code"], {})
    except Exception:
        return HttpResponse(printed.getvalue() + traceback.format_exc(), status=500, content_type="text/plain")
    finally:
        del sys.stdout.buffers[threading.get_ident()]
    return HttpResponse(printed.getvalue(), content_type="text/plain")


urlpatterns = [path(RESET, reset), path(SESSION, session), path(RUN, run), *site_urlpatterns]
