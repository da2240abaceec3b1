"""Type checks hold: pyright on the firmware (MicroPython stubs) and on the host finds no error
beyond the committed baseline, each of whose entries says why it is accepted."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BASELINE = REPO / "tools" / "pyright-baseline.json"


def test_every_baseline_entry_has_its_reason() -> None:
    baseline = json.loads(BASELINE.read_text())
    assert set(baseline) == {"firmware", "host"}
    for project, entries in baseline.items():
        for k, e in entries.items():
            assert e["count"] > 0 and len(e["reason"]) > 20 and "REASON NEEDED" not in e["reason"], (project, k)


def test_pyright_finds_nothing_beyond_the_baseline() -> None:
    if not (REPO / "node_modules" / ".bin" / "pyright").exists():
        pytest.skip("pyright is not installed: `make setup` runs npm ci (node, npm)")
    r = subprocess.run([sys.executable, str(REPO / "tools" / "typecheck.py")], cwd=REPO,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 beyond the baseline" in r.stdout


def test_a_new_error_fails(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "tools"))
    import typecheck

    diag = {"file": "host/x.py", "rule": "reportArgumentType", "message": "Argument of type \"str\"",
            "range": {"start": {"line": 4}}}
    base = {"host": {"host/x.py reportArgumentType": {"count": 1, "reason": "r"}}}
    assert typecheck.check(base, {"host": [diag]}) == ([], [])
    new, _ = typecheck.check(base, {"host": [diag, dict(diag, range={"start": {"line": 9}})]})
    assert new and new[0].startswith("host/x.py:5: Argument of type \"str\" (reportArgumentType; the baseline accepts 1")
    _, fewer = typecheck.check(base, {"host": []})
    assert fewer == ["host: host/x.py reportArgumentType: 0 errors, the baseline accepts 1: run tools/typecheck.py --update"]
