"""The systemd units of deploy/ are ones systemd accepts, pointing at commands that exist once the
site is installed where docs/operations.md puts it."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNITS = sorted((ROOT / "deploy" / "systemd").glob("*.service"))


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="needs systemd-analyze (Debian's systemd)")
@pytest.mark.parametrize("unit", UNITS, ids=lambda path: path.name)
def test_systemd_accepts_the_unit(unit, tmp_path):
    # As installed: /srv/elgrande is this checkout, its .venv this test's Python's.
    venv = Path(sys.executable).parent.parent
    text = unit.read_text().replace("/srv/elgrande/.venv", str(venv)).replace("/srv/elgrande", str(ROOT))
    (tmp_path / unit.name).write_text(text)
    result = subprocess.run(["systemd-analyze", "verify", str(tmp_path / unit.name)], capture_output=True, text=True)
    # The user the units run as, and the services they follow, belong to the machine, not the repository.
    complaints = [line for line in result.stderr.splitlines() if line.strip() and "elgrande" in line.split(":")[0]]
    assert result.returncode == 0 or not complaints, result.stderr
    assert not complaints, complaints


def test_every_process_of_make_serve_has_its_own_unit():
    names = {unit.name for unit in UNITS}
    assert names == {"elgrande.service", "elgrande-web.service", "elgrande-worker.service", "elgrande-beat.service"}
    supervised = (ROOT / "deploy" / "supervisord.conf").read_text()
    for program in ("web", "worker", "beat"):
        assert f"[program:{program}]" in supervised
