"""The rp2 board: a Pico emulated at the chip level (rp2040js) running a real MicroPython image.

``Rp2Board`` has ``VirtualBoard``'s API (``.port``, ``.stable_port``, ``place``/``lift``/
``press``, ``reset``, ``power_cut``, ``pixels``, ``status``, ``unplug``/``replug``), so callers
need not care which board they drive. Behind the pty is ``host/cardtable_host/sim/rp2/board.mjs``: the UF2 image
in the chip's flash, littlefs on it (flash erase/program trapped at the bootrom's functions),
USB CDC, buttons on GPIO, the WS2812 chain decoded from its pin, the piezo's PWM.

Installing: a fresh flash gets the firmware the way a maker's board does - the image, then
`cardtable flash` over the pty (the .mpy package on a stock image, the board files on the
frozen one). The result is cached by the hash of its inputs (image, firmware tree, board,
layout) in ``$XDG_CACHE_HOME/cardtable/rp2``, so the next fresh board starts from a copy.

- ``flash_dir``: a directory holding ``flash.bin`` (the chip's 2 MB flash), kept across
  restarts and read by a new chip after a power cut; None: a fresh flash each time.
- ``image``: the UF2 (default: the frozen image ``build/firmware/cardtable-pico.uf2`` when it
  has been built - refused unless its build hash is this checkout's, so an edited tree never
  runs an old image - else the stock MicroPython image in the shared rp2 directory).
- ``devices``: JS modules for the buses (readers), see host/cardtable_host/sim/rp2/board.mjs; default: every
  module in host/cardtable_host/sim/rp2/devices/.
- ``speed``: emulated time at most this many times wall time (0: no limit; default
  $CARDTABLE_RP2_SPEED, else 1).
- ``lockstep``: once the table runs, the chip pauses after every line it sends until the host
  says go, so its emulated clock never runs while the host thinks: talk to it through
  ``lockstep_link()`` (sim/rp2lockstep.py); place/lift waits run it a step at a time.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardtable_host.sim.board import REPO_ROOT, SIM_DIR, BoardError, VirtualBoard, in_checkout, node_binary, uid_hex
from cardtable_host.sim.rp2bus import Readers

if TYPE_CHECKING:
    from cardtable_host.sim.rp2lockstep import LockstepLink

BOARD_MJS = SIM_DIR / "rp2" / "board.mjs"
DEVICES_DIR = SIM_DIR / "rp2" / "devices"
ENV_SPEED = "CARDTABLE_RP2_SPEED"  # default speed (0: as fast as the emulator goes; tests)
ENV_BUS_FD = "CARDTABLE_RP2_BUS_FD"  # the readers' socket, for host/cardtable_host/sim/rp2/devices/readers.mjs
ENV_SHARED = "CARDTABLE_SHARED"  # the shared folder: rp2/ holds the stock UF2 and the bootrom
ENV_CACHE = "XDG_CACHE_HOME"
BOOTROM = "rp2040-bootrom-b1.bin"
STOCK_UF2 = "RPI_PICO-v1.27.0.uf2"
FROZEN_UF2 = REPO_ROOT / "build" / "firmware" / "cardtable-pico.uf2"
FLASH_FILE = "flash.bin"
CACHE_KEEP = 24  # installed flashes kept in the cache
STEP_NS = 2_000_000  # lockstep: emulated time a wait for the firmware's polls lets the chip run at once


def rp2_dir() -> Path:
    """Where the stock image and the bootrom are: rp2/ in the shared folder ($CARDTABLE_SHARED,
    else ../shared), as for `make firmware`."""
    from cardtable_host.board.imageinstall import build_tool

    return Path(build_tool().shared_dir()) / "rp2"


def bootrom_path() -> Path:
    """The RP2040 B1 bootrom the emulator needs."""
    return rp2_dir() / BOOTROM


def default_image() -> Path:
    """The frozen image when built, else the stock MicroPython image."""
    return FROZEN_UF2 if FROZEN_UF2.exists() else rp2_dir() / STOCK_UF2


def default_devices() -> tuple[str, ...]:
    """The peripheral modules every rp2 board gets: host/cardtable_host/sim/rp2/devices/*.mjs (the buses' parts)."""
    return tuple(str(p) for p in sorted(DEVICES_DIR.glob("*.mjs")))


def missing() -> str | None:
    """Why the rp2 board cannot run here (None: it can)."""
    # (an installed cardtable gets rp2040js with npm into its cache when the board starts)
    if in_checkout() and not (REPO_ROOT / "node_modules" / "rp2040js").is_dir():
        return "rp2040js is not installed (run `make setup`)"
    for p in (bootrom_path(), rp2_dir() / STOCK_UF2):
        if not p.exists():
            return "%s is missing (set %s to the folder holding rp2/)" % (p, ENV_SHARED)
    return None


def stale_image(image: Path) -> str | None:
    """Why image, a cardtable image, is not this checkout's build (None: it is, or it is not a
    cardtable image); one line naming `make firmware`."""
    from cardtable_host.board import uf2
    from cardtable_host.board.imageinstall import build_tool

    tool = build_tool()
    try:
        got = uf2.image_version(image)
        want = tool.build_hash()
    except (uf2.Uf2Error, OSError, tool.BuildError) as e:
        return "cannot check the build of %s: %s" % (image, str(e).splitlines()[0])
    if got is None or got[1] == want:
        return None
    return "%s is build %s, not this checkout's build %s: run `make firmware`" % (
        _shown(image), got[1], want)


def _shown(p: Path) -> str:
    try:
        return p.resolve().relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return str(p)


def _cache_dir() -> Path:
    from cardtable_host.config.dirs import cache_dir

    return cache_dir() / "rp2"


def _firmware_trees() -> tuple[Path, ...]:
    """The firmware the flash is made from: the checkout's firmware/, else the installed main.py
    and board files and the installed device package."""
    if in_checkout():
        return (REPO_ROOT / "firmware",)
    from cardtable_host.board.firmwarefiles import firmware_dir
    from cardtable_host.sim.devicelib import package_dir

    return (firmware_dir(), package_dir())


def _tree_hash(h: "hashlib._Hash", root: Path) -> None:
    for p in sorted(root.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            h.update(str(p.relative_to(root)).encode() + b"\0")
            h.update(p.read_bytes())


def _keep(flash: Path, cached: Path) -> None:
    """Copy flash to the cache atomically (boards started in parallel may race)."""
    cached.parent.mkdir(parents=True, exist_ok=True)
    part = cached.with_suffix(".tmp%d" % os.getpid())
    shutil.copyfile(flash, part)
    os.replace(part, cached)
    for old in sorted(cached.parent.glob("*.bin"), key=lambda p: p.stat().st_mtime)[:-CACHE_KEEP]:
        old.unlink(missing_ok=True)  # 2 MB each: the newest installs are enough


class Rp2Board(VirtualBoard):
    """An emulated Pico running the table, its USB serial on a pty at ``.port``."""

    # An emulated chip runs at 0.05-0.4x a Pico (a busy machine: the lower end); a judgement
    # takes ~0.25 s of emulated time.
    KIND = "emulated RP2040 board"
    BOOT_S = 300.0
    LINK_S = 60.0
    JUDGE_S = 120.0

    def __init__(self, board: str | None = "pico-i2c-4seat", flash_dir: str | os.PathLike[str] | None = None,
                 game: str | None = None, layout: str | None = None, install: bool | None = None,
                 image: str | os.PathLike[str] | None = None, speed: float | None = None,
                 devices: tuple[str, ...] | None = None, repl: bool = False, echo_stderr: bool = False,
                 trace: bool = False, lockstep: bool = False) -> None:
        VirtualBoard.__init__(self, board=board, flash_dir=flash_dir, game=game, layout=layout,
                              install=install, repl=repl, echo_stderr=echo_stderr)
        self.image = Path(image).absolute() if image is not None else default_image()
        self.check_build = image is None and self.image == FROZEN_UF2  # the checkout's image: must be current
        self.speed = float(os.environ.get(ENV_SPEED) or 1.0) if speed is None else speed
        self.devices = default_devices() if devices is None else tuple(devices)
        self.trace = trace
        self.lockstep = lockstep
        self._out_bytes = 0  # what the board process has written on its serial (lockstep_link)
        self.installed: dict[str, Any] | None = None  # `cardtable flash --json`'s report, when it ran
        self._flash_tmp: tempfile.TemporaryDirectory[str] | None = None
        self.readers: Readers | None = None  # the PN532s on the board's buses (rp2bus)
        if board:
            from cardtable.table import config

            self.readers = Readers(config.load_board(board, str(_firmware_trees()[0] / "boards")))
            if lockstep:
                self.readers.stepper = self.step

    # -- the flash --------------------------------------------------------------------

    def flash_file(self) -> Path:
        """The 2 MB flash file the chip boots from."""
        if self.flash_dir is not None:
            return self.flash_dir / FLASH_FILE
        if self._flash_tmp is None:
            self._flash_tmp = tempfile.TemporaryDirectory(prefix="cardtable-rp2-")
        return Path(self._flash_tmp.name) / FLASH_FILE

    def chosen_layout(self) -> str | None:
        """The layout to install: layout, else the board's first layout for game."""
        if self.layout or not self.game:
            return self.layout
        from cardtable_host.sim.choice import pick_layout

        return pick_layout(self.game, self.board or "pico-i2c-4seat", None, None)

    def install_key(self, layout: str | None) -> str:
        """The hash of everything a freshly installed flash depends on."""
        h = hashlib.sha256()
        h.update(self.image.read_bytes())
        for tree in _firmware_trees():
            _tree_hash(h, tree)
        from cardtable_host.board import flashing

        for part in ("flashing.py", "rawrepl.py"):  # how the flash is installed
            h.update((Path(flashing.__file__).parent / part).read_bytes())
        h.update(("%s|%s" % (self.board, layout)).encode())
        return h.hexdigest()[:24]

    def _command(self) -> list[str]:
        why = missing()
        if why:
            raise BoardError("the rp2 board cannot run: " + why)
        if not self.image.exists():
            raise BoardError("no firmware image %s (build it with `make firmware`)" % self.image)
        cmd = [node_binary(), str(BOARD_MJS), "--bootrom", str(bootrom_path()), "--image", str(self.image),
               "--flash", str(self.flash_file()), "--speed", str(self.speed)]
        if self.board:
            cmd += ["--board", str(_firmware_trees()[0] / "boards" / (self.board + ".json"))]
        for d in self.devices:
            cmd += ["--device", str(Path(d).resolve())]
        if self.repl:
            cmd.append("--repl")
        if self.trace:
            cmd.append("--trace")
        if self.lockstep:  # (it pauses only once a table runs: not at the REPL)
            cmd.append("--lockstep")
        return cmd

    # -- life -------------------------------------------------------------------------

    def _start_process(self, timeout: float) -> None:
        """VirtualBoard.start with the readers' socket handed to the board process."""
        theirs = None
        if self.readers is not None:
            theirs = self.readers.serve()
            self._pass_fds = (theirs.fileno(),)
            self._env = dict(os.environ, **{ENV_BUS_FD: str(theirs.fileno())})
        try:
            VirtualBoard.start(self, timeout)
        finally:
            if theirs is not None:
                theirs.close()  # the board process holds it now: its end closes with the process

    def start(self, timeout: float = 60) -> "Rp2Board":
        """Start the chip (installing the firmware on a fresh flash first); wait for the table or REPL."""
        if self.check_build:
            stale = stale_image(self.image)
            if stale:
                raise BoardError(stale)
        flash = self.flash_file()
        flash.parent.mkdir(parents=True, exist_ok=True)
        if not flash.exists() or self.install:
            self._install(flash)
        self._start_process(timeout)
        return self

    def close(self, timeout: float = 5) -> None:
        """Stop the chip (its flash saved) and release everything."""
        VirtualBoard.close(self, timeout)
        if self.readers is not None:
            self.readers.close()
        if self._flash_tmp is not None:
            self._flash_tmp.cleanup()
            self._flash_tmp = None

    def _install(self, flash: Path) -> None:
        """Fill a fresh flash: the board's install (cached), then the layout's config (cached)."""
        layout = self.chosen_layout()
        cached = _cache_dir() / ("%s.bin" % self.install_key(layout))
        if cached.exists() and not self.install:
            shutil.copyfile(cached, flash)
            return
        base = _cache_dir() / ("%s.bin" % self.install_key(None))
        if base.exists() and not self.install:
            shutil.copyfile(base, flash)
        else:
            if flash.exists():
                flash.unlink()
            self._in_repl(lambda: self._flash_firmware())
            _keep(flash, base)
        if layout is not None:
            self._in_repl(lambda: self._write_config(layout))
            _keep(flash, cached)

    def _in_repl(self, job: Any) -> None:
        """Run job() with the chip at its REPL (as fast as it goes), then stop it, flash saved."""
        repl, speed, lockstep = self.repl, self.speed, self.lockstep
        self.repl, self.speed = True, 0  # no need to wait for the wall clock while copying
        self.lockstep = False
        try:
            self._start_process(120)
            job()
            self.sync()
        finally:
            VirtualBoard.close(self)
            self.repl, self.speed, self.lockstep = repl, speed, lockstep

    def _flash_firmware(self) -> None:
        from cardtable_host.board import uf2
        from cardtable_host.board import flashing as flash
        from cardtable_host.errors import CardtableError

        # The image is in the flash already: flash copies the board files for a cardtable image
        # (it checks the build), the .mpy package for a stock one.
        given = uf2.image_version(self.image)
        opts = flash.FlashOptions(port=self.port, board=self.board, no_reset=True, json=True,
                                  uf2=str(self.image) if given else None, mpy=not given)
        report: dict[str, Any] = {"ok": False}
        try:
            flash.flash_board(opts, report, lambda _said: None)
        except CardtableError as e:
            raise BoardError("installing the firmware on the rp2 board failed (cardtable flash exit %d): %s"
                             % (e.status, e)) from None
        finally:
            self.installed = report

    def _write_config(self, layout: str) -> None:
        from cardtable_host.board import flashing as flash

        fb = flash.Board(self.port)
        try:
            fb.enter()
            cfg = flash.new_config(fb.read_config(), self.board, layout)
            fb.write(flash.CONFIG, json.dumps(cfg).encode())
            fb.t.exit_raw_repl()
        finally:
            fb.close()

    def put_journal(self, journal: bytes) -> None:
        """At the REPL (a board started with repl=True): make ``journal`` the flash's only game."""
        from cardtable_host.board import flashing as flash

        fb = flash.Board(self.port)
        try:
            fb.enter()
            fb.mkdirs(["games/0001.jsonl"])
            fb.run("import os\nfor n in os.listdir('games'):\n os.remove('games/' + n)\n")
            fb.write("games/0001.jsonl", journal)
            size = fb.run("print(os.stat('games/0001.jsonl')[6])").strip()
            if size != str(len(journal)):
                raise BoardError("the journal on the rp2 board's flash has %s bytes, not %d" % (size, len(journal)))
            fb.t.exit_raw_repl()
        finally:
            fb.close()

    # -- lockstep ------------------------------------------------------------------------

    def _serial_out(self, out_fd: int) -> bytes | None:
        data = VirtualBoard._serial_out(self, out_fd)
        if data:
            self._out_bytes += len(data)
        return data

    def lockstep_link(self, timeout: float | None = None, **kw: Any) -> "LockstepLink":
        """A LockstepLink to the table (a board started with lockstep=True): opened while the
        chip stands, after everything it said before has passed the pty (and is discarded)."""
        from cardtable_host.sim.rp2lockstep import LockstepLink

        if not self.lockstep:
            raise BoardError("lockstep_link: this board runs without lockstep")
        st = self._request({"op": "held"}, timeout=self.LINK_S)
        deadline = time.monotonic() + self.LINK_S
        while not self._relayed(int(st["out_bytes"])):
            if time.monotonic() > deadline:
                raise BoardError("the rp2 board's serial output did not reach its pty")
            time.sleep(0.01)  # (the chip stands: this is the pty relay catching up, not a timing)
        return LockstepLink(self, int(st["lines"]), int(st["serial"]),
                            timeout=self.LINK_S if timeout is None else timeout, **kw)

    def _relayed(self, n: int) -> bool:
        """Has the pty relay received n bytes from the board and written them all to the pty?"""
        relay = self._pty
        if relay is None or self._out_bytes < n:
            return False
        with relay._lock:  # (its queue for the pty: empty once written)
            return not relay._pending

    def go(self, lines: int, serial: int, until_ns: float | None = None) -> None:
        """Lockstep: let the chip run on from its pause at line `lines` (stale: ignored) once it
        has taken `serial` bytes; until_ns: pause again then. Not waited for."""
        req: dict[str, Any] = {"op": "go", "lines": lines, "serial": serial}
        if until_ns is not None:
            req["until_ns"] = until_ns
        if self._ctl is None:
            raise BoardError("the virtual board is not running")
        try:
            with self._send_lock:
                self._ctl.sendall((json.dumps(req) + "\n").encode())  # (no id: the reply is dropped)
        except OSError as e:
            raise BoardError("the virtual board is gone: %s" % e) from None

    def held(self, now: bool = False) -> dict[str, Any]:
        """Lockstep: wait until the chip stands; its lines sent, bytes taken, emulated ns, why
        ("line" | "time"). now: at once (why None while it runs)."""
        return self._request({"op": "held", "now": now}, timeout=self.JUDGE_S)

    def run_for(self, ns: float) -> None:
        """Lockstep: let the standing chip run ns of emulated time (standing at each line it
        sends on the way, then running on)."""
        end = float(self.held()["now_ns"]) + ns
        while True:
            now = float(self.held()["now_ns"])
            if now >= end:
                return
            self.step(int(end - now))

    def step(self, ns: int = STEP_NS) -> None:
        """Lockstep: let the standing chip run ns of emulated time (or until its next line)."""
        st = self.held()
        r = self._request({"op": "go", "lines": st["lines"], "serial": 0, "until_ns": st["now_ns"] + ns})
        if r.get("resumed"):
            self.held()

    def _request(self, req: dict[str, Any], timeout: float = 15) -> dict[str, Any]:
        """A control request; in lockstep, one answered on the emulated clock (a press held
        for its time, an encoder's detents) lets the standing chip run until it is."""
        if not self.lockstep or req.get("op") not in ("press", "turn") or self.mode != "table":
            return VirtualBoard._request(self, req, timeout)
        return self._stepping(req, timeout)

    def _stepping(self, req: dict[str, Any], timeout: float) -> dict[str, Any]:
        if self._ctl is None or not self.alive:
            raise BoardError("the virtual board is not running")
        with self._cond:
            self._next_id += 1
            rid = self._next_id
        with self._send_lock:
            self._ctl.sendall((json.dumps(dict(req, id=rid)) + "\n").encode())
        end = time.monotonic() + max(timeout, self.JUDGE_S)
        while True:
            with self._cond:
                reply = self._replies.pop(rid, None)
            if reply is not None:
                break
            if time.monotonic() > end or not self.alive:
                raise BoardError("no answer from the rp2 board to %s" % req.get("op"))
            self.step(5 * STEP_NS)
        if not reply.get("ok"):
            raise BoardError(reply.get("error") or "request failed")
        return reply

    # -- the readers (served here, not by the board process) ----------------------------

    def _readers(self) -> Readers:
        if self.readers is None:
            raise BoardError("this board has no readers")
        return self.readers

    def place(self, zone: str, text: str | None, uid: bytes | str | None = None, kind: int | str = 213,
              wait: bool = True) -> None:
        """Lay a tag on a zone's reader (see VirtualBoard.place)."""
        rd = self._readers()
        try:
            if rd.waits(zone) and self.mode == "table":
                # its PN532 may be waiting for a card by itself: it must come on its IRQ line
                i = rd.index(zone)
                tag = uid_hex(zone, text, uid, kind)
                rd.after_lift(i, tag)  # (another card than the one lifted: a swap, at once)
                self._arrive([(i, tag, text, kind, 0.0)])
                if wait:
                    rd.seen(i)
                return
            rd.place(zone, uid_hex(zone, text, uid, kind), text, kind, wait, running=self.mode == "table")
        except ValueError as e:
            raise BoardError(str(e)) from None

    def place_at(self, plays: list[tuple[str, str, float]]) -> list[float]:
        """Lay cards at emulated times: (zone, code, ms from now) each; returns the emulated ns
        each arrives at. A reader waiting for its card (board "scan": "irq") pulls its IRQ line
        low on the emulated GPIO when its PN532 answers; the others see it at their next poll."""
        rd = self._readers()
        try:
            return self._arrive([(rd.index(z), uid_hex(z, text, None, 213), text, 213, ms) for z, text, ms in plays])
        except ValueError as e:
            raise BoardError(str(e)) from None

    def _arrive(self, plays: list[tuple[int, str, str | None, int | str, float]]) -> list[float]:
        """(reader, uid hex, text, kind, ms from now): staged, then brought in by the chip's clock."""
        rd = self._readers()
        arrivals = []
        for i, uid, text, kind, ms in plays:
            rd.stage(i, uid, text, kind)
            arrivals.append({"reader": i, "in_ns": int(ms * 1e6)})
        at: list[float] = self._request({"op": "arrive", "arrivals": arrivals}, timeout=self.LINK_S)["at_ns"]
        return at

    def irq_stats(self) -> dict[str, Any]:
        """The IRQ lines' falling edges driven on this chip, and the GPIO of each reader's."""
        return self._request({"op": "irqstats"})

    def lift(self, zone: str, wait: bool = True) -> None:
        """Take the tag off a zone (wait: until the firmware has had time to notice)."""
        try:
            self._readers().lift(zone, wait, running=self.mode == "table")
        except ValueError as e:
            raise BoardError(str(e)) from None

    def kill_reader(self, reader: int | str) -> None:
        """Cut a reader's cable (by index, or by its zone's name): it stops answering."""
        try:
            self._readers().kill(reader, True)
        except ValueError as e:
            raise BoardError(str(e)) from None

    def revive_reader(self, reader: int | str) -> None:
        """Mend a reader's cable."""
        try:
            self._readers().kill(reader, False)
        except ValueError as e:
            raise BoardError(str(e)) from None

    def hold_sda(self, zone: int | str, clocks: int = -1, now: bool = False) -> None:
        """Make a zone's PN532 (I2C) hold SDA low from the next transaction addressed to it (now:
        at once, as one a reset cut off mid-byte): for good (-1), until `clocks` SCL clocks
        reach it, or let go now (0)."""
        try:
            i = self._readers().index(zone)
        except ValueError as e:
            raise BoardError(str(e)) from None
        self._request({"op": "hold_sda", "reader": i, "clocks": clocks, "now": now})

    def turn(self, encoder: str, steps: int, bounce_ms: float = 0.0, half: bool = False) -> None:
        """Turn an encoder by steps detents (negative: back), each contact change bouncing for
        bounce_ms first; half: nudge it first, the leading contact closing and springing back."""
        # A detent is four quarters of 3.5 ms (and the chatter) on the emulated clock.
        self._request({"op": "turn", "encoder": encoder, "steps": steps, "bounce_ms": bounce_ms, "half": half},
                      timeout=60 + abs(steps))

    def wire_rst(self, pins: dict[int, Any]) -> list[list[float]]:
        """Wire readers' RSTPDN to GPIOs ({GP: zone or reader, or a list of them: one line shared
        as a bus's "rst" is}) as the board file's "rst" does; returns the RSTPDN edges seen on
        this chip so far ([GP, level, ns])."""
        rd = self._readers()
        try:
            wired = {str(gp): [rd.index(z) for z in (who if isinstance(who, list) else [who])]
                     for gp, who in pins.items()}
        except ValueError as e:
            raise BoardError(str(e)) from None
        log: list[list[float]] = self._request({"op": "wire_rst", "pins": wired})["log"]
        return log

    def bus_stats(self) -> dict[str, Any]:
        """The buses as host/cardtable_host/sim/rp2/bus.mjs saw them: per bus its transaction counts, `first`
        (when it first moved and the levels of its select pins then) and, on I2C, `pins`
        (mux resets, SCL clocks, STOPs, lost STARTs, grabs) and their `log` ([kind, ns])."""
        buses: dict[str, Any] = self._request({"op": "busstats"})["buses"]
        return buses

    def status(self) -> dict[str, Any]:
        """The board's status, with the cards on its readers and the readers' bus figures."""
        st = VirtualBoard.status(self)
        if self.readers is not None:
            st["cards"] = self.readers.cards_by_zone()
            st["dead"] = [i for i, r in enumerate(self.readers.readers) if r.dead]
            st["readers"] = self.readers.stats()
        return st

    # -- what only this board has -------------------------------------------------------

    def hold(self, button: str, down: bool) -> None:
        """Hold a button down (True) or let it go (False), e.g. to power up into maintenance mode."""
        self._request({"op": "hold", "button": button, "down": down})

    def tone(self) -> dict[str, Any] | None:
        """The piezo's PWM now: {"freq": Hz, "duty": 0..1}, or None when its pin is not PWM."""
        return self._request({"op": "tone"}).get("tone")

    def set_period(self, ms: float) -> None:
        """The chip runs its loop at its own pace: nothing to set."""
        self.period_ms = ms

    def profile(self, on: bool, callers: list[int] | None = None) -> dict[str, Any]:
        """Start (on) counting the chip's cycles per instruction address, and the return
        addresses each of `callers` is entered with; or stop: `cycles` ([pc, cycles]; -1 waiting
        for an interrupt, -2 a flash stall), `callers` ([addr, [[lr, n], ...]]), `now_ns`
        (host/cardtable_host/sim/rp2/chip.mjs; bench/rp2profile.py names them)."""
        return self._request({"op": "profile", "on": on, "callers": callers or []}, timeout=60)

    def peek(self, addr: int, n: int) -> bytes:
        """n bytes of the chip's memory at addr (its SRAM: e.g. a buffer's high-water mark)."""
        return bytes.fromhex(self._request({"op": "peek", "addr": addr, "len": n})["hex"])

    def record(self, on: bool) -> dict[str, Any]:
        """Start (on) keeping a record of the chip's play - its flash now, every erase and
        program from now on, the serial lines both ways, each with its emulated time - or stop
        it: its ops ([kind, start_ns, ns, offset, size]), lines ([dir, ns, text]) and `broken`
        (why it ended early: the chip stopped). See host/cardtable_host/sim/rp2/flashlog.mjs."""
        return self._request({"op": "record", "on": on}, timeout=60)

    def restore(self, upto: int, cut_ns: int | None = None, reboot: dict[str, Any] | None = None,
                timeout: float = 60, off: bool = False) -> dict[str, Any]:
        """Cut the power as if at a point of the record: operations before `upto` done, `upto`
        cut cut_ns into it (None: not started); a new chip boots from that flash (reboot: cut it
        too while it boots, as power_cut_at does). Returns once the chip is up (or cut again).
        off: no new chip; the board stays off with that flash saved in flash_file()."""
        req: dict[str, Any] = {"op": "restore", "upto": upto, "cut_ns": cut_ns, "off": off}
        if reboot is not None:
            req["reboot"] = reboot
        reply = self._request(req, timeout=timeout)
        if not off:
            self.wait_mode(("table", "repl"), timeout)
        return reply

    def power_cut_at(self, in_ns: int | None = None, op_kind: str | None = None, frac: float = 0.5,
                     off_ms: int = 0, timeout: float = 60, skip: int = 0,
                     reboot: dict[str, Any] | None = None) -> dict[str, Any]:
        """Cut the power in_ns emulated ns from now, or frac of the way into the next flash
        erase or program (op_kind; skip: after that many more have finished); a new chip boots
        from the flash as it was (off_ms >= 0). reboot ({"in_ns": N} after power-on, or
        {"op_kind", "frac", "skip"}): cut that chip too while it boots, before its table is
        up (the reply's reboot_at_ns: when, or None when the table came up first)."""
        req: dict[str, Any] = {"op": "powercut", "off_ms": off_ms}
        if in_ns is not None:
            req["in_ns"] = in_ns
        else:
            req["op_kind"] = op_kind
            req["frac"] = frac
            req["skip"] = skip
        if reboot is not None:
            req["reboot"] = reboot
        reply = self._request(req, timeout=timeout)
        if off_ms >= 0:
            self.wait_mode(("table", "repl"), timeout)
        return reply
