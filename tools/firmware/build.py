"""Build the cardtable firmware image: MicroPython 1.27 rp2 (RPI_PICO) with the device package
and the boot entry frozen in by firmware/manifest.py -> build/firmware/cardtable-pico.uf2.

Only Debian packages and the MicroPython sources in ../shared/rp2 (CARDTABLE_SHARED overrides
../shared) are used. The image, picotool and the unpacked sources (with mpy-cross) are cached
under ${XDG_CACHE_HOME:-~/.cache}/cardtable/firmware by the hash of their inputs: the shared
tarball, the manifest, every frozen file and this tool. A hit copies the cached image and builds
nothing; the build hash (the first 12 hex digits of that hash) is what the image's hello and
its picotool binary info report.

usage:  python3 tools/firmware/build.py            # build (or take from the cache)
        python3 tools/firmware/build.py --hash     # print the build hash of this checkout
        python3 tools/firmware/build.py --picotool # print the path of the cached picotool
Exit status: 0 built, 1 the build failed (the log's tail is shown), 2 a tool or input is missing.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import types
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[2]
FIRMWARE = REPO / "firmware"
MANIFEST = FIRMWARE / "manifest.py"
PACKAGE = FIRMWARE / "lib" / "cardtable"
USERMOD = REPO / "tools" / "firmware" / "usermod"
OUT = REPO / "build" / "firmware"
IMAGE = OUT / "cardtable-pico.uf2"
ELF = OUT / "cardtable-pico.elf"  # its symbols (bench/rp2profile.py names the chip's addresses)
INFO = OUT / "cardtable-pico.json"
GEN = OUT / "gen"  # _build.py and cardtable_build.h; the manifest and usermod look here
WORK = OUT / "rp2"  # the port's cmake build directory, reused while the sources stay the same
LOG = OUT / "build.log"
TARBALL_NAME = "micropython-1.27.0-rp2-src.tar.xz"
BOARD = "RPI_PICO"
HASH_LEN = 12
KEEP_IMAGES = 16


def _system_packages() -> types.ModuleType:
    """tools/system_packages.py, the one list of Debian packages (loaded by path: tools/ is no package)."""
    spec = importlib.util.spec_from_file_location("cardtable_system_packages",
                                                  Path(__file__).resolve().parents[1] / "system_packages.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, mod)
    spec.loader.exec_module(mod)
    return mod


SYSTEM = _system_packages()
APT_PACKAGES = " ".join(p.name for p in SYSTEM.packages("image"))


class BuildError(Exception):
    """A failure with a message for the user; status is the exit status."""

    def __init__(self, msg: str, status: int = 1) -> None:
        super().__init__(msg)
        self.status = status


def shared_dir() -> Path:
    """The shared inputs folder: $CARDTABLE_SHARED, else ../shared beside the repository."""
    return Path(os.environ.get("CARDTABLE_SHARED") or REPO.parent / "shared")


def tarball() -> Path:
    """The MicroPython rp2 source tarball."""
    return shared_dir() / "rp2" / TARBALL_NAME


def cache_dir() -> Path:
    """Where built things are kept between clones and runs."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cardtable" / "firmware"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def version() -> str:
    """The firmware version, as firmware/lib/cardtable/version.py states it."""
    m = re.search(r'^VERSION = "([^"]+)"', (PACKAGE / "version.py").read_text(), re.M)
    if not m:
        raise BuildError("firmware/lib/cardtable/version.py has no VERSION = \"...\" line", 2)
    return m.group(1)


def frozen_inputs() -> list[Path]:
    """Every repository file the image is built from: what is frozen and how it is built."""
    files = [MANIFEST, FIRMWARE / "main.py", Path(__file__).resolve(),
             Path(__file__).resolve().parent / "boardfiles.py"]
    files += [p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts]
    files += [p for p in USERMOD.iterdir() if p.is_file()]
    return sorted(set(files))


def inputs_hash(tar_sha: str) -> str:
    """The hash of everything the image depends on (tarball, manifest, frozen files, tools)."""
    h = hashlib.sha256(b"cardtable-firmware 1\n")
    h.update(tar_sha.encode() + b"\n")
    for p in frozen_inputs():
        h.update(p.relative_to(REPO).as_posix().encode() + b"\0" + sha256_file(p).encode() + b"\n")
    return h.hexdigest()


def build_hash(tar_sha: str | None = None) -> str:
    """The build hash of this checkout's image (what its hello reports)."""
    if tar_sha is None:
        tar_sha = tarball_sha()
    return inputs_hash(tar_sha)[:HASH_LEN]


def tarball_sha() -> str:
    tar = tarball()
    if not tar.is_file():
        raise BuildError("%s is missing: the MicroPython rp2 sources are expected in ../shared/rp2 "
                         "(or set CARDTABLE_SHARED to the folder holding rp2/)" % tar, 2)
    return sha256_file(tar)


def missing_tools() -> list[str]:
    """What the build needs from the system and does not find."""
    missing = [t for t in ("arm-none-eabi-gcc", "arm-none-eabi-g++", "cmake", "make", "c++")
               if shutil.which(t) is None]
    if not missing:
        for lib, what in (("libc.a", "newlib (libnewlib-arm-none-eabi)"),
                          ("libstdc++.a", "libstdc++ (libstdc++-arm-none-eabi-newlib)")):
            out = subprocess.run(["arm-none-eabi-g++", "-print-file-name=" + lib],
                                 capture_output=True, text=True).stdout.strip()
            if not os.path.isabs(out):
                missing.append(what)
    return missing


@contextlib.contextmanager
def locked(cache: Path) -> Iterator[None]:
    """The shared sources and picotool are set up by one clone at a time (the others wait)."""
    import fcntl  # POSIX only: the build runs on Linux (and macOS)

    cache.mkdir(parents=True, exist_ok=True)
    with (cache / ".lock").open("w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            say("waiting for another clone's build to set up the MicroPython sources ...")
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def run(cmd: list[str], log: Path, what: str, cwd: Path | None = None,
        env: dict[str, str] | None = None) -> None:
    """Run a build step, its output appended to log; a failure shows the log's tail."""
    with log.open("a") as f:
        f.write("\n$ %s\n" % " ".join(cmd))
        f.flush()
        proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-25:]
        raise BuildError("%s failed (exit %d); the end of %s:\n%s"
                         % (what, proc.returncode, log, "\n".join(tail)))


def say(msg: str) -> None:
    print("firmware: " + msg, flush=True)


def _sources_ready(src: Path) -> bool:
    return (src / ".unpacked").exists() and (src / "micropython" / "mpy-cross" / "build" / "mpy-cross").exists()


def sources(cache: Path, tar_sha: str) -> Path:
    """The unpacked tarball (micropython/, picotool/) with mpy-cross built, once per tarball."""
    src = cache / ("src-" + tar_sha[:16])
    if not (src / ".unpacked").exists():
        say("unpacking %s" % TARBALL_NAME)
        if src.exists():
            shutil.rmtree(src)
        tmp = Path(tempfile.mkdtemp(prefix="src-", dir=cache))
        kw = {"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}  # Python >= 3.11.4
        try:
            with tarfile.open(tarball()) as t:
                t.extractall(tmp, **kw)  # type: ignore[arg-type]
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        tmp.rename(src)
        (src / ".unpacked").touch()
    mpy_cross = src / "micropython" / "mpy-cross" / "build" / "mpy-cross"
    if not mpy_cross.exists():
        say("building mpy-cross (once per MicroPython source)")
        run(["make", "-C", str(src / "micropython" / "mpy-cross"), "-j%d" % jobs()],
            cache / "mpy-cross.log", "building mpy-cross")
    return src


def picotool(cache: Path, tar_sha: str, src: Path) -> Path:
    """picotool installed under the cache (no libusb: it reads and writes files, not USB)."""
    prefix = cache / ("picotool-" + tar_sha[:16])
    done = prefix / ".installed"
    if done.exists():
        return prefix
    say("building picotool (once per MicroPython source)")
    work = Path(tempfile.mkdtemp(prefix="picotool-build-", dir=cache))
    log = cache / "picotool.log"
    log.write_text("")
    try:
        run(["cmake", "-S", str(src / "picotool"), "-B", str(work),
             "-DPICO_SDK_PATH=%s" % (src / "micropython" / "lib" / "pico-sdk"),
             "-DPICOTOOL_NO_LIBUSB=1", "-DCMAKE_INSTALL_PREFIX=%s" % prefix,
             "-DCMAKE_BUILD_TYPE=Release"], log, "configuring picotool")
        run(["make", "-C", str(work), "-j%d" % jobs(), "install"], log, "building picotool")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    done.touch()
    return prefix


def cached_picotool() -> Path | None:
    """The picotool binary `make firmware` built, or one on PATH; None if neither exists."""
    on_path = shutil.which("picotool")
    if on_path:
        return Path(on_path)
    with contextlib.suppress(BuildError, OSError):
        prefix = cache_dir() / ("picotool-" + tarball_sha()[:16])
        p = prefix / "bin" / "picotool"
        if (prefix / ".installed").exists():
            return p
    return None


def jobs() -> int:
    return max(1, int(os.environ.get("CARDTABLE_JOBS") or os.cpu_count() or 1))


def write_if_changed(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def generate(ver: str, bhash: str) -> None:
    """The frozen cardtable/_build.py and the C header of the binary info."""
    write_if_changed(GEN / "cardtable" / "_build.py",
                     '"""Written by tools/firmware/build.py: this frozen image\'s version and build."""\n'
                     'VERSION = "%s"\nBUILD = "%s"\n' % (ver, bhash))
    write_if_changed(GEN / "cardtable_build.h",
                     "// Written by tools/firmware/build.py.\n"
                     '#define CARDTABLE_VERSION "%s"\n#define CARDTABLE_BUILD "%s"\n' % (ver, bhash))


def prune(images: Path, keep: int = KEEP_IMAGES) -> None:
    """Keep the newest `keep` cached images (one per build: they would pile up)."""
    old = sorted(images.glob("*.uf2"), key=lambda p: p.stat().st_mtime, reverse=True)[keep:]
    for p in old:
        p.unlink(missing_ok=True)
        p.with_suffix(".elf").unlink(missing_ok=True)


def compile_image(src: Path, prefix: Path, tar_sha: str) -> Path:
    """Run the rp2 port's build; the UF2 it produced."""
    stamp = WORK / ".cardtable-src"
    # The cmake cache remembers the source tree: a different tarball starts a clean build.
    if WORK.exists() and (not stamp.exists() or stamp.read_text() != tar_sha):
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True, exist_ok=True)
    stamp.write_text(tar_sha)
    env = dict(os.environ, picotool_ROOT=str(prefix))
    env.pop("CMAKE_ARGS", None)  # a CMAKE_ARGS from outside would replace the board's
    env.pop("MICROPY_MPYCROSS", None)
    # Dates in the image (__DATE__, the banner's) are the sources', so a build is reproducible.
    env.setdefault("SOURCE_DATE_EPOCH", str(int((src / "micropython" / "py" / "mpconfig.h").stat().st_mtime)))
    LOG.write_text("")
    # FROZEN_MANIFEST and USER_C_MODULES must be absolute: cmake runs in the port's folder.
    run(["make", "-C", str(src / "micropython" / "ports" / "rp2"), "-j%d" % jobs(),
         "BOARD=" + BOARD, "BUILD=" + str(WORK), "FROZEN_MANIFEST=" + str(MANIFEST),
         "USER_C_MODULES=" + str(USERMOD / "micropython.cmake")], LOG, "building the image", env=env)
    return WORK / "firmware.uf2"


def build(force: bool = False) -> dict[str, object]:
    """Build or fetch the image; its description (also written to build/firmware/cardtable-pico.json)."""
    tar_sha = tarball_sha()
    ver = version()
    full = inputs_hash(tar_sha)
    bhash = full[:HASH_LEN]
    cache = cache_dir()
    cached = cache / "images" / (full + ".uf2")
    OUT.mkdir(parents=True, exist_ok=True)
    generate(ver, bhash)
    t0 = time.monotonic()
    hit = cached.exists() and not force
    if hit:
        os.utime(cached)  # recently used: the last to be pruned
    if not hit:
        missing = missing_tools()
        if missing and SYSTEM.ensure(SYSTEM.packages("image"), say=say) == 0:
            missing = missing_tools()
        if missing:
            raise BuildError("cannot build the firmware: missing %s\n  install: %s"
                             % (", ".join(missing), " ".join(SYSTEM.install_command(APT_PACKAGES.split(), typed=True))), 2)
        src = cache / ("src-" + tar_sha[:16])
        prefix = cache / ("picotool-" + tar_sha[:16])
        if not (_sources_ready(src) and (prefix / ".installed").exists()):
            with locked(cache):
                src = sources(cache, tar_sha)
                prefix = picotool(cache, tar_sha, src)
        # the image itself is built in this clone's build/firmware/rp2: no lock needed
        say("building MicroPython %s with cardtable %s frozen in (build %s, -j%d; log: %s)"
            % (BOARD, ver, bhash, jobs(), LOG.relative_to(REPO)))
        uf2 = compile_image(src, prefix, tar_sha)
        cached.parent.mkdir(parents=True, exist_ok=True)
        for made, kept in ((uf2.with_suffix(".elf"), cached.with_suffix(".elf")), (uf2, cached)):
            tmp = kept.with_name("%s.%d.tmp" % (kept.name, os.getpid()))
            shutil.copyfile(made, tmp)
            tmp.rename(kept)
        prune(cached.parent)
    for kept, out in ((cached, IMAGE), (cached.with_suffix(".elf"), ELF)):
        if kept.exists() and (not out.exists() or sha256_file(out) != sha256_file(kept)):
            shutil.copyfile(kept, out)
    size = IMAGE.stat().st_size
    info: dict[str, object] = {"image": IMAGE.relative_to(REPO).as_posix(), "version": ver,
                               "build": bhash, "board": BOARD, "micropython": "v1.27.0",
                               "bytes": size, "sha256": sha256_file(IMAGE), "cached": hit}
    INFO.write_text(json.dumps(info, indent=1) + "\n")
    say("%s: cardtable %s build %s, %d bytes (%s, %.1f s)"
        % (info["image"], ver, bhash, size, "from the cache" if hit else "built", time.monotonic() - t0))
    return info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hash", action="store_true", help="print this checkout's build hash and exit")
    ap.add_argument("--picotool", action="store_true",
                    help="print the path of picotool (the cached build or one on PATH) and exit")
    ap.add_argument("--force", action="store_true", help="build even when the cache has the image")
    ap.add_argument("--json", action="store_true", help="print the image's description as JSON")
    args = ap.parse_args(argv)
    try:
        if args.hash:
            print(build_hash())
            return 0
        if args.picotool:
            p = cached_picotool()
            if p is None:
                print("build.py: no picotool yet: run `make firmware`", file=sys.stderr)
                return 2
            print(p)
            return 0
        info = build(force=args.force)
    except BuildError as e:
        print("build.py: %s" % e, file=sys.stderr)
        return e.status
    if args.json:
        print(json.dumps(info, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
