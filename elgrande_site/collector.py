"""Python's cycle collector tuned for the long-lived processes: the web processes (asgi.py) and
the Celery worker's (celery.py).

A full collection walks every object the process tracks, and a web process holds over a hundred
thousand from its start-up alone (Django, the templates, the engine: 137,000 in bench/archive.py)
that will never be garbage. Issue 22 measured such collections pausing archive requests for about
75 ms, 3 requests in 40 (with the collector off, the archive's p95 fell from 98 to 25 ms). So, once
started:

- `gc.freeze()` moves everything alive then into a generation the collector never looks at again;
- the youngest generation is collected after 20,000 new container objects instead of 700 (a page
  makes tens of thousands, most freed by reference counting as it ends).

Cycles are still collected. `GC_TUNING=0` leaves the collector as Python sets it, to measure the
difference (bench/archive.py; the figures in bench/README.md)."""

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
