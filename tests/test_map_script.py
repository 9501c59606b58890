"""The map's script (static/decision.js and its modules in static/map/): its composition model's own
tests, run by Node's test runner, and the modules as production serves them (DEBUG=0, the
manifest storage), each import resolved to a hashed file that exists."""

import json
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMPORT = re.compile(r"""^import\s[^"']*["']([^"']+)["'];""", re.M)


def test_the_composition_models_node_tests_pass():
    node = shutil.which("node")
    assert node, "Node.js runs the map script's tests (tests/js/): install it"
    result = subprocess.run([node, "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert re.search(r"^# pass [1-9]", result.stdout, re.M), result.stdout[-2000:]
    assert re.search(r"^# fail 0$", result.stdout, re.M)


def imports(path):
    return IMPORT.findall(path.read_text())


def test_collected_modules_import_one_another_by_their_hashed_names(collected_static):
    manifest = json.loads((collected_static / "staticfiles.json").read_text())["paths"]
    seen, todo = set(), [manifest["decision.js"]]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        found = imports(collected_static / name)
        for target in found:
            assert target.startswith("./"), (name, target)
            resolved = str(Path(name).parent / target[2:])
            assert resolved in manifest.values(), f"{name} imports {target}, which is no hashed name"
            todo.append(resolved)
    assert {Path(name).name.split(".")[0] for name in seen} >= {"decision", "compose", "model", "form", "draw"}
