#!/usr/bin/env node
// The virtual board: firmware/main.py's table running on the real MicroPython (the pinned
// WebAssembly port, within a Pico's heap) with simulated hardware, its USB serial on this
// process's stdin/stdout. host/cardtable_host/sim/board.py puts that on a pty.
//
// - The flash: /main.py, /lib, /boards and /config.json in MEMFS, as on a Pico; optionally
//   loaded from and kept in step with a host directory (--flash), so files written by
//   mpremote or the journal survive a restart.
// - The table: main.build() with cardtable.hw_sim.SimHal over emulated PN532s (inside
//   MicroPython, behind the simulated buses the board config describes); main.run() is
//   called from JavaScript on a timer, one top-level call per tick, so the GC runs.
// - While the table runs, Ctrl-C (0x03) is data, as main.run makes it on a Pico (kbd_intr(-1));
//   a line of nothing but Ctrl-C (\r\x03\r: mpremote's \r\x03 then \r\x01, or Ctrl-C then Enter)
//   stops the table (cardtable/link.py says the same rule) and starts the real MicroPython REPL,
//   with two shims for mpremote: raw-paste mode is served here (the wasm REPL cannot block
//   for input: the bridge takes the code with pyexec.c's flow control, then hands it to the
//   raw REPL) and Emscripten errno values in OSError messages become MicroPython's.
//   Ctrl-D at an empty friendly prompt, machine.reset() and the control channel's reset
//   restart the table on a fresh MicroPython; Ctrl-D in the raw REPL soft-reboots without
//   starting it, as a board does.
// - The serial input is bounded as a Pico's USB CDC is with flow control: the table takes at
//   most SERIAL_ROOM bytes at a time (its LineReader refuses and drops a line over LINE_MAX as
//   it arrives), and this process stops reading stdin while SERIAL_BACKLOG bytes wait, so a
//   host writing a huge line waits on the pty instead of filling the board's heap.
// - The control channel (--control-fd, default 3 when open): JSON lines in, one reply per
//   request ({"id": ..., "ok": true, ...} or {"id": ..., "ok": false, "error": "..."}),
//   and unsolicited {"event": "mode", "mode": "table" | "repl" | "stopped"} lines.
//   Requests: place {zone, uid, text, kind, wait}, lift {zone, wait}, press {button},
//   turn {encoder, steps}, kill / revive {reader | zone}, stack {zone, uid, text, wait} (a
//   second NTAG over the tag lying there; lift takes both), knob {reader | zone, name, value}
//   (a fault knob of that reader's emulated PN532, e.g. vanish_after), reset, powercut {off_ms},
//   status, pixels, tones (every tone the piezo was asked for), sync, period {ms}, quit. `wait`: reply once the firmware has polled that reader
//   often enough to have seen the change.

import fs from 'node:fs';
import path from 'node:path';
import { Control, connect } from '../boardio.mjs';
import {
  FdWriter, REPO_ROOT, RunnerError, TOOLS_DIR, commandLine, emuAllowance, loadMicroPython, memfsMkdirs, nextInstance,
  parseSize,
} from './mp.mjs';

const USAGE = `usage: node host/cardtable_host/sim/vboard/board.mjs [options]

  --board NAME        board config firmware/boards/NAME.json (default pico-i2c-4seat)
  --game ID           play this game: the board's layout named ID, or its first layout for ID
  --layout NAME       play this layout of the board
  --flash DIR         host directory holding the board's flash: loaded at start, kept in
                      step with every change; filled from the firmware tree when empty
  --install           (re)install main.py, lib and boards from the firmware tree into the
                      flash, keeping the other files (journals); implied when it is empty
  --firmware DIR      the folder holding main.py and boards/ (default firmware/ of the checkout)
  --lib DIR           device package to install as /lib (default firmware/lib)
  --emu FILE          PN532 emulator module (default firmware/lib/cardtable/sim/pn532_emu.py)
  --heap SIZE         the heap the table may keep, as on a Pico (default 192k); the emulated
                      readers get their own share on top (20 KB + 1 KB per reader). A step
                      that begins with more in use raises a fault on the link.
  --headroom SIZE     room for one step's garbage on top (default 64k): this port collects
                      only between calls from JavaScript, a Pico whenever its heap is full
  --no-cap            let the heap grow (the port's default; for measuring)
  --period MS         milliseconds between ticks of the table's loop while nothing is under way
                      (default 1; it runs back to back while a card is read, a command answered
                      or a play journalled); 50 or more slows every tick
  --steps N           main.run() steps per tick (default 1)
  --control-fd N      the control channel (default 3 when open; -1: none)
  --repl              power up into the REPL without starting the table
  --stickers          while the table enrolls through a zone, lay a fresh blank sticker
                      there whenever the one on it has a card code (a person tagging a deck)
  --trace             report each boot stage and the heap on stderr

stdin/stdout: the board's USB serial. stderr: the bridge's own diagnostics.`;

const OK = 0;
const MORE = 2;
// Serial bytes the table's input holds at most (a Pico's CDC receive buffer is 256 bytes), and
// the bytes waiting here past which stdin is paused until the table has read them.
const SERIAL_ROOM = 256;
const SERIAL_BACKLOG = 16384;
const STOPPED = 3;
const SIM_DIR = '/.sim';
// Raw-paste flow-control window: half of MICROPY_REPL_STDIN_BUFFER_MAX (256), as pyexec.c.
const PASTE_WINDOW = 128;
const HIDE = new Set(['tmp', 'home', 'dev']);
const SYNC_MS = 50;
// A board left alone (nothing said, nothing asked, no card moved) ticks slower: after IDLE_AFTER_MS
// of quiet its loop runs every IDLE_MS at most (its readers still polled a few times a second),
// until the host or the table wakes it.
const IDLE_AFTER_MS = 3000;
const IDLE_MS = 50;
// After a request or serial bytes the loop runs back to back this long: time for the scanner to
// come round to a card just laid (then Controller.busy() holds the pace until it is reported).
const HURRY_MS = 20;
// A change on a reader is seen by the scanner within this many polls of it (place_polls /
// lift_polls + 1 of the controller's defaults).
const PLACE_POLLS = 3;
const LIFT_POLLS = 4;
// The emulated PN532's fault knobs a control request may set (pn532_emu.PN532Emu).
const KNOBS = ['mute', 'nacks', 'error_frames', 'corrupt', 'corrupt_len', 'slow_ms', 'collide', 'vanish_after'];
// Emscripten errno -> MicroPython (Linux) errno, for OSError messages shown to mpremote.
const ERRNO = new Map([[44, 2], [20, 17], [31, 21], [54, 20], [55, 39], [28, 22], [2, 13],
  [63, 1], [8, 9], [51, 28], [29, 5], [10, 16], [6, 11], [48, 12], [75, 18], [37, 36]]);

// Heap. The table must keep no more than a Pico's 192 KB alive. A step that ends with more than
// that in use asks for a collection, and the next step begins by checking what is left alive
// (below it, what is alive is below it too). The emulated PN532s share
// the heap, which a real board's readers do not, so the budget grows by what they take
// (emuAllowance in mp.mjs). The hard cap is the budget plus headroom for one step's garbage: the
// WebAssembly port cannot collect inside a call, where a Pico collects as soon as it is full.

const MACHINE_PY = `"""machine on the virtual board: only what mpremote and a REPL user need."""
import js


def reset():
    js.globalThis.cardtableBoard.request("reset")


def soft_reset():
    js.globalThis.cardtableBoard.request("soft_reset")


def bootloader():
    js.globalThis.cardtableBoard.request("reset")


def freq(hz=None):
    return 125000000


def unique_id():
    return b"\\xe6\\x61\\x38\\x52\\x83\\x2a\\x5d\\x2c"
`;

function parseArgs(argv) {
  const o = {
    board: null, game: null, layout: null, flash: null, install: false, lib: null, emu: null, firmware: null,
    heap: 192 * 1024, headroom: 64 * 1024, cap: true, period: 1, steps: 1, controlFd: null, repl: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new RunnerError(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '-h' || a === '--help') o.help = true;
    else if (a === '--board') o.board = val();
    else if (a === '--game') o.game = val();
    else if (a === '--layout') o.layout = val();
    else if (a === '--flash') o.flash = path.resolve(val());
    else if (a === '--install') o.install = true;
    else if (a === '--lib') o.lib = path.resolve(val());
    else if (a === '--firmware') o.firmware = path.resolve(val());
    else if (a === '--emu') o.emu = path.resolve(val());
    else if (a === '--heap') o.heap = parseSize(val());
    else if (a === '--headroom') o.headroom = parseSize(val());
    else if (a === '--no-cap') o.cap = false;
    else if (a === '--period') o.period = Number(val());
    else if (a === '--steps') o.steps = Math.max(1, Number(val()) | 0);
    else if (a === '--control-fd') o.controlFd = Number(val());
    else if (a === '--repl') o.repl = true;
    else if (a === '--trace') o.trace = true;
    else if (a === '--stickers') o.stickers = true;
    else throw new RunnerError(`unknown option ${a}`);
  }
  if (!(o.period >= 0)) throw new RunnerError('--period: expected milliseconds');
  return o;
}

// --- the flash image --------------------------------------------------------------------

// Every file of a host directory: Map of flash path ('/lib/x.py') -> Buffer.
function readTree(dir, base = '/', out = new Map()) {
  for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
    const src = path.join(dir, ent.name);
    const dst = path.posix.join(base, ent.name);
    if (ent.isDirectory()) {
      out.set(dst + '/', null);
      readTree(src, dst, out);
    } else if (ent.isFile()) out.set(dst, fs.readFileSync(src));
  }
  return out;
}

// The firmware tree as `cardtable flash` would lay it out on the board.
function firmwareFiles(o) {
  const fw = o.firmware || path.join(REPO_ROOT, 'firmware');
  const files = new Map();
  files.set('/main.py', fs.readFileSync(path.join(fw, 'main.py')));
  const lib = o.lib || path.join(fw, 'lib');
  const keep = (name) => /\.(py|mpy|json|txt|bin)$/.test(name);
  for (const [p, data] of readTree(lib, '/lib')) {
    // the simulated hardware (the PN532 emulator) is the sim's, never a board's
    if (p.includes('__pycache__') || p.startsWith('/lib/cardtable/sim/')) continue;
    if (data === null || keep(p)) files.set(p, data);
  }
  for (const [p, data] of readTree(path.join(fw, 'boards'), '/boards')) files.set(p, data);
  return files;
}

function boardJson(files, name) {
  const data = files.get(`/boards/${name}.json`);
  if (!data) {
    const names = [...files.keys()].filter((p) => /^\/boards\/[^/]+\.json$/.test(p))
      .map((p) => path.posix.basename(p, '.json'));
    throw new RunnerError(`no board ${name} (boards: ${names.join(', ') || 'none'})`);
  }
  return JSON.parse(data.toString());
}

function chooseLayout(board, game, layout) {
  const layouts = board.layouts || {};
  if (layout) {
    if (!layouts[layout]) throw new RunnerError(`board ${board.board} has no layout ${layout}`);
    return layout;
  }
  if (!game) return null;
  if (layouts[game]) return game;
  const names = Object.keys(layouts).sort().filter((n) => (layouts[n].game || n) === game);
  if (!names.length) {
    throw new RunnerError(`board ${board.board} has no layout for ${game} (layouts: ${Object.keys(layouts).sort().join(', ')})`);
  }
  return names[0];
}

// --- the board ----------------------------------------------------------------------------

class Board extends Control {
  constructor(o) {
    super();
    this.o = o;
    this.out = new FdWriter(1);
    this.mode = 'off';
    this.session = null;
    this.glue = null;
    this.files = null; // Map flash path -> Buffer: the flash while no MicroPython runs
    this.synced = new Map(); // flash path -> 'size:mtime' last mirrored to --flash
    this.cards = new Map(); // zone -> {uid, text, kind}: what lies on the table
    this.deadReaders = new Set();
    this.input = []; // serial bytes waiting to be handled (Buffers)
    this.serialIn = []; // serial bytes for the running table
    this.paused = false; // stdin paused: the host waits (flow control)
    this.ctrlC = 0; // Ctrl-C bytes held back at the start of the line (a stop, if a line end follows)
    this.lineFresh = true; // the table's line so far is nothing but Ctrl-C
    this.waits = []; // control replies waiting for polls
    this.deferred = []; // places waiting for their reader to be seen empty after a lift
    this.liftUntil = new Map(); // reader -> poll count by which its last lift is seen
    this.liftedUid = new Map(); // reader -> the uid of the card last lifted from it
    this.request = null; // 'reset' | 'soft_reset' from machine.*
    this.replOut = null; // REPL output being collected (byte array) or null
    this.raw = false;
    this.rawLen = 0;
    this.paste = 0; // bytes of the raw-paste request \x05 A \x01 seen so far
    this.pasting = null; // code bytes received in raw-paste mode, or null
    this.pasteWindow = 0; // bytes the host may still send before the next \x01
    this.lineEmpty = true;
    this.lastSync = 0;
    this.timer = null;
    this.booting = null;
    this.steps = 0;
    this.lastBusy = Date.now(); // when the board last said or was asked something
    this.hurryUntil = 0; // the loop runs back to back until then (wake())
    this.written = 0; // serial bytes the board has printed
    this.boardInfo = null;
    globalThis.cardtableBoard = { request: (kind) => { this.request = kind; } };
  }

  // -- files ---------------------------------------------------------------------------

  loadFlash() {
    const o = this.o;
    let files = new Map();
    let empty = true;
    if (o.flash) {
      fs.mkdirSync(o.flash, { recursive: true });
      files = readTree(o.flash);
      empty = ![...files.values()].some((d) => d !== null);
    }
    if (empty || o.install) {
      for (const [p, data] of firmwareFiles(o)) {
        if (o.install && (p === '/main.py' || p.startsWith('/lib/') || p.startsWith('/boards/'))) files.set(p, data);
        else if (!files.has(p)) files.set(p, data);
      }
      if (o.install) {
        // Library files the firmware tree no longer has would still import: drop them.
        const fresh = firmwareFiles(o);
        for (const p of [...files.keys()]) if (p.startsWith('/lib/') && !fresh.has(p)) files.delete(p);
      }
    }
    let cfg = {};
    if (files.get('/config.json')) {
      try { cfg = JSON.parse(files.get('/config.json').toString()); } catch { cfg = {}; }
    }
    if (o.board || o.game || o.layout || !files.get('/config.json')) {
      const name = o.board || cfg.board || 'pico-i2c-4seat';
      const board = boardJson(files, name);
      const layout = chooseLayout(board, o.game, o.layout) || (o.board && o.board !== cfg.board ? null : cfg.layout);
      cfg = { ...cfg, board: name };
      if (layout) cfg.layout = layout;
      else delete cfg.layout;
      files.set('/config.json', Buffer.from(JSON.stringify(cfg)));
    }
    this.files = files;
    if (o.flash) this.mirrorFiles(files);
  }

  boardConfig() {
    let cfg = {};
    try { cfg = JSON.parse(this.readFile('/config.json').toString()); } catch { cfg = {}; }
    try {
      return boardJson(new Map([[`/boards/${cfg.board}.json`, this.readFile(`/boards/${cfg.board}.json`)]]), cfg.board);
    } catch {
      return null;
    }
  }

  readFile(p) {
    if (this.session) return Buffer.from(this.session.mp.FS.readFile(p));
    const d = this.files.get(p);
    if (!d) throw new Error(`no ${p}`);
    return d;
  }

  // Every path of the flash in MEMFS with its stat, a folder before what it holds (not SIM_DIR).
  *flashPaths(dir = '/') {
    const FS = this.session.mp.FS;
    for (const name of FS.readdir(dir)) {
      if (name === '.' || name === '..') continue;
      const p = path.posix.join(dir, name);
      if (p === SIM_DIR) continue;
      const st = FS.stat(p);
      yield [p, st, FS.isDir(st.mode)];
      if (FS.isDir(st.mode)) yield* this.flashPaths(p);
    }
  }

  // The flash as it is in MEMFS now.
  snapshot() {
    const FS = this.session.mp.FS;
    const out = new Map();
    for (const [p, , dir] of this.flashPaths()) {
      out.set(dir ? p + '/' : p, dir ? null : Buffer.from(FS.readFile(p)));
    }
    return out;
  }

  // Mirror MEMFS (or a file map) to the --flash directory: changed files only.
  syncFlash(force = false, verify = false) {
    if (!this.o.flash || !this.session) return;
    const now = Date.now();
    if (!force && now - this.lastSync < SYNC_MS) return;
    this.lastSync = now;
    const FS = this.session.mp.FS;
    const seen = new Set();
    for (const [p, st, dir] of this.flashPaths()) {
      const host = path.join(this.o.flash, p);
      if (dir) {
        seen.add(p + '/');
        if (!this.synced.has(p + '/')) {
          fs.mkdirSync(host, { recursive: true });
          this.synced.set(p + '/', 'dir');
        }
        continue;
      }
      seen.add(p);
      const key = `${st.size}:${st.mtime.getTime()}`;
      if (this.synced.get(p) !== key) {
        const data = FS.readFile(p);
        let same = false;
        if (verify) {
          try { same = Buffer.from(data).equals(fs.readFileSync(host)); } catch { same = false; }
        }
        if (!same) {
          fs.mkdirSync(path.dirname(host), { recursive: true });
          fs.writeFileSync(host, data);
        }
        this.synced.set(p, key);
      }
    }
    const gone = [...this.synced.keys()].filter((p) => !seen.has(p)).sort().reverse();
    for (const p of gone) {
      const host = path.join(this.o.flash, p);
      try {
        if (p.endsWith('/')) fs.rmSync(host, { recursive: true, force: true });
        else fs.rmSync(host, { force: true });
      } catch { /* already gone */ }
      this.synced.delete(p);
    }
  }

  mirrorFiles(files) {
    const want = new Set(files.keys());
    for (const [p] of readTree(this.o.flash)) {
      if (!want.has(p)) fs.rmSync(path.join(this.o.flash, p), { recursive: true, force: true });
    }
    for (const [p, data] of files) {
      const host = path.join(this.o.flash, p);
      if (data === null) fs.mkdirSync(host, { recursive: true });
      else {
        fs.mkdirSync(path.dirname(host), { recursive: true });
        const old = fs.existsSync(host) ? fs.readFileSync(host) : null;
        if (!old || !old.equals(data)) fs.writeFileSync(host, data);
      }
    }
  }

  // -- power ---------------------------------------------------------------------------

  // Start a fresh MicroPython on the current flash: the table (table=true) or the REPL.
  // hard: a power cycle or reset, which a USB host sees as the port going away: serial
  // bytes sent until the new MicroPython is up are lost.
  powerOn({ table = true, raw = false, hard = false } = {}) {
    if (hard) this.input = [];
    this.hardBoot = hard;
    const run = async () => {
      this.stopTable();
      this.failWaits('the board restarted');
      if (this.session) {
        this.syncFlash(true);
        this.files = this.snapshot();
      }
      this.session = null;
      this.glue = null;
      this.setMode('boot');
      this.boardInfo = this.boardConfig();
      const emulating = table && fs.existsSync(this.emuPath());
      this.budget = this.o.heap + (emulating ? emuAllowance(this.boardInfo?.readers?.length || 0) : 0);
      this.heapSize = this.budget + (table ? this.o.headroom : 0);
      nextInstance(); // every power-on loads a fresh MicroPython into this process
      const session = await loadMicroPython({
        heap: this.heapSize, cap: this.o.cap, stdin: () => null,
        stdout: { byte: (c) => this.outByte(c), flush: () => this.outFlush(), write: (d) => this.outWrite(d) },
        stderr: { byte: (c) => this.outByte(c), flush: () => this.outFlush(), write: (d) => this.outWrite(d) },
      });
      this.session = session;
      this.synced = new Map();
      const FS = session.mp.FS;
      for (const d of HIDE) this.rmTree(FS, '/' + d);
      for (const d of ['/proc/self/fd', '/proc/self', '/proc']) {
        try { FS.rmdir(d); } catch { /* not there */ }
      }
      for (const [p, data] of this.files) {
        if (data === null) memfsMkdirs(FS, p);
        else {
          memfsMkdirs(FS, path.posix.dirname(p));
          FS.writeFile(p, data);
        }
      }
      this.syncFlash(true, true);
      this.files = null;
      this.installGlue(table);
      if (table) this.bootTable();
      else {
        this.hideGlue();
        this.enterRepl({ raw, banner: !raw });
      }
    };
    this.booting = run().catch((e) => {
      process.stderr.write(`board.mjs: power-on failed: ${e.stack || e}\n`);
      process.exit(1);
    }).finally(() => {
      this.booting = null;
      this.pump();
    });
    return this.booting;
  }

  rmTree(FS, p) {
    if (!FS.analyzePath(p).exists) return;
    const st = FS.lstat(p);
    if (FS.isDir(st.mode)) {
      for (const n of FS.readdir(p)) if (n !== '.' && n !== '..') this.rmTree(FS, `${p}/${n}`);
      FS.rmdir(p);
    } else FS.unlink(p);
  }

  emuPath() {
    return this.o.emu || path.join(REPO_ROOT, 'firmware', 'lib', 'cardtable', 'sim', 'pn532_emu.py');
  }

  installGlue(table) {
    const { mp } = this.session;
    const FS = mp.FS;
    memfsMkdirs(FS, SIM_DIR);
    FS.writeFile(`${SIM_DIR}/boardglue.py`, fs.readFileSync(path.join(TOOLS_DIR, 'boardglue.py')));
    const emu = this.emuPath();
    const haveEmu = table && fs.existsSync(emu);
    if (haveEmu) FS.writeFile(`${SIM_DIR}/pn532_emu${path.extname(emu)}`, fs.readFileSync(emu));
    // The simulated hardware's own modules are host only, never on a flash `cardtable flash`
    // wrote: the glue takes them from here when the flash lacks them.
    const lib = path.join(this.o.lib || path.join(REPO_ROOT, 'firmware', 'lib'), 'cardtable');
    for (const name of ['hw_sim', 'simboot']) {
      const file = ['.mpy', '.py'].map((ext) => path.join(lib, name + ext)).find((f) => fs.existsSync(f));
      if (file) FS.writeFile(`${SIM_DIR}/_sim_${name}${path.extname(file)}`, fs.readFileSync(file));
    }
    mp.runPython(`import sys\nsys.path.clear()\nsys.path.extend(['${SIM_DIR}', '', '.frozen', '/lib'])\nimport boardglue\n`);
    this.glue = mp.pyimport('boardglue');
    this.glue.shim_vfs();
    const kinds = new Set(Object.values(this.boardInfo?.buses || {}).map((b) => b.kind));
    this.glue.begin(haveEmu ? 1 : 0, [...kinds].join(','));
    this.glue.set_budget(this.o.cap ? this.budget : 0);
    this.glue.set_stickers(this.o.stickers ? 1 : 0);
    this.glue.preset_dead([...this.deadReaders].join(','));  // cut cables stay cut
    this.haveEmu = haveEmu;
  }

  // The Pico's sys.path, the sim's own modules out of sight.
  hideGlue() {
    const { mp } = this.session;
    mp.runPython("import sys\nif sys.path and sys.path[0] == '/.sim':\n    sys.path.pop(0)\n");
    this.rmTree(mp.FS, SIM_DIR);
  }

  bootTable() {
    const g = this.glue;
    let st = MORE;
    while (st === MORE) {
      st = g.stage();
      if (this.o.trace) process.stderr.write(`board.mjs: boot stage ${g.stage_name()} -> ${st}, heap ${g.heap()}\n`);
    }
    this.hideGlue();
    this.outFlush();
    if (st === OK) {
      for (const [zone, c] of this.cards) g.place(zone, c.uid, c.text, String(c.kind));
      this.steps = 0;
      this.lastBusy = Date.now(); // a table just started is busy
      this.setMode('table');
      this.scheduleTick(0);
      return;
    }
    g.boot_report(st === STOPPED ? 1 : 0);
    this.outFlush();
    this.enterRepl({ raw: false, banner: true });
  }

  stopTable() {
    if (this.timer?.immediate) clearImmediate(this.timer.immediate);
    else if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  scheduleTick(ms = this.o.period) {
    this.stopTable();
    if (ms > 0) this.timer = setTimeout(() => this.tick(), ms);
    else this.timer = { immediate: setImmediate(() => this.tick()) };
  }

  tick() {
    this.timer = null;
    if (this.mode !== 'table') return;
    const g = this.glue;
    const said = this.written;
    const asked = this.serialIn.length > 0 || this.waits.length > 0 || this.deferred.length > 0;
    if (this.serialIn.length) this.feedTable();
    const st = g.step(this.o.steps);
    this.steps += this.o.steps;
    this.outFlush();
    if (st !== OK && st !== MORE) {
      g.report();
      this.outFlush();
      this.enterRepl({ raw: false, banner: true });
      return;
    }
    this.checkDeferred();
    this.checkWaits();
    this.syncFlash();
    const now = Date.now();
    if (asked || this.written !== said) this.lastBusy = now;
    this.scheduleTick(this.pace(st === MORE || this.waits.length > 0 || this.deferred.length > 0
      || this.serialIn.length > 0 || now < this.hurryUntil));
  }

  // As much of the waiting serial input as the table's input has room for (flow control).
  feedTable() {
    const data = this.serialIn.length === 1 ? this.serialIn[0] : Buffer.concat(this.serialIn);
    const took = this.glue.feed(data.subarray(0, SERIAL_ROOM).toString('hex'));
    const n = typeof took === 'number' && took > 0 ? Math.min(took, data.length) : 0;
    this.serialIn = n < data.length ? [data.subarray(n)] : [];
    this.flow();
  }

  // Flow control: stdin pauses while more than SERIAL_BACKLOG bytes wait here (the host's
  // writes then wait on the pty), and reads again once the table has taken most of them.
  flow() {
    let n = 0;
    for (const b of this.input) n += b.length;
    for (const b of this.serialIn) n += b.length;
    if (!this.paused && n > SERIAL_BACKLOG) {
      this.paused = true;
      process.stdin.pause();
    } else if (this.paused && n < SERIAL_BACKLOG / 4) {
      this.paused = false;
      process.stdin.resume();
    }
  }

  // Milliseconds to the next tick. A Pico's loop never sleeps; this one runs back to back while
  // work is under way (a card being read, a command, a journal flush, a request waiting for
  // polls), else every --period ms, and every IDLE_MS once resting. A period of IDLE_MS or more
  // slows every tick: the board paused on purpose.
  pace(underWay) {
    const p = this.o.period;
    if (p >= IDLE_MS) return p;
    if (underWay) return 0;
    return this.resting() ? IDLE_MS : p;
  }

  resting() {
    return Date.now() - this.lastBusy > IDLE_AFTER_MS;
  }

  // Something happened (serial bytes, a control request): the loop runs back to back a while.
  wake() {
    this.lastBusy = Date.now();
    this.hurryUntil = this.lastBusy + HURRY_MS;
    if (this.mode === 'table' && this.timer && !this.timer.immediate) this.scheduleTick(this.pace(true));
  }

  // -- the serial ------------------------------------------------------------------------

  outByte(c) {
    this.written += 1;
    if (this.replOut) this.replOut.push(c);
    else this.out.byte(c);
  }

  outWrite(d) {
    const b = typeof d === 'string' ? Buffer.from(d) : d;
    this.written += b.length;
    if (this.replOut) for (const c of b) this.replOut.push(c);
    else this.out.write(b);
  }

  outFlush() {
    if (this.replOut && this.replOut.length) {
      let text = Buffer.from(this.replOut).toString('latin1');
      this.replOut = [];
      text = text.replace(/OSError: (\d+)/g, (m, n) => `OSError: ${ERRNO.get(Number(n)) ?? n}`)
        .replace(/\[Errno (\d+)\]/g, (m, n) => `[Errno ${ERRNO.get(Number(n)) ?? n}]`);
      this.out.write(Buffer.from(text, 'latin1'));
    }
    this.out.flush();
  }

  onSerial(data) {
    if (this.booting && this.hardBoot) return;
    if (this.mode === 'off') return;
    this.input.push(data);
    this.wake();
    this.pump();
  }

  // Hand waiting serial bytes to the table or the REPL; stops while a MicroPython boots.
  pump() {
    while (this.input.length && !this.booting) {
      const chunk = this.input.shift();
      if (this.mode === 'table') {
        const rest = this.tableInput(chunk);
        if (rest === null) continue;
        this.interrupt();
        if (rest.length) this.input.unshift(rest);
      } else if (this.mode === 'repl') {
        const rest = this.replInput(chunk);
        if (rest && rest.length) this.input.unshift(rest);
      } else {
        // off, boot or stopped: bytes sent to a board that is not listening are lost
      }
    }
    this.flow();
  }

  // Bytes for the running table, Ctrl-C among them as data, but for a line of nothing but
  // Ctrl-C: null, or what follows that line's end when it stops the table (for the REPL).
  tableInput(chunk) {
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (c === 0x03 && this.lineFresh) {  // held back until the line shows what it is
        if (i > from) this.serialIn.push(chunk.subarray(from, i));
        this.ctrlC += 1;
        from = i + 1;
      } else if (c === 13 || c === 10) {
        if (this.ctrlC > 0) {  // the deliberate stop: its line end goes with it
          this.ctrlC = 0;
          return chunk.subarray(i + 1);
        }
        this.lineFresh = true;
      } else {
        if (this.ctrlC > 0) {  // Ctrl-C in a line of something else: data, in its place
          if (i > from) this.serialIn.push(chunk.subarray(from, i));
          this.serialIn.push(Buffer.alloc(this.ctrlC, 0x03));
          this.ctrlC = 0;
          from = i;
        }
        this.lineFresh = false;
      }
    }
    if (from < chunk.length) this.serialIn.push(chunk.subarray(from));
    return null;
  }

  interrupt() {
    this.stopTable();
    this.serialIn = [];
    this.ctrlC = 0;
    this.lineFresh = true;
    this.glue.interrupt();  // as main.py takes a KeyboardInterrupt: a word, then the REPL
    this.outFlush();
    this.enterRepl({ raw: false, banner: true });
  }

  enterRepl({ raw, banner }) {
    this.stopTable();
    this.failWaits('the table stopped');
    const { mp } = this.session;
    const FS = mp.FS;
    memfsMkdirs(FS, SIM_DIR);
    FS.writeFile(`${SIM_DIR}/machine.py`, MACHINE_PY);
    mp.runPython(`import sys\nsys.path.insert(0, '${SIM_DIR}')\ntry:\n    import machine\nfinally:\n    sys.path.pop(0)\n`);
    this.rmTree(FS, SIM_DIR);
    this.replOut = banner ? null : [];
    mp.replInit();
    this.replOut = [];
    this.raw = false;
    this.lineEmpty = true;
    this.paste = 0;
    this.pasting = null;
    if (raw) this.replChar(0x01);
    this.outFlush();
    this.setMode('repl');
  }

  replChar(c) {
    if (c === 0x01) {
      this.raw = true;
      this.rawLen = 0;
    } else if (c === 0x02) {
      this.raw = false;
      this.lineEmpty = true;
    } else if (this.raw) {
      if (c === 0x04) this.rawLen = 0;
      else if (c !== 0x03) this.rawLen += 1;
    } else if (c === 13 || c === 10 || c === 0x03) this.lineEmpty = true;
    else if (c >= 32) this.lineEmpty = false;
    return this.session.mp.replProcessChar(c);
  }

  // Feed REPL bytes; returns the bytes left over when the board rebooted part-way.
  replInput(chunk) {
    this.replOut = this.replOut || [];
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      let pasted = false;
      if (this.pasting) {
        // Raw-paste mode as MicroPython's pyexec.c: a window of PASTE_WINDOW bytes at a
        // time, \x01 for each next one; \x04 (or Ctrl-C) ends the code and is answered \x04.
        if (c !== 0x04 && c !== 0x03) {
          this.pasting.push(c);
          if (--this.pasteWindow === 0) {
            this.outWrite(Buffer.from([0x01]));
            this.pasteWindow = PASTE_WINDOW;
          }
          continue;
        }
        this.outWrite(Buffer.from([0x04]));
        const code = this.pasting;
        this.pasting = null;
        if (c === 0x03) continue;
        for (const b of code) this.replChar(b);
        pasted = true;  // the raw REPL's "OK" is not said in raw-paste mode
      } else if (this.raw && this.rawLen === 0 && (this.paste > 0 || c === 0x05)) {
        const want = [0x05, 0x41, 0x01][this.paste];
        if (c === want) {
          this.paste += 1;
          if (this.paste === 3) {
            this.paste = 0;
            this.pasting = [];
            this.pasteWindow = PASTE_WINDOW;
            this.outWrite(Buffer.from([0x52, 0x01, PASTE_WINDOW & 0xff, PASTE_WINDOW >> 8, 0x01]));
          }
          continue;
        }
        const held = [0x05, 0x41].slice(0, this.paste);
        this.paste = 0;
        for (const h of held) this.replChar(h);
      }
      const okAt = pasted ? this.replOut.length : -1;
      const softRaw = this.raw && c === 0x04 && this.rawLen === 0;
      const softFriendly = !this.raw && c === 0x04 && this.lineEmpty;
      if (softFriendly) {
        this.outWrite('MPY: soft reboot\r\n');
        this.outFlush();
        this.powerOn({ table: true });
        return chunk.subarray(i + 1);
      }
      this.replChar(c);
      if (okAt >= 0 && this.replOut && this.replOut[okAt] === 0x4f && this.replOut[okAt + 1] === 0x4b) {
        this.replOut.splice(okAt, 2);
      }
      if (softRaw) {
        // The raw REPL said OK; a board reboots and, in raw mode, does not run main.py.
        this.outWrite('MPY: soft reboot\r\n');
        this.outFlush();
        this.powerOn({ table: false, raw: true });
        return chunk.subarray(i + 1);
      }
      if (this.request) {
        const kind = this.request;
        this.request = null;
        this.outFlush();
        if (kind === 'reset') {
          this.powerOn({ table: true, hard: true });
          return null;
        }
        this.outWrite('MPY: soft reboot\r\n');
        this.outFlush();
        this.powerOn({ table: !this.raw, raw: this.raw });
        return chunk.subarray(i + 1);
      }
    }
    this.outFlush();
    this.syncFlash(true);
    return null;
  }

  setMode(mode) {
    if (this.mode === mode) return;
    this.mode = mode;
    if (mode === 'table') {  // a fresh line on the table's serial
      this.ctrlC = 0;
      this.lineFresh = true;
    }
    if (mode !== 'boot') this.notify({ event: 'mode', mode });
  }

  // -- the control channel ----------------------------------------------------------------

  readerOf(req) {
    const b = this.boardInfo;
    if (req.zone !== undefined) {
      const z = b?.zones?.[req.zone];
      if (!z) throw new RunnerError(`no zone ${JSON.stringify(req.zone)} on ${b?.board} (zones: ${Object.keys(b?.zones || {}).sort().join(', ')})`);
      return z.reader;
    }
    const n = Number(req.reader);
    if (!Number.isInteger(n) || n < 0 || n >= (b?.readers?.length || 0)) {
      throw new RunnerError(`no reader ${JSON.stringify(req.reader)} (readers 0..${(b?.readers?.length || 1) - 1})`);
    }
    return n;
  }

  zoneOf(reader) {
    const zones = this.boardInfo?.zones || {};
    return Object.keys(zones).find((z) => zones[z].reader === reader);
  }

  running() {
    return this.mode === 'table' && this.haveEmu;
  }

  applyPlace(req, reader, zone, card) {
    if (this.glue.place(zone, card.uid, card.text, String(card.kind)) !== OK) {
      this.glue.report();
      this.outFlush();
    }
    this.waitPolls(req, reader, PLACE_POLLS);
  }

  // Forget a place still waiting for its reader to be seen empty; true if there was one.
  dropDeferred(reader) {
    const keep = [];
    let dropped = false;
    for (const d of this.deferred) {
      if (d.reader === reader) {
        this.reply(d.req, { placed: false });
        dropped = true;
      } else keep.push(d);
    }
    this.deferred = keep;
    return dropped;
  }

  checkDeferred() {
    if (!this.deferred.length) return;
    const left = [];
    for (const d of this.deferred) {
      if (this.glue.polls(d.reader) >= (this.liftUntil.get(d.reader) || 0) || this.deadReaders.has(d.reader)) {
        this.applyPlace(d.req, d.reader, d.zone, d.card);
      } else left.push(d);
    }
    this.deferred = left;
  }

  waitPolls(req, reader, n) {
    if (!req.wait || !this.running()) {
      this.reply(req);
      return;
    }
    this.waits.push({ req, reader, until: this.glue.polls(reader) + n, t0: Date.now() });
  }

  checkWaits() {
    if (!this.waits.length) return;
    const left = [];
    for (const w of this.waits) {
      if (this.glue.polls(w.reader) >= w.until) this.reply(w.req);
      else if (this.deadReaders.has(w.reader) || Date.now() - w.t0 > 10000) this.reply(w.req, { seen: false });
      else left.push(w);
    }
    this.waits = left;
  }

  failWaits(why) {
    for (const w of this.waits) this.reply(w.req, { seen: false, note: why });
    for (const d of this.deferred) this.reply(d.req, { seen: false, note: why });
    this.waits = [];
    this.deferred = [];
    this.liftUntil = new Map();
    this.liftedUid = new Map();
  }

  onControl(req) {
    this.wake();
    try {
      this.handle(req);
    } catch (e) {
      if (e instanceof RunnerError) this.fail(req, e.message);
      else this.fail(req, String(e.stack || e));
    }
  }

  handle(req) {
    const op = req.op;
    if (this.booting && !['status', 'quit', 'powercut', 'sync'].includes(op)) {
      this.booting.then(() => this.onControl(req));
      return;
    }
    const g = this.glue;
    switch (op) {
      case 'place': {
        const reader = this.readerOf(req);
        const zone = this.zoneOf(reader);
        const kind = req.kind ?? 213;
        const uid = String(req.uid || '').toLowerCase();
        if (!/^[0-9a-f]+$/.test(uid) || ![8, 14, 20].includes(uid.length)) throw new RunnerError('uid: 4, 7 or 10 bytes in hex');
        if ([213, 215, 216].includes(kind) && uid.length !== 14) throw new RunnerError('an NTAG has a 7-byte uid');
        const card = { uid, text: req.text ?? null, kind };
        this.cards.set(zone, card);
        this.dropDeferred(reader);
        if (!this.running()) {
          this.reply(req);
          return;
        }
        // The card lifted from this reader a moment ago, laid again: once the firmware has
        // seen the reader empty, or it would see nothing happen. Another card goes down at
        // once, as a quick hand swaps cards: the scanner reports the lift, then this card.
        if (this.liftedUid.get(reader) === uid && g.polls(reader) < (this.liftUntil.get(reader) || 0)) {
          this.deferred.push({ req, reader, zone, card });
          return;
        }
        this.applyPlace(req, reader, zone, card);
        return;
      }
      case 'lift': {
        const reader = this.readerOf(req);
        const zone = this.zoneOf(reader);
        const old = this.cards.get(zone);
        const had = this.cards.delete(zone);
        const dropped = this.dropDeferred(reader);
        if (!had || dropped) {
          this.reply(req, { lifted: had && !dropped });
          return;
        }
        if (this.running()) {
          g.lift(zone);
          this.liftUntil.set(reader, g.polls(reader) + LIFT_POLLS);
          this.liftedUid.set(reader, old.uid);
        }
        this.waitPolls(req, reader, LIFT_POLLS);
        return;
      }
      case 'press': {
        const buttons = this.boardInfo?.buttons || {};
        if (!buttons[req.button]) throw new RunnerError(`no button ${JSON.stringify(req.button)} (buttons: ${Object.keys(buttons).sort().join(', ') || 'none'})`);
        if (this.mode === 'table') g.press(req.button);
        this.reply(req, { seen: this.mode === 'table' });
        return;
      }
      case 'turn': {
        if (this.mode === 'table') g.turn(req.encoder, Number(req.steps) | 0);
        this.reply(req, { seen: this.mode === 'table' });
        return;
      }
      case 'stack': {
        const reader = this.readerOf(req);
        const zone = this.zoneOf(reader);
        const uid = String(req.uid || '').toLowerCase();
        if (!/^[0-9a-f]{14}$/.test(uid)) throw new RunnerError('uid: an NTAG has a 7-byte uid (14 hex digits)');
        if (!this.running()) {
          this.reply(req);
          return;
        }
        if (g.stack(zone, uid, req.text ?? null) !== OK) {
          g.report();
          this.outFlush();
        }
        this.waitPolls(req, reader, PLACE_POLLS);
        return;
      }
      case 'knob': {
        const reader = this.readerOf(req);
        if (!KNOBS.includes(req.name)) throw new RunnerError(`no knob ${JSON.stringify(req.name)} (knobs: ${KNOBS.join(', ')})`);
        if (this.running() && g.knob(reader, req.name, req.value) !== OK) {
          g.report();
          this.outFlush();
        }
        this.reply(req, { reader, zone: this.zoneOf(reader) });
        return;
      }
      case 'kill':
      case 'revive': {
        const reader = this.readerOf(req);
        if (op === 'kill') this.deadReaders.add(reader);
        else this.deadReaders.delete(reader);
        if (this.running()) g.dead(reader, op === 'kill' ? 1 : 0);
        this.reply(req, { reader, zone: this.zoneOf(reader) });
        return;
      }
      case 'reset':
        this.powerOn({ table: !req.repl, hard: true }).then(() => this.reply(req, { mode: this.mode }));
        return;
      case 'powercut': {
        // Power gone at once: no Ctrl-C, no last sync; MEMFS keeps what was written, as
        // littlefs keeps what was flushed. Back after off_ms unless off_ms < 0.
        this.stopTable();
        this.failWaits('power cut');
        const off = Number(req.off_ms ?? 0);
        if (this.session) this.files = this.snapshot();
        this.session = null;
        this.glue = null;
        this.setMode('off');
        this.reply(req);
        if (off >= 0) setTimeout(() => this.powerOn({ table: true, hard: true }), off);
        return;
      }
      case 'status': {
        const heap = this.mode === 'table' ? g.heap() : null;
        const [liveMax, peak, over] = this.mode === 'table' ? g.heap_stats().split(',').map(Number) : [null, null, null];
        this.reply(req, {
          mode: this.mode, steps: this.steps, heap, heap_live_max: liveMax, heap_peak: peak,
          heap_budget: this.budget, heap_over: over, heap_cap: this.o.cap ? this.heapSize : null,
          board: this.boardInfo?.board ?? null,
          cards: Object.fromEntries([...this.cards].map(([z, c]) => [z, c.text])),
          dead: [...this.deadReaders], emulated: !!this.haveEmu,
        });
        return;
      }
      case 'pixels': {
        const text = this.mode === 'table' ? g.pixels() : '';
        this.reply(req, { pixels: text ? text.split(';').map((t) => t.split(',').map(Number)) : [] });
        return;
      }
      case 'tones': {
        const text = this.mode === 'table' ? g.tones() : '';
        this.reply(req, { tones: text ? text.split(',').map(Number) : [] });
        return;
      }
      case 'sync':
        this.syncFlash(true);
        this.reply(req);
        return;
      case 'period': {
        const ms = Number(req.ms);
        if (!(ms >= 0)) throw new RunnerError('period: ms >= 0');
        this.o.period = ms;
        if (this.timer) this.scheduleTick(); // from now: a tick already due at the old period waits too
        this.reply(req, { ms });
        return;
      }
      case 'quit':
        this.syncFlash(true);
        this.reply(req);
        this.quit(0);
        return;
      default:
        throw new RunnerError(`unknown op ${JSON.stringify(op)}`);
    }
  }

  quit(code) {
    this.stopTable();
    try { this.outFlush(); } catch { /* the reader is gone */ }
    this.exit(code);
  }
}

async function main() {
  const o = commandLine(parseArgs, 'board.mjs', USAGE);
  if (typeof o === 'number') return o;
  const board = new Board(o);
  try {
    board.loadFlash();
  } catch (e) {
    if (!(e instanceof RunnerError)) throw e;
    process.stderr.write(`board.mjs: ${e.message}\n`);
    return 2;
  }
  connect(board, o.controlFd, (data) => board.onSerial(data));
  await board.powerOn({ table: !o.repl });
  return null;
}

const code = await main();
if (code !== null) process.exit(code);
