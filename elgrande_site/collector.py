"""Python's cycle collector tuned for the long-lived processes: the web processes (asgi.py) and
the Celery worker's (celery.py).

A full collection walks every object the process tracks, and a web process holds some hundreds of
thousands from its start-up alone (Django, the templates, the engine) that will never be garbage:
such a collection paused a request for about 75 ms, 3 requests in 40 of the archive (the issue of
issue 22; with the collector off the archive's p95 fell from 98 to 25 ms). So, once started:

- `gc.freeze()` moves everything alive then into a generation the collector never looks at again;
- the youngest generation is collected after 20,000 new container objects instead of 700: a page
  makes tens of thousands, mostly freed by reference counting as it ends, so the collector runs a
  few times a request instead of some tens.

Cycles are still collected. `GC_TUNING=0` leaves the collector as Python sets it, to measure the
difference (bench/web.py, bench/README.md)."""

import gc
import os

YOUNGEST = 20_000


def tune():
    if os.environ.get("GC_TUNING", "1") == "0":
        return
    gc.collect()
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNGEST, middle, oldest)
