"""`make test`'s own set-up on a fresh machine: the one list of Debian packages, installed when
this user can, else a stop before any test naming the one command; and the skip summary that
fails a whole capability left out unless CARDTABLE_ALLOW_SKIP names it."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("termios")  # the fake tools are shell scripts

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import system_packages  # noqa: E402
import testall  # noqa: E402

BASICS = ("sh", "bash", "env", "cat", "mkdir", "touch", "chmod", "true", "node", "npm", "git")


def _script(path: Path, text: str) -> None:
    path.write_text("#!/bin/sh\n" + text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _bare_path(tmp_path: Path) -> Path:
    """A PATH folder with the basics and none of the system packages' commands."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for name in BASICS:
        found = shutil.which(name)
        if found:
            (bin_ / name).symlink_to(found)
    return bin_


def _fake_apt(bin_: Path, log: Path) -> None:
    """apt-get that "installs" by writing each package's command (and a dpkg-query that knows)."""
    cmds = " ".join("%s=%s" % (p.name, p.command or "-") for p in system_packages.packages())
    _script(bin_ / "apt-get", """echo "$@" >> %(log)s
[ "$1" = install ] || exit 0
for arg in "$@"; do
  for pair in %(cmds)s; do
    if [ "${pair%%%%=*}" = "$arg" ]; then
      touch "%(bin)s/.installed-$arg"
      cmd="${pair#*=}"
      [ "$cmd" = - ] || { printf '#!/bin/sh\\nexit 0\\n' > "%(bin)s/$cmd"; chmod +x "%(bin)s/$cmd"; }
    fi
  done
done
""" % {"log": log, "cmds": cmds, "bin": bin_})
    _script(bin_ / "dpkg-query", """for last; do :; done
[ -e "%s/.installed-$last" ] && echo "install ok installed" && exit 0
exit 1
""" % bin_)
    _script(bin_ / "sudo", '[ "$1" = -n ] && shift\nexec "$@"\n')


def test_the_list_names_what_the_suites_need() -> None:
    names = system_packages.packages()
    want = {"gcc-arm-none-eabi", "cmake", "g++", "chromium", "chromium-driver", "mosquitto",
            "espeak-ng", "sox", "ngspice"}
    assert want <= {p.name for p in names}
    # make firmware takes its packages from the same list
    build = (REPO / "tools" / "firmware" / "build.py").read_text()
    assert "APT_PACKAGES = \" \".join(p.name for p in SYSTEM.packages(\"image\"))" in build
    assert "tools/system_packages.py" in (REPO / ".ci" / "run").read_text()


def test_a_user_who_cannot_install_is_stopped_before_any_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    bin_ = _bare_path(tmp_path)
    _script(bin_ / "apt-get", "exit 99\n")
    _script(bin_ / "sudo", "echo 'a password is required' >&2; exit 1\n")
    monkeypatch.setenv("PATH", str(bin_))
    monkeypatch.delenv("CARDTABLE_ALLOW_SKIP", raising=False)
    monkeypatch.setattr(system_packages, "_is_root", lambda: False)
    started: list[object] = []
    popen = subprocess.Popen

    def watched(args: list[str], *a: object, **k: object) -> object:
        if any(w in " ".join(map(str, args)) for w in ("pytest", "test_mpy.py", "build.py")):
            started.append(args)
        return popen(args, *a, **k)  # type: ignore[call-overload]

    monkeypatch.setattr(testall.subprocess, "Popen", watched)
    rc = testall.main(["tests/host/test_setup.py"])
    out = capsys.readouterr().out
    assert rc == 2
    assert started == []  # neither pytest, the MicroPython runner nor the firmware build ran
    line = next(ln for ln in out.splitlines() if ln.startswith("run:"))
    assert line.split()[1:6] == ["sudo", "apt-get", "install", "-y", "--no-install-recommends"]
    for name in ("gcc-arm-none-eabi", "chromium", "chromium-driver", "mosquitto"):
        assert name in line.split()
    assert "stopped before the tests" in out


def test_a_user_who_can_install_gets_the_packages_then_the_tests(tmp_path: Path) -> None:
    bin_ = _bare_path(tmp_path)
    log = tmp_path / "apt.log"
    _fake_apt(bin_, log)
    env = dict(os.environ, PATH=str(bin_), CARDTABLE_ALLOW_SKIP="image")
    r = subprocess.run([sys.executable, str(REPO / "tools" / "testall.py"), "--setup-only"],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "system packages: installing" in r.stdout
    installs = [ln.split() for ln in log.read_text().splitlines() if ln.startswith("install")]
    assert len(installs) == 1
    for name in ("gcc-arm-none-eabi", "chromium", "chromium-driver", "mosquitto", "ngspice"):
        assert name in installs[0]
    for cmd in ("arm-none-eabi-gcc", "chromium", "mosquitto_passwd"):
        assert (bin_ / cmd).exists()
    # a second run finds everything and installs nothing
    r = subprocess.run([sys.executable, str(REPO / "tools" / "testall.py"), "--setup-only"],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "installing" not in r.stdout
    assert len([ln for ln in log.read_text().splitlines() if ln.startswith("install")]) == 1


def _pytest(bin_: Path, allow: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=str(bin_))
    env.pop("CARDTABLE_ALLOW_SKIP", None)
    if allow is not None:
        env["CARDTABLE_ALLOW_SKIP"] = allow
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", *args],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


def test_a_skipped_capability_fails_the_run_unless_allowed(tmp_path: Path) -> None:
    bin_ = _bare_path(tmp_path)  # no chromium, no chromedriver
    sel = ["tests/host/test_serve_browser.py", "tests/host/test_setup.py::test_the_list_names_what_the_suites_need"]
    r = _pytest(bin_, None, *sel)
    assert r.returncode == 1, r.stdout
    assert "skipped tests (1)" in r.stdout
    assert "tests/host/test_serve_browser.py: Chromium and chromium-driver are not installed" in r.stdout
    assert "[browser: NOT ALLOWED]" in r.stdout
    assert "CARDTABLE_ALLOW_SKIP=browser" in r.stdout
    r = _pytest(bin_, "browser", *sel)
    assert r.returncode == 0, r.stdout
    assert "[browser: allowed by CARDTABLE_ALLOW_SKIP]" in r.stdout
    assert "capabilities skipped as CARDTABLE_ALLOW_SKIP allows: browser" in r.stdout
