#!/usr/bin/env node
// The rp2 board: a Raspberry Pi Pico emulated at the chip level (rp2040js) running a real
// MicroPython rp2 image, its USB serial on this process's stdin/stdout.
// host/cardtable_host/sim/rp2board.py puts that on a pty.
//
// - The flash: one 2 MB file (--flash), the chip's whole flash as a new chip would find it;
//   kept in step with every erase/program. --image writes a UF2's blocks over it at power-on,
//   as dropping the UF2 on the RPI-RP2 drive would (the filesystem above the image is kept).
// - Resets: machine.reset() and the watchdog stop the chip; a new chip boots from the same
//   flash (the watchdog's reason and scratch registers carried, as on the RP2040).
// - Pins, from --board (a firmware/boards config): buttons idle high and are held low by
//   `press`; the LED chain's data pin is decoded (`pixels`); the piezo's PWM (`tone`).
// - Devices (--device MODULE, repeatable): a module whose default export is
//   `(board) => ({powerOn(chip) {...}, ops: {name(req) {...}}})`. powerOn is called for every
//   new chip, before it runs (hook the I2C/SPI blocks there: chip.mcu.i2c[n].onStart / onConnect
//   / onWriteByte / onReadByte / onStop and their complete* calls, chip.watchPin, chip.drive);
//   each op answers control requests of that name (place, lift, kill, ...): it returns the
//   reply's fields, or a Promise of them; throwing an Error fails the request with its message.
//   board.config is the board JSON, board.chip the chip now, board.after(ns, fn) runs fn
//   once the emulated clock has moved ns on (across resets: dropped).
// - Time: emulated time never runs ahead of wall time by more than --speed (1: real time;
//   0: no limit, for tests and measurements). A busy chip is slower than that anyway.
// - The control channel (--control-fd, default 3 when open): JSON lines in, one reply per
//   request ({"id": ..., "ok": true, ...} | {"id": ..., "ok": false, "error": "..."}), and
//   unsolicited {"event": "mode", "mode": "table" | "repl" | "stopped"} lines (told from the
//   serial output: a link message, or a REPL prompt).
//   Requests: reset {repl}, powercut {off_ms, in_ns | op_kind: "erase" | "program", frac, skip,
//   reboot: {in_ns | op_kind, frac, skip}} (reboot: cut the chip that boots next again, before
//   its table is up; the reply comes once that cut fell, reboot_at_ns, or missed, null),
//   record {on} (on: keep a FlashLog of this chip's play; off: stop it, reply its ops and
//   serial lines), restore {upto, cut_ns, reboot} (the power goes, and a new chip boots from the
//   flash the record says a cut cut_ns into operation upto leaves - null: before it starts;
//   reboot as for powercut, the reply then waiting for that cut; off: no new chip, the flash
//   saved), profile {on, callers}
//   (off: the cycles the chip spent at each PC since on, and who called the `callers` addresses),
//   peek {addr, len} (the chip's memory, hex), press {button, hold_ms},
//   hold {button, down}, pixels, tone, status, sync, quit, and the devices' ops.
// - Lockstep (--lockstep, lockstep.mjs): once the table runs, the chip pauses after every line
//   it sends until the host says go {lines, serial, until_ns}; held {} answers at the pause.
//   The emulated clock then moves only with the chip's own work, never while the host thinks.

import fs from 'node:fs';
import path from 'node:path';
import { Control, connect, writeAll } from '../boardio.mjs';
import { Chip, bootromWords, flashFromUF2, FLASH_SIZE } from './chip.mjs';
import { FlashLog } from './flashlog.mjs';
import { Lockstep } from './lockstep.mjs';
import { Buttons, Ws2812 } from './parts.mjs';

const USAGE = `usage: node host/cardtable_host/sim/rp2/board.mjs --bootrom FILE (--image UF2 | --flash FILE) [options]

  --bootrom FILE    the RP2040 B1 bootrom (little-endian 32-bit words)
  --image UF2       firmware to write into the flash at power-on
  --flash FILE      the flash (2 MB), loaded at start and kept in step; created when missing
  --board FILE      the board config (firmware/boards/NAME.json): pins of buttons, LEDs, piezo
  --device MODULE   a peripheral module (see the header of this file); repeatable
  --speed X         emulated time at most X times wall time (default 1; 0: no limit)
  --control-fd N    the control channel (default 3 when open; -1: none)
  --repl            power up into the REPL (Ctrl-C until the prompt shows)
  --lockstep        once the table runs, pause after every USB line until the host says go
  --trace           boot stages, resets and flash operations on stderr

stdin/stdout: the board's USB serial. stderr: diagnostics.`;

const SLICE_CYCLES = 250000; // cycles between looks at I/O (~2 ms emulated)
const SYNC_MS = 200;
const PRESS_MS = 120; // a press outlasts the firmware's 25 ms debounce and a loop period
const TAIL = 256;
const LINE_LOG = 512; // USB lines kept with their emulated times
const LINE_TEXT = 200; // characters of each kept
const TABLE_OPS = new Set(['place', 'lift', 'kill', 'revive', 'turn']); // the readers' and encoders' devices

class UsageError extends Error {}

function parseArgs(argv) {
  const o = { bootrom: null, image: null, flash: null, board: null, devices: [], speed: 1, controlFd: null, repl: false, trace: false, lockstep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '-h' || a === '--help') o.help = true;
    else if (a === '--bootrom') o.bootrom = path.resolve(val());
    else if (a === '--image') o.image = path.resolve(val());
    else if (a === '--flash') o.flash = path.resolve(val());
    else if (a === '--board') o.board = path.resolve(val());
    else if (a === '--device') o.devices.push(path.resolve(val()));
    else if (a === '--speed') o.speed = Number(val());
    else if (a === '--control-fd') o.controlFd = Number(val());
    else if (a === '--repl') o.repl = true;
    else if (a === '--trace') o.trace = true;
    else if (a === '--lockstep') o.lockstep = true;
    else throw new UsageError(`unknown option ${a}`);
  }
  if (!o.help) {
    if (!o.bootrom) throw new UsageError('--bootrom is required');
    if (!o.image && !o.flash) throw new UsageError('--image or --flash is required');
    if (!(o.speed >= 0)) throw new UsageError('--speed: expected a number >= 0');
  }
  return o;
}

export class Board extends Control {
  constructor(o) {
    super();
    this.o = o;
    this.bootrom = bootromWords(fs.readFileSync(o.bootrom));
    this.config = o.board ? JSON.parse(fs.readFileSync(o.board, 'utf8')) : null;
    this.flash = this.loadFlash();
    this.chip = null;
    this.mode = 'off';
    this.boots = 0;
    this.lastCause = null;
    this.devices = [];
    this.ops = new Map();
    this.tail = '';
    this.lines = []; // [dir, emulated ns, text] of the last LINE_LOG USB lines (lineLog)
    this.partial = { in: '', out: '' };
    this.timer = null;
    this.dirty = false;
    this.lastSync = 0;
    this.wallBase = 0;
    this.emuBase = 0;
    this.wantRepl = o.repl;
    this.offUntil = 0;
    this.held = new Set(); // buttons held down (through resets) by `hold`
    this.cut = null; // {op, frac, req}: cut the power inside the next flash operation of that kind
    this.pendingReset = null; // control requests waiting for the next boot's mode
    this.rec = null; // a FlashLog of a chip's play (the record op)
    this.stats = { wallMs: 0, emuNs: 0 };
    this.ls = o.lockstep ? new Lockstep(this) : null; // lockstep.mjs: the clock stands while the host thinks
  }

  log(msg) {
    if (this.o.trace) process.stderr.write(`rp2: ${msg}\n`);
  }

  // -- flash -------------------------------------------------------------------------------

  loadFlash() {
    const o = this.o;
    let flash = new Uint8Array(FLASH_SIZE).fill(0xff);
    if (o.flash && fs.existsSync(o.flash)) {
      const data = fs.readFileSync(o.flash);
      if (data.length !== FLASH_SIZE) throw new UsageError(`${o.flash}: a flash file holds ${FLASH_SIZE} bytes, this one ${data.length}`);
      flash = new Uint8Array(data.buffer, data.byteOffset, data.length);
    }
    if (o.image) {
      const img = flashFromUF2(fs.readFileSync(o.image));
      // Only the blocks the UF2 carries: compare against an erased flash to find them.
      const uf2 = fs.readFileSync(o.image);
      const view = new DataView(uf2.buffer, uf2.byteOffset, uf2.byteLength);
      for (let off = 0; off + 512 <= uf2.length; off += 512) {
        const at = view.getUint32(off + 12, true) - 0x10000000;
        const size = view.getUint32(off + 16, true);
        flash.set(img.subarray(at, at + size), at);
      }
    }
    return flash;
  }

  saveFlash(force = false) {
    if (!this.o.flash || !this.dirty) return;
    const now = Date.now();
    if (!force && now - this.lastSync < SYNC_MS) return;
    this.lastSync = now;
    this.dirty = false;
    const tmp = `${this.o.flash}.tmp`;
    fs.writeFileSync(tmp, this.flash);
    fs.renameSync(tmp, this.o.flash);
  }

  // -- power --------------------------------------------------------------------------------

  powerOn(carry = null) {
    const chip = new Chip({ flash: this.flash, bootrom: this.bootrom, carry });
    this.chip = chip;
    this.boots += 1;
    chip.log = (m) => this.log(m);
    chip.onSerial = (bytes) => this.fromDevice(bytes);
    chip.onFlashOp = (op, start) => this.rec?.flashOp(chip, op, start);
    chip.usb.onDelivered = (bytes) => {
      this.rec?.serial(chip, 'in', bytes);
      this.lineLog('in', bytes);
    };
    this.partial = { in: '', out: '' };
    chip.onOpen = () => {
      this.log(`USB open at ${(chip.nanos / 1e6).toFixed(1)} ms`);
      if (this.wantRepl) this.breakIn();
    };
    const cfg = this.config;
    const buttons = {};
    for (const [name, b] of Object.entries(cfg?.buttons || {})) buttons[name] = b.pin;
    this.buttons = new Buttons(chip, buttons);
    for (const name of this.held) this.buttons.hold(name, true); // still held through a reset
    this.leds = cfg?.leds ? new Ws2812(chip, cfg.leds.pin, cfg.leds.count, cfg.leds.order) : null;
    for (const d of this.devices) d.powerOn?.(chip);
    chip.settleAll();
    this.tail = '';
    this.ls?.reset();
    this.setMode('boot');
    this.wallBase = performance.now();
    this.emuBase = 0;
    this.schedule(0);
  }

  powerOff() {
    if (this.chip) {
      if (this.rec?.chip === this.chip) this.rec.lost('the chip stopped');
      // The flash keeps what the chip had written: copy back the chip's array.
      this.flash.set(this.chip.flash);
      this.dirty = true;
      this.chip = null;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.saveFlash(true);
    this.setMode('stopped');
  }

  // Ctrl-C until the REPL's prompt shows (the table's loop turns it into KeyboardInterrupt).
  breakIn() {
    if (!this.chip || this.mode === 'repl') {
      this.wantRepl = false;
      return;
    }
    this.chip.usb.send([3]);
    this.after(50e6, () => this.breakIn());
  }

  /** Run fn once the emulated clock has moved ns on (on this chip). */
  after(ns, fn) {
    const chip = this.chip;
    if (!chip) return;
    chip.clock.createAlarm(() => { if (this.chip === chip) fn(); }).schedule(ns);
  }

  // -- running ------------------------------------------------------------------------------

  schedule(ms) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), ms);
  }

  tick() {
    this.timer = null;
    const chip = this.chip;
    if (!chip) return;
    const ls = this.ls;
    if (ls && !ls.mayRun()) return; // paused, or waiting for what the host typed: go/toDevice wake it
    const t0 = performance.now();
    const e0 = chip.nanos;
    const speed = this.o.speed;
    const wall = speed > 0 ? this.emuBase + (t0 - this.wallBase) * 1e6 * speed : Infinity;
    const limit = ls ? Math.min(wall, ls.untilNs) : wall;
    let r = chip.nanos >= limit ? 'idle' : 'run';
    // Several slices per tick keep I/O responsive without a timer per slice.
    // (Never past the limit: each run() executes at least one instruction, and how many calls
    // fit in the slice is the host's speed, not the chip's.)
    while (r === 'run' && chip.nanos < limit && performance.now() - t0 < 20) r = chip.run(SLICE_CYCLES, limit);
    this.stats.wallMs += performance.now() - t0;
    this.stats.emuNs += chip.nanos - e0;
    if (chip.flashOps.erase + chip.flashOps.program !== this.flashCount) {
      this.flashCount = chip.flashOps.erase + chip.flashOps.program;
      this.flash.set(chip.flash);
      this.dirty = true;
    }
    this.saveFlash();
    if (r === 'stop') {
      ls?.flush((b) => writeAll(1, b));
      this.stopped(chip);
      return;
    }
    if (ls && (r === 'pause' || chip.nanos >= ls.untilNs)) {
      this.pauseHere(chip, r === 'pause' ? 'line' : 'time');
      return;
    }
    ls?.flush((b) => writeAll(1, b));
    this.idle = r !== 'run';
    if (r === 'run') this.schedule(0);
    else if (speed > 0 && chip.clock.nextAlarm) {
      const wait = (chip.clock.nextAlarm.nanos - this.emuBase) / 1e6 / speed - (performance.now() - this.wallBase);
      this.schedule(Math.max(1, Math.min(wait, 50)));
    } else this.schedule(chip.clock.nextAlarm ? 0 : 50); // nothing scheduled: wait for input
  }

  // Lockstep: the chip stands (a line out, or the go's until_ns reached). The readers' side
  // first handles every bus request sent so far; then the line goes out and `held` is answered.
  pauseHere(chip, why) {
    chip.pauseReq = false;
    this.idle = true;
    for (const d of this.devices) d.sync?.();
    const waiting = this.ls.pause(why, chip.nanos);
    this.ls.flush((b) => writeAll(1, b));
    for (const req of waiting) this.reply(req, this.ls.state(chip));
  }

  // Lockstep: go {lines, serial, until_ns}; the bytes typed while the chip stood go in at once.
  lockstepGo(req) {
    const ls = this.ls;
    if (!ls) throw new Error('go: the board runs without --lockstep');
    this.reply(req, ls.go(req));
    this.resumeIfReady();
  }

  resumeIfReady() {
    const ls = this.ls;
    if (!this.chip || !ls.mayRun()) return;
    if (ls.inbox.length) this.chip.usb.send(ls.takeInbox());
    this.schedule(0);
  }

  stopped(chip) {
    const cause = chip.resetCause;
    this.lastCause = cause;
    this.log(`chip stopped: ${cause} at ${(chip.nanos / 1e6).toFixed(1)} ms`);
    const carry = cause === 'reset' || cause === 'watchdog' ? chip.carry() : null;
    this.powerOff();
    if (cause === 'bootsel') {
      process.stderr.write('rp2 board: machine.bootloader(): BOOTSEL mode (the RPI-RP2 drive) is not emulated; the board is off until reset\n');
      return;
    }
    if (cause === 'power') {
      const cut = this.cut;
      this.cut = null;
      const first = cut?.boot ? cut.boot.first : { at_ns: chip.nanos, flash_ops: chip.flashOps };
      const again = cut?.boot ? null : cut?.req?.reboot;
      if (cut?.boot) this.reply(cut.boot.req, { ...first, reboot_at_ns: chip.nanos, reboot_flash_ops: chip.flashOps });
      else if (cut?.req && !again) this.reply(cut.req, first);
      const off = cut?.off_ms ?? 0;
      if (off >= 0) {
        this.timer = setTimeout(() => {
          this.powerOn();
          if (again) this.armBootCut(again, { req: cut.req, first });
        }, off);
      }
      return;
    }
    this.powerOn(carry);
  }

  // -- serial -------------------------------------------------------------------------------

  // Lines over USB with the emulated ns each ended at (the device took its last byte, or sent
  // it): how long the table took over a command on its own clock (the `lines` op).
  lineLog(dir, bytes) {
    let text = this.partial[dir] + Buffer.from(bytes).toString('latin1');
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      this.lines.push([dir, this.chip.nanos, text.slice(0, Math.min(nl, LINE_TEXT))]);
      if (this.lines.length > LINE_LOG) this.lines.shift();
      text = text.slice(nl + 1);
      nl = text.indexOf('\n');
    }
    this.partial[dir] = text.slice(-LINE_TEXT);
  }

  fromDevice(bytes) {
    this.rec?.serial(this.chip, 'out', bytes);
    this.lineLog('out', bytes);
    const ended = this.ls ? this.ls.fromDevice(bytes) : false; // (written out at the pause)
    if (!this.ls) writeAll(1, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
    this.tail = (this.tail + Buffer.from(bytes).toString('latin1')).slice(-TAIL);
    const t = this.tail;
    if (t.endsWith('>>> ') || t.endsWith('raw REPL; CTRL-B to exit\r\n>') || t.endsWith('\x04>')) this.setMode('repl');
    else if (this.mode !== 'table' && /(^|\n)\{[^\n]*"type": ?"[a-z]+"[^\n]*\}\r?\n/.test(t)) this.setMode('table');
    // lockstep: wait for go (not while breaking into the REPL: no host is listening then)
    if (ended && this.mode === 'table' && !this.wantRepl && this.chip) this.chip.pauseReq = true;
  }

  toDevice(data) {
    if (!this.chip || this.mode === 'stopped') return;
    if (this.ls?.toDevice(data)) {
      this.resumeIfReady(); // (the bytes a go waited for)
      return;
    }
    this.chip.usb.send(data);
    if (this.idle) this.schedule(0); // the chip may be asleep until this input
  }

  setMode(mode) {
    if (this.mode === mode) return;
    if (this.mode === 'boot' && this.chip) this.bootNs = this.chip.nanos; // power-on to table or REPL
    this.mode = mode;
    if (mode !== 'boot') this.notify({ event: 'mode', mode });
    if (mode === 'table' || mode === 'repl') {
      const boot = this.cut?.boot;
      if (boot) { // the chip came up before the boot cut fell: it never will
        this.cut.cancel();
        this.cut = null;
        this.reply(boot.req, { ...boot.first, reboot_at_ns: null });
      }
      const waiting = this.pendingReset || [];
      this.pendingReset = null;
      for (const req of waiting) this.reply(req, { mode });
    }
  }

  // -- control ------------------------------------------------------------------------------

  onControl(req) {
    try {
      this.handle(req);
    } catch (e) {
      this.fail(req, e.message);
    }
    if (this.idle && this.chip) this.schedule(0);
  }

  handle(req) {
    const chip = this.chip;
    switch (req.op) {
      case 'reset':
        this.wantRepl = !!req.repl;
        (this.pendingReset ||= []).push(req);
        this.powerOff();
        this.powerOn();
        return;
      case 'powercut': {
        const off = req.off_ms ?? 0;
        if (!chip) throw new Error('the board is off');
        if (req.op_kind || req.in_ns !== undefined) {
          this.cut = { off_ms: off, req };
          if (req.in_ns !== undefined) chip.stopAt(chip.nanos + Number(req.in_ns));
          else this.armFlashCut(req.op_kind, Number(req.frac ?? 0.5), Number(req.skip ?? 0));
          return;
        }
        this.lastCause = 'power';
        this.powerOff();
        this.reply(req, { at_ns: chip.nanos });
        if (off >= 0) this.timer = setTimeout(() => this.powerOn(), off);
        return;
      }
      case 'record':
        if (req.on) {
          if (!chip) throw new Error('the board is off');
          this.rec = new FlashLog(chip);
          this.reply(req, { ops: this.rec.ops.length });
        } else {
          if (!this.rec) throw new Error('nothing recorded');
          this.rec.stop();
          this.reply(req, this.rec.summary());
        }
        return;
      case 'profile': // on: count the chip's cycles per PC from now; off: reply [pc, cycles] pairs
        if (!chip) throw new Error('the board is off');
        if (req.on) chip.profile(true, req.callers || []);
        else if (!chip.prof) throw new Error('no profile running');
        this.reply(req, req.on ? {} : {
          cycles: [...chip.prof],
          callers: chip.profCallers ? [...chip.profCallers].map(([a, m]) => [a, [...m]]) : [],
          now_ns: chip.nanos,
        });
        if (!req.on) chip.profile(false);
        return;
      case 'peek': { // {addr, len}: the chip's memory there, as hex (SRAM, e.g. a buffer's high-water mark)
        if (!chip) throw new Error('the board is off');
        const addr = Number(req.addr);
        const len = Math.min(Number(req.len ?? 4), 65536);
        const bytes = [];
        for (let k = 0; k < len; k++) bytes.push(chip.mcu.readUint8(addr + k));
        this.reply(req, { hex: Buffer.from(bytes).toString('hex') });
        return;
      }
      case 'restore':
        this.restore(req);
        return;
      case 'press': {
        if (!chip) throw new Error('the board is off');
        const hold = Number(req.hold_ms ?? PRESS_MS) * 1e6;
        this.buttons.press(req.button, hold, () => this.reply(req, { seen: true }));
        return;
      }
      case 'hold':
        this.buttons.gpio(req.button); // a name the board has
        if (req.down) this.held.add(req.button);
        else this.held.delete(req.button);
        if (chip) this.buttons.hold(req.button, !!req.down);
        this.reply(req);
        return;
      case 'pixels':
        this.reply(req, { pixels: this.leds ? this.leds.pixels() : [], frames: this.leds?.frames ?? 0 });
        return;
      case 'led_frames': // the LED frames latched since emulated ns `since` (the last 256 kept)
        this.reply(req, { frames: this.leds ? this.leds.framesSince(Number(req.since ?? 0)) : [], now_ns: chip ? chip.nanos : null });
        return;
      case 'lines': // USB lines ended since emulated ns `since`: [dir "in" | "out", ns, text]
        this.reply(req, { lines: this.lines.filter((l) => l[1] >= Number(req.since ?? 0)), now_ns: chip ? chip.nanos : null });
        return;
      case 'tone': {
        const pin = this.config?.piezo?.pin;
        this.reply(req, { tone: chip && pin !== undefined ? chip.pwm(pin) : null });
        return;
      }
      case 'status':
        this.reply(req, {
          mode: this.mode,
          boots: this.boots,
          last_stop: this.lastCause,
          boot_ns: this.bootNs ?? null,
          emulated_ns: chip ? chip.nanos : null,
          cycles: chip ? chip.mcu.core.cycles : null,
          skipped_ns: chip ? chip.skippedNs : null, // busy waits not run (Chip.skipDelay)
          flash_ops: chip ? chip.flashOps : null,
          wall_ms: Math.round(this.stats.wallMs),
          busy_emulated_ns: this.stats.emuNs,
          lockstep: this.ls ? this.ls.state(chip) : null,
        });
        return;
      case 'go':
        this.lockstepGo(req);
        return;
      case 'held':
        if (!this.ls) throw new Error('held: the board runs without --lockstep');
        if (this.ls.paused || req.now) this.reply(req, this.ls.state(chip)); // now: at once (why null: running)
        else this.ls.waiters.push(req);
        return;
      case 'sync':
        if (chip) {
          this.flash.set(chip.flash);
          this.dirty = true;
        }
        this.saveFlash(true);
        this.reply(req);
        return;
      case 'quit':
        this.reply(req);
        this.quit(0);
        return;
      default: {
        const op = this.ops.get(req.op);
        if (!op && TABLE_OPS.has(req.op)) throw new Error(`no device on this rp2 board handles ${req.op} (no readers: see --device)`);
        if (!op) throw new Error(`unknown op ${JSON.stringify(req.op)}`);
        Promise.resolve().then(() => op(req)).then(
          (fields) => this.reply(req, fields || {}),
          (e) => this.fail(req, e.message),
        );
      }
    }
  }

  // Cut the power part-way through the next flash erase or program: frac of its time;
  // skip: let that many of them finish first. Returns what disarms it.
  armFlashCut(kind, frac, skip = 0) {
    if (kind !== 'erase' && kind !== 'program') throw new Error('op_kind: erase or program');
    const chip = this.chip;
    let left = skip;
    const orig = chip[kind];
    chip[kind] = (...args) => {
      orig.apply(chip, args);
      if (left-- > 0) return;
      chip[kind] = orig;
      const b = chip.busy;
      chip.stopAt(b.start + Math.max(1, Math.floor((b.end - b.start) * frac)));
    };
    return () => { chip[kind] = orig; };
  }

  // The chip just powered on: cut it again while it boots (spec: {in_ns} after power-on, or
  // {op_kind, frac, skip} inside a flash operation). setMode disarms it once the table is up.
  armBootCut(spec, boot) {
    const chip = this.chip;
    let cancel;
    if (spec.in_ns !== undefined) {
      chip.stopAt(chip.nanos + Number(spec.in_ns));
      cancel = () => chip.stopAt(Infinity);
    } else {
      cancel = this.armFlashCut(spec.op_kind, Number(spec.frac ?? 0.5), Number(spec.skip ?? 0));
    }
    this.cut = { off_ms: 0, req: null, boot, cancel };
  }

  // A power cut at a point of the record (see FlashLog.image): the chip now goes without
  // touching the flash (its RAM lost), and a new chip boots from that point's flash.
  restore(req) {
    if (!this.rec) throw new Error('nothing recorded');
    const flash = this.rec.image(Number(req.upto), req.cut_ns === undefined || req.cut_ns === null ? null : Number(req.cut_ns));
    if (this.rec.chip === this.chip) this.rec.lost('the chip stopped');
    if (this.cut?.cancel) this.cut.cancel();
    this.cut = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.chip = null;
    this.lastCause = 'power';
    this.setMode('stopped');
    this.flash = flash;
    this.dirty = true;
    if (req.off) { // stay off, the flash saved: what a cut there leaves, to compare
      this.saveFlash(true);
      this.reply(req, { restored: Number(req.upto) });
      return;
    }
    this.powerOn();
    if (req.reboot) this.armBootCut(req.reboot, { req, first: { restored: Number(req.upto) } });
    else this.reply(req, { restored: Number(req.upto) });
  }

  async loadDevices() {
    for (const file of this.o.devices) {
      const mod = await import(file);
      const dev = mod.default(this);
      this.devices.push(dev);
      for (const [name, fn] of Object.entries(dev.ops || {})) this.ops.set(name, fn.bind(dev));
    }
  }

  quit(code) {
    if (this.chip) {
      this.flash.set(this.chip.flash);
      this.dirty = true;
    }
    try { this.saveFlash(true); } catch { /* nothing to save to */ }
    this.exit(code);
  }
}

async function main() {
  let o;
  let board;
  try {
    o = parseArgs(process.argv.slice(2));
    if (o.help) {
      process.stdout.write(USAGE + '\n');
      return 0;
    }
    board = new Board(o);
  } catch (e) {
    if (!(e instanceof UsageError) && e.code !== 'ENOENT') throw e;
    process.stderr.write(`rp2 board: ${e.message}\n${e instanceof UsageError ? USAGE + '\n' : ''}`);
    return 2;
  }
  await board.loadDevices();
  connect(board, o.controlFd, (data) => board.toDevice(data));
  board.powerOn();
  return null;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const code = await main();
  if (code !== null) process.exit(code);
}
