"""The Debian packages the suites need (tools/system-packages.txt): which are missing, and
installing them when this user can (root, or sudo without a password).

A package is missing when the command that proves it is not on PATH (a package with no command,
a library, when dpkg does not list it installed). CARDTABLE_ALLOW_SKIP (comma-separated
capabilities: image, browser, broker, speech, circuit, rp2, node) lets a missing package's
capability be skipped instead.

usage:  python3 tools/system_packages.py              # install what is missing, or say how
        python3 tools/system_packages.py --list       # the package names, one line
        python3 tools/system_packages.py --check      # exit 2 naming the command if any is missing
        python3 tools/system_packages.py --capability image   # the names one capability needs
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

LIST = Path(__file__).resolve().parent / "system-packages.txt"
ALLOW_ENV = "CARDTABLE_ALLOW_SKIP"


@dataclass(frozen=True)
class Package:
    """One Debian package: its name, the command proving it installed, what it gives."""

    name: str
    command: str | None
    capability: str


def packages(capability: str | None = None) -> list[Package]:
    """The list, or the packages one capability needs."""
    out = []
    for line in LIST.read_text(encoding="utf-8").splitlines():
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) != 3:
            raise ValueError("%s: %r: expected `package command capability`" % (LIST.name, line))
        name, command, cap = words
        if capability is None or cap == capability:
            out.append(Package(name, None if command == "-" else command, cap))
    return out


def allowed_skips() -> set[str]:
    """The capabilities CARDTABLE_ALLOW_SKIP lets the tests skip."""
    return {w.strip() for w in os.environ.get(ALLOW_ENV, "").split(",") if w.strip()}


def _dpkg_installed(name: str) -> bool:
    if shutil.which("dpkg-query") is None:
        return False
    r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", name], capture_output=True, text=True)
    return r.returncode == 0 and "ok installed" in r.stdout


def is_missing(pkg: Package) -> bool:
    """True when pkg's command is not on PATH (for a library, when dpkg lacks it)."""
    if pkg.command is not None:
        return shutil.which(pkg.command) is None
    return not _dpkg_installed(pkg.name)


def missing(pkgs: list[Package] | None = None) -> list[Package]:
    """The packages (of pkgs, default all) that are missing here."""
    return [p for p in (packages() if pkgs is None else pkgs) if is_missing(p)]


def install_command(names: list[str], root: bool | None = None, typed: bool = False) -> list[str]:
    """The one command that installs names (with sudo unless this user is root); typed: as a
    person types it at a terminal, without the flags an unattended install needs."""
    if root is None:
        root = _is_root()
    cmd = ["apt-get", "install", *([] if typed else ["-y", "--no-install-recommends"]), *names]
    return cmd if root else ["sudo", *cmd]


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def can_install() -> bool:
    """True when apt-get exists and this user is root or has sudo without a password."""
    if shutil.which("apt-get") is None:
        return False
    if _is_root():
        return True
    if shutil.which("sudo") is None:
        return False
    return subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0


def ensure(pkgs: list[Package] | None = None, say=print) -> int:
    """Install what is missing (of pkgs, default all) when this user can; 0 when nothing is
    missing (or what is missing is allowed to be skipped), else 2 after saying the one command."""
    want = missing(pkgs)
    if not want:
        return 0
    names = [p.name for p in want]
    if can_install():
        say("system packages: installing %s" % " ".join(names))
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        prefix = [] if _is_root() else ["sudo", "-n"]
        update = subprocess.run([*prefix, "apt-get", "update", "-qq"], env=env)
        if update.returncode == 0:
            subprocess.run([*prefix, *install_command(names, root=True)], env=env)
        want = missing(want)
        if not want:
            return 0
    allowed = allowed_skips()
    blocking = [p for p in want if p.capability not in allowed]
    if not blocking:
        say("system packages: %s missing; %s=%s lets %s be skipped"
            % (" ".join(p.name for p in want), ALLOW_ENV, ",".join(sorted(allowed)),
               ", ".join(sorted({p.capability for p in want}))))
        return 0
    caps = sorted({p.capability for p in blocking})
    say("system packages missing: %s (for %s)." % (" ".join(p.name for p in blocking), ", ".join(caps)))
    say("run:  %s" % " ".join(install_command([p.name for p in blocking])))
    say("(or skip what they give: %s=%s)" % (ALLOW_ENV, ",".join(caps)))
    return 2


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="print every package name on one line")
    ap.add_argument("--check", action="store_true", help="install nothing: exit 2 if any is missing")
    ap.add_argument("--capability", help="print the names of the packages one capability needs")
    args = ap.parse_args(argv)
    if args.list or args.capability:
        print(" ".join(p.name for p in packages(args.capability)))
        return 0
    if args.check:
        want = missing()
        if want:
            print("run:  %s" % " ".join(install_command([p.name for p in want])))
            return 2
        return 0
    return ensure()


if __name__ == "__main__":
    sys.exit(main())
