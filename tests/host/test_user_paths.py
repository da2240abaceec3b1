"""Every path a user gives is relative to the folder they are in, never to the checkout the
tool runs from (`cardtable sim --flash DIR` once wrote into the checkout)."""
from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest
from hostsupport import command, need_node

REPO = Path(__file__).resolve().parents[2]


def run_in(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command(*args), cwd=str(cwd), capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, NO_COLOR="1"))


def test_sims_flash_record_and_port_file_go_where_the_user_is(tmp_path: Path) -> None:
    pytest.importorskip("termios")
    need_node()
    name = "flash-%s" % uuid.uuid4().hex[:8]
    try:
        went_where_the_user_is(tmp_path, name)
    finally:  # a board that wrote into the checkout leaves nothing there
        import shutil

        for stray in (REPO / name, REPO.parent / name):
            shutil.rmtree(stray, ignore_errors=True)


def went_where_the_user_is(tmp_path: Path, name: str) -> None:
    r = run_in(tmp_path, "sim", "nexus", "--delay", "0", "-q", "--flash", name, "--record", name + ".jsonl",
               "--port-file", name + ".port")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / name / "config.json").is_file() and (tmp_path / name / "games").is_dir()
    assert (tmp_path / (name + ".jsonl")).is_file()
    assert not (REPO / name).exists(), "the board's flash went into the checkout"
    assert not any(p.name.startswith(name) for p in REPO.iterdir())
    # again, from a subfolder, with ../: the same flash (the board finds its config and games there)
    sub = tmp_path / "sub"
    sub.mkdir()
    r = run_in(sub, "sim", "nexus", "--delay", "0", "-q", "--flash", "../" + name)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not (REPO.parent / name).exists() and not (REPO / name).exists()
    assert len(list((tmp_path / name / "games").iterdir())) >= 1
