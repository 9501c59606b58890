"""The cycle collector as the web and worker processes tune it once started
(elgrande_site/collector.py), each case in a fresh interpreter."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import gc, json, weakref
before = gc.get_threshold()
from elgrande_site import collector
collector.tune()
class Node: pass
a, b = Node(), Node()
a.other, b.other = b, a
alive = weakref.ref(a)
del a, b
gc.collect()
print(json.dumps({"before": before, "after": gc.get_threshold(), "frozen": gc.get_freeze_count(),
                  "cycle_collected": alive() is None}))
"""


def probe(**env):
    import os

    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


def test_the_start_up_objects_are_frozen_and_cycles_still_collected():
    seen = probe(GC_TUNING="1")
    assert seen["frozen"] > 0
    assert seen["after"][0] == 20_000 and seen["after"][1:] == seen["before"][1:]
    assert seen["cycle_collected"]


def test_gc_tuning_0_leaves_the_collector_as_python_sets_it():
    seen = probe(GC_TUNING="0")
    assert seen["frozen"] == 0 and seen["after"] == seen["before"] and seen["cycle_collected"]
