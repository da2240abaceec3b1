"""The README stays true: every command line in its ```sh blocks runs and exits 0, unless the
HTML comment just before the block gives it a reason not to (`skip `PREFIX`: reason`, e.g. it
needs a board on USB), says it serves until stopped (`until `PREFIX`: TEXT`: it must print
TEXT, then end cleanly on SIGTERM) or that it reports a finding (`exits `PREFIX`: N reason`:
its documented exit status N). The lines run in a scratch folder holding links to the
checkout's tests/, tools/, build/, firmware/ and hardware/, with the venv's cardtable on PATH."""
from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("termios")  # the lines are POSIX shell

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
LINKED = ("tests", "tools", "build", "firmware", "hardware")
TEAMS_CSV = "team,player1,player2\n" + "".join("Team %d,Player %dA,Player %dB\n" % (i, i, i) for i in range(1, 7))
SIGTERM_STATUS = 143  # cardtable's exit status when stopped by SIGTERM


@dataclass(frozen=True)
class Line:
    """A command line of the README, and what the test does with it."""

    text: str
    skip: str | None = None  # why it is not run
    until: str | None = None  # it serves: the text it prints once it does
    status: int = 0  # its exit status


def _directives(comment: str) -> list[tuple[str, str, str]]:
    return [(m.group(1), m.group(2), m.group(3).strip())
            for m in re.finditer(r"^(skip|until|exits) `([^`]+)`: (.+)$", comment, re.M)]


def readme_lines(text: str) -> list[Line]:
    """Every command line of the ```sh blocks, joined across backslashes, comments dropped."""
    out: list[Line] = []
    for m in re.finditer(r"(?:<!--(.*?)-->\s*\n)?```sh\n(.*?)```", text, re.S):
        directives = _directives(m.group(1) or "")
        joined = re.sub(r"\\\n\s*", " ", m.group(2))
        for raw in joined.splitlines():
            words = shlex.split(raw, comments=True)
            if not words:
                continue
            cmd = raw.split("  #")[0].strip() if "$(" in raw else shlex.join(words)
            hits = [d for d in directives if cmd == d[1] or cmd.startswith(d[1] + " ")]
            if not hits:
                out.append(Line(cmd))
                continue
            kind, _, what = max(hits, key=lambda d: len(d[1]))
            if kind == "exits":
                out.append(Line(cmd, status=int(what.split()[0])))
            else:
                out.append(Line(cmd, skip=what) if kind == "skip" else Line(cmd, until=what))
    return out


LINES = readme_lines(README.read_text(encoding="utf-8"))


def test_the_readme_has_lines_to_run() -> None:
    run = [ln.text for ln in LINES if ln.skip is None]
    assert "cardtable demo fortyfives --seed 7" in run
    assert "cardtable tournament standings club" in run
    assert any(ln.until == "table page:" for ln in LINES)
    # each directive names a line that is there
    text = README.read_text(encoding="utf-8")
    for comment in re.findall(r"<!--(.*?)-->\s*\n```sh", text, re.S):
        for _, prefix, _ in _directives(comment):
            assert any(ln.text == prefix or ln.text.startswith(prefix + " ") for ln in LINES), prefix


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("readme")
    for name in LINKED:
        (d / name).symlink_to(REPO / name)
    (d / "teams.csv").write_text(TEAMS_CSV)
    return d


def _env() -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    return dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""), NO_COLOR="1")


@pytest.mark.parametrize("line", LINES, ids=[ln.text[:70] for ln in LINES])
def test_a_readme_line_runs(line: Line, workdir: Path) -> None:
    if line.skip is not None:
        pytest.skip("README line not run: %s" % line.skip)  # tests/conftest.py: never a capability
    argv = ["bash", "-c", line.text] if "$(" in line.text else shlex.split(line.text)
    if line.until is None:
        r = subprocess.run(argv, cwd=workdir, env=_env(), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == line.status, "%s\n%s%s" % (line.text, r.stdout[-2000:], r.stderr[-2000:])
        return
    proc = subprocess.Popen(argv, cwd=workdir, env=_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    said: list[str] = []
    threading.Thread(target=lambda: said.extend(proc.stdout or ()), daemon=True).start()
    deadline = time.monotonic() + 300
    try:
        while not any(line.until in s for s in said):
            assert proc.poll() is None, "%s ended (%s):\n%s" % (line.text, proc.returncode, "".join(said))
            assert time.monotonic() < deadline, "%s never said %r:\n%s" % (line.text, line.until, "".join(said))
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGTERM)
        rc = proc.wait(60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert rc in (0, SIGTERM_STATUS), "%s: exit %s on SIGTERM:\n%s" % (line.text, rc, "".join(said)[-2000:])
