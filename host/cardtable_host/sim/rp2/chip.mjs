// One emulated RP2040 (rp2040js) with what a Pico board adds around the chip: the firmware
// image in its 2 MB flash, working flash erase/program, USB CDC to a host, the pins' wiring
// (pull-ups, buttons, WS2812 LEDs, a piezo's PWM) and reset. host/cardtable_host/sim/rp2/board.mjs drives it.
//
// - Flash: rp2040js keeps the flash as a byte array but does not model the QSPI flash's erase
//   and program commands. The firmware changes flash only through the bootrom's functions
//   (found in the ROM function table by their two-letter codes), so a BKPT is planted at the
//   entry of each; the trap does the work on the array and returns to the caller. An erase or
//   a program takes the flash chip's typical time on the emulated clock (the core stalls, as
//   it does executing from a flash that is busy), and `stopAt` can cut the power inside one:
//   the sectors or pages before the cut are done, the one in progress is left part-way.
// - USB: a host that enumerates the CDC device and then moves bytes both ways. The device's
//   OUT buffer is answered only when the host has bytes (rp2040js's own CDC answers every
//   armed buffer at once with an empty packet: an interrupt every ~28 us).
// - Reset: machine.reset() and the watchdog only set `resetCause`; the run loop stops and the
//   embedder builds a new Chip on the same flash (rp2040js cannot reset its own state, and its
//   watchdog alarm re-arms at the same instant forever once it fires).
// - Not modelled: the second core, flash read timing (XIP costs nothing), clock changes
//   (every cycle is 8 ns, machine.freq() or not).

import fs from 'node:fs';
import { nodePackage } from '../boardio.mjs';
import { fastDispatch } from './dispatch.mjs';

// rp2040js: the checkout's node_modules, or an installed cardtable's cache (boardio.mjs)
const { GPIOPinState, RP2040 } = await import(nodePackage('rp2040js'));
// the core's module text, for dispatch.mjs (null where Node has no import.meta.resolve, before
// 20.6: the core then keeps rp2040js's own decode)
const CORE_SOURCE = (() => {
  try {
    return fs.readFileSync(new URL('cortex-m0-core.js', import.meta.resolve(nodePackage('rp2040js'))), 'utf8');
  } catch {
    return null;
  }
})();

export const FLASH_BASE = 0x10000000;
export const FLASH_SIZE = 2 * 1024 * 1024; // a Pico's W25Q16JV
const CYCLE_NS = 8; // rp2040js counts every cycle at 125 MHz
export const PROF_WAIT = -1; // profile keys that are no PC
export const PROF_FLASH = -2;

// W25Q16JV datasheet, typical: 4 KB sector erase 45 ms, 64 KB block erase 150 ms, 256 B page
// program 0.4 ms.
const SECTOR = 4096;
const BLOCK = 65536;
const PAGE = 256;
const SECTOR_ERASE_NS = 45e6;
const BLOCK_ERASE_NS = 150e6;
const PAGE_PROGRAM_NS = 0.4e6;

// The bootrom functions the SDK's flash code calls, and reset_to_usb_boot (machine.bootloader()).
const ROM_FLASH = ['IF', 'EX', 'RE', 'RP', 'FC', 'CX', 'UB'];
const BKPT = 0xbe00;
const TRAP_BASE = 0xc0; // BKPT #0xc0 + index in ROM_FLASH

// UF2 (https://github.com/microsoft/uf2): 512-byte blocks, two start magics, one end magic.
const UF2_MAGIC0 = 0x0a324655;
const UF2_MAGIC1 = 0x9e5d5157;
const UF2_MAGIC_END = 0x0ab16f30;

/** The flash contents a UF2 image describes (a FLASH_SIZE buffer, erased where it says nothing). */
export function flashFromUF2(uf2) {
  const flash = new Uint8Array(FLASH_SIZE).fill(0xff);
  const view = new DataView(uf2.buffer, uf2.byteOffset, uf2.byteLength);
  for (let off = 0; off + 512 <= uf2.length; off += 512) {
    if (view.getUint32(off, true) !== UF2_MAGIC0 || view.getUint32(off + 4, true) !== UF2_MAGIC1
        || view.getUint32(off + 508, true) !== UF2_MAGIC_END) {
      throw new Error(`not a UF2 image (bad block at byte ${off})`);
    }
    const flags = view.getUint32(off + 8, true);
    if (flags & 1) continue; // "not main flash"
    const addr = view.getUint32(off + 12, true);
    const size = view.getUint32(off + 16, true);
    const at = addr - FLASH_BASE;
    if (at < 0 || at + size > FLASH_SIZE || size > 476) throw new Error(`UF2 block outside the flash: 0x${addr.toString(16)}`);
    flash.set(uf2.subarray(off + 32, off + 32 + size), at);
  }
  return flash;
}

/** The bootrom as rp2040js wants it: a file of little-endian 32-bit words. */
export function bootromWords(bin) {
  const words = new Uint32Array(bin.length >> 2);
  const view = new DataView(bin.buffer, bin.byteOffset, bin.byteLength);
  for (let i = 0; i < words.length; i++) words[i] = view.getUint32(i * 4, true);
  return words;
}

// --- flash operations ------------------------------------------------------------------------

/**
 * flash_range_erase as the bootrom does it: 64 KB blocks where aligned, 4 KB sectors elsewhere.
 * An op: {kind, offset, size, ns (its time), done(flash), cut(flash, ns): the state a power cut
 * ns after its start leaves}. A cut leaves the sectors before it erased and the one in progress
 * half-way (every other byte of its erased part: a NOR erase cut short leaves cells in between).
 */
export function eraseOp(offset, count) {
  const steps = [];
  const from = offset >>> 0;
  const end = Math.min(from + count, FLASH_SIZE);
  let t = 0;
  for (let at = from; at < end;) {
    const big = at % BLOCK === 0 && end - at >= BLOCK;
    const size = big ? BLOCK : SECTOR;
    t += big ? BLOCK_ERASE_NS : SECTOR_ERASE_NS;
    steps.push([at, size, t]);
    at += size;
  }
  return {
    kind: 'erase',
    offset: from,
    size: Math.max(0, end - from),
    ns: t,
    done: (flash) => { for (const [a, n] of steps) flash.fill(0xff, a, a + n); },
    cut: (flash, ns) => {
      let prev = 0;
      for (const [a, n, tEnd] of steps) {
        if (tEnd <= ns) flash.fill(0xff, a, a + n);
        else {
          const frac = (ns - prev) / (tEnd - prev);
          for (let k = 0; k < n * frac; k += 2) flash[a + k] = 0xff;
          break;
        }
        prev = tEnd;
      }
    },
  };
}

/** flash_range_program of src at offset (NOR programming only clears bits); an op as above.
 * A cut leaves the bytes programmed so far, page by page at the page program's rate. */
export function programOp(offset, src) {
  const at = offset >>> 0;
  const n = src.length;
  const write = (flash, upto) => { for (let k = 0; k < upto; k++) flash[at + k] &= src[k]; };
  return {
    kind: 'program',
    offset: at,
    size: n,
    ns: Math.max(1, Math.ceil(n / PAGE)) * PAGE_PROGRAM_NS,
    done: (flash) => write(flash, n),
    cut: (flash, ns) => write(flash, Math.min(n, Math.floor((ns / PAGE_PROGRAM_NS) * PAGE))),
  };
}

// --- USB: the host side of the CDC link -----------------------------------------------------

const SETUP_OUT_STD = 0x00;
const SETUP_IN_STD = 0x80;
const SETUP_OUT_CLASS_IFACE = 0x21;
const REQ_SET_ADDRESS = 5;
const REQ_GET_DESCRIPTOR = 6;
const REQ_SET_CONFIGURATION = 9;
const CDC_SET_LINE_CODING = 0x20;
const CDC_SET_CONTROL_LINE_STATE = 0x22;
const DESC_CONFIGURATION = 2;
const DESC_INTERFACE = 4;
const DESC_ENDPOINT = 5;
const CLASS_CDC_DATA = 0x0a;

function setup(bmRequestType, bRequest, wValue, wIndex, wLength) {
  return Uint8Array.of(bmRequestType, bRequest, wValue & 0xff, wValue >> 8, wIndex & 0xff, wIndex >> 8,
    wLength & 0xff, wLength >> 8);
}

/** The CDC data interface's bulk endpoints and the communication interface's number. */
function cdcEndpoints(desc) {
  const out = { in: -1, out: -1, comm: 0 };
  let inData = false;
  for (let i = 0; i + 1 < desc.length && desc[i] >= 2; i += desc[i]) {
    const type = desc[i + 1];
    if (type === DESC_INTERFACE) {
      inData = desc[i + 5] === CLASS_CDC_DATA;
      if (desc[i + 5] === 0x02) out.comm = desc[i + 2];
    } else if (type === DESC_ENDPOINT && inData && (desc[i + 3] & 3) === 2) {
      if (desc[i + 2] & 0x80) out.in = desc[i + 2] & 0x0f;
      else out.out = desc[i + 2] & 0x0f;
    }
  }
  return out;
}

/** A USB host with one CDC ACM device: enumerates it, opens the port (DTR), moves bytes. */
class CdcHost {
  constructor(usb, onData, onOpen) {
    this.usb = usb;
    this.onDelivered = null; // (Uint8Array) => void: bytes the device has just taken
    this.onData = onData;
    this.onOpen = onOpen;
    this.state = 'reset';
    this.config = [];
    this.configLen = 0;
    this.ep = null;
    this.tx = []; // Uint8Arrays for the device, oldest first
    this.txBytes = 0;
    this.armed = 0; // size of the OUT buffer the device armed and we hold, 0: none
    this.open = false;
    usb.onUSBEnabled = () => usb.resetDevice();
    usb.onResetReceived = () => {
      this.state = 'address';
      usb.sendSetupPacket(setup(SETUP_OUT_STD, REQ_SET_ADDRESS, 1, 0, 0));
    };
    usb.onEndpointWrite = (ep, buf) => this.fromDevice(ep, buf);
    usb.onEndpointRead = (ep, size) => this.deviceReads(ep, size);
  }

  fromDevice(ep, buf) {
    if (ep === 0) {
      this.control(buf);
      return;
    }
    if (this.ep && ep === this.ep.in && buf.length) this.onData(buf);
  }

  // Each control transfer's status stage (an empty IN packet) or data moves enumeration on.
  control(buf) {
    const usb = this.usb;
    switch (this.state) {
      case 'address':
        if (buf.length) return;
        this.state = 'config-head';
        usb.sendSetupPacket(setup(SETUP_IN_STD, REQ_GET_DESCRIPTOR, DESC_CONFIGURATION << 8, 0, 9));
        return;
      case 'config-head':
        if (buf.length < 4) return;
        this.configLen = buf[2] | (buf[3] << 8);
        this.config = [];
        this.state = 'config';
        usb.sendSetupPacket(setup(SETUP_IN_STD, REQ_GET_DESCRIPTOR, DESC_CONFIGURATION << 8, 0, this.configLen));
        return;
      case 'config':
        this.config.push(...buf);
        if (this.config.length < this.configLen) return;
        this.ep = cdcEndpoints(this.config);
        this.state = 'configure';
        usb.sendSetupPacket(setup(SETUP_OUT_STD, REQ_SET_CONFIGURATION, 1, 0, 0));
        return;
      case 'configure':
        if (buf.length) return;
        this.state = 'dtr';
        usb.sendSetupPacket(setup(SETUP_OUT_CLASS_IFACE, CDC_SET_CONTROL_LINE_STATE, 3, this.ep.comm, 0));
        return;
      case 'dtr':
        if (buf.length) return;
        this.state = 'open';
        this.open = true;
        this.onOpen?.();
        return;
      default:
    }
  }

  deviceReads(ep, size) {
    if (!this.ep || ep !== this.ep.out) return;
    this.armed = size;
    this.feed();
  }

  /** Bytes from the host's side of the port (queued until the device reads). */
  send(bytes) {
    if (!bytes.length) return;
    this.tx.push(Uint8Array.from(bytes));
    this.txBytes += bytes.length;
    this.feed();
  }

  feed() {
    if (!this.armed || !this.txBytes) return;
    const n = Math.min(this.armed, this.txBytes);
    const buf = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const head = this.tx[0];
      const take = Math.min(head.length, n - at);
      buf.set(head.subarray(0, take), at);
      at += take;
      if (take === head.length) this.tx.shift();
      else this.tx[0] = head.subarray(take);
    }
    this.txBytes -= n;
    this.armed = 0;
    this.usb.endpointReadDone(this.ep.out, buf);
    this.onDelivered?.(buf);
  }
}

// --- the chip ---------------------------------------------------------------------------------

const SRAM_BASE = 0x20000000;

/**
 * Word reads and writes of SRAM and flash straight to their arrays. rp2040js's own path looks
 * a write up among the peripherals first and a read passes three range tests before SRAM; the
 * answer is the same either way (nothing else lives at these addresses), only slower.
 */
function fastMemory(mcu) {
  const ram = mcu.sramView;
  const ramEnd = SRAM_BASE + mcu.sram.length - 3;
  const flash = mcu.flashView;
  const flashEnd = FLASH_BASE + mcu.flash.length - 3;
  const read = mcu.readUint32.bind(mcu);
  const write = mcu.writeUint32.bind(mcu);
  mcu.readUint32 = (address) => {
    const a = address >>> 0;
    if (a >= SRAM_BASE && a < ramEnd) return ram.getUint32(a - SRAM_BASE, true);
    if (a >= FLASH_BASE && a < flashEnd) return flash.getUint32(a - FLASH_BASE, true);
    return read(a);
  };
  mcu.writeUint32 = (address, value) => {
    const a = address >>> 0;
    if (a >= SRAM_BASE && a < ramEnd) ram.setUint32(a - SRAM_BASE, value, true);
    else write(a, value);
  };
  // the core's own accessors only forward to the chip's
  mcu.core.readUint32 = mcu.readUint32;
  mcu.core.writeUint32 = mcu.writeUint32;
}

/**
 * mp_hal_delay_us's busy wait (MicroPython's rp2 port, as arm-none-eabi-gcc builds it): at the
 * loop's head `bl time_us_64`, then `cmp r5, r1; bhi head; bne out; cmp r4, r0; bhi head;
 * pop {r4, r5, r6, pc}`: it turns until the timer reaches r5:r4, the delay's end in µs. The
 * tail's bytes, whose branches lead back to the head; the head is the BL before them.
 */
const DELAY_TAIL = [0x428d, 0xd8fb, 0xd101, 0x4284, 0xd8f8, 0xbd70];

/** Is the delay loop's head at halfword i of the flash? (`half` in the host's order: little-endian, as the chip's) */
function delayLoopAt(half, i) {
  return i >= 0 && half[i] >> 11 === 0b11110 && DELAY_TAIL.every((h, k) => half[i + 2 + k] === h); // (BL's first half: 11110)
}

let lastDelayLoop = -1; // where the last image scanned had it: a chip's reboot finds it there at once

/** The address of the image's delay loop head, or -1 unless exactly one is found. */
export function findDelayLoop(flash) {
  const half = new Uint16Array(flash.buffer, flash.byteOffset, flash.byteLength >> 1);
  if (lastDelayLoop >= 0 && delayLoopAt(half, (lastDelayLoop - FLASH_BASE) >> 1)) return lastDelayLoop;
  const found = [];
  for (let i = 0; i + 2 + DELAY_TAIL.length <= half.length; i++) {
    if (half[i + 2] === DELAY_TAIL[0] && delayLoopAt(half, i)) found.push(FLASH_BASE + 2 * i);
  }
  lastDelayLoop = found.length === 1 ? found[0] : -1;
  return lastDelayLoop;
}

export class Chip {
  /**
   * flash: the flash contents (Uint8Array, FLASH_SIZE; used in place and changed by the
   * firmware); bootrom: Uint32Array of the B1 bootrom; carry: what a watchdog reset keeps
   * (the previous chip's `carry()`), null at power-on.
   */
  constructor({ flash, bootrom, carry = null, chain = false }) {
    const mcu = new RP2040(); // on its own SimulationClock
    this.clock = mcu.clock;
    mcu.logger = { debug() {}, info() {}, warn() {}, error: (tag, msg) => this.log?.(`${tag}: ${msg}`) };
    mcu.loadBootrom(bootrom); // resets the core and erases the flash array
    fastMemory(mcu);
    this.tabled = !chain && fastDispatch(mcu.core, CORE_SOURCE); // chain: rp2040js's own decode
    this.mcu = mcu;
    this.flash = mcu.flash.subarray(0, FLASH_SIZE);
    this.flash.set(flash);
    this.delayLoop = findDelayLoop(this.flash); // (skipDelay)
    this.flashHalves = new Uint16Array(this.flash.buffer, this.flash.byteOffset, FLASH_SIZE >> 1);
    this.skippedNs = 0;
    this.resetCause = null; // 'reset' | 'watchdog' | 'break' once the firmware asked to stop
    this.stopped = false;
    this.busy = null; // a flash operation in progress: {op, start, end, done(), cut(ns)}
    this.onFlashOp = null; // (op, startNs) => void: every erase and program as it starts
    this.stopAtNs = Infinity;
    this.stallLimit = -Infinity; // run()'s limit: a bus's spin may stall the core up to it (stall)
    this.stalledNs = 0;
    mcu.stall = (alarm) => this.stall(alarm);
    this.pauseReq = false; // set from a callback (a USB line out, in lockstep): run() returns 'pause'
    this.breaks = 0;
    this.flashOps = { erase: 0, program: 0, bytesErased: 0, bytesProgrammed: 0 };
    this.log = null;
    this.onSerial = null; // (Uint8Array) => void: what the device writes to its USB serial
    this.onOpen = null; // USB enumerated and the port open
    this.pins = mcu.gpio;
    this.pressed = new Set(); // GPIOs held low from outside (a button pressed)
    this.driven = new Map(); // GPIO -> level a device forces on it
    this.pulledUp = new Set(); // GPIOs with a resistor to 3.3 V on the board (I2C's SCL/SDA)
    this.pinWatchers = new Map(); // GPIO -> [fn(level, ns)]
    this.usb = new CdcHost(mcu.usbCtrl, (b) => this.onSerial?.(b), () => this.onOpen?.());
    this.trapFlash();
    this.wirePins();
    const wd = mcu.peripherals[0x40058];
    this.watchdog = wd;
    if (carry) {
      wd.reason = carry.reason;
      wd.scratchData.set(carry.scratch);
    }
    wd.onWatchdogTrigger = () => {
      // Stop the alarm first: rp2040js re-arms it at the same instant and would loop forever.
      wd.timer.enable = false;
      wd.alarm.enable = false;
      this.resetCause = wd.reason & 2 ? 'reset' : 'watchdog';
      this.stopped = true;
    };
    mcu.onBreak = (code) => this.onBreak(code);
    mcu.core.PC = FLASH_BASE; // boot stage 2 at the start of the flash, as rp2040js's demo does
  }

  /** What a watchdog reset keeps on the real chip: the reset reason and scratch registers. */
  carry() {
    return { reason: this.watchdog.reason, scratch: Uint32Array.from(this.watchdog.scratchData) };
  }

  get nanos() {
    return this.clock.nanos;
  }

  // -- flash ----------------------------------------------------------------------------------

  romFunction(code) {
    const rom = this.mcu;
    const table = rom.readUint16(0x14);
    const key = code.charCodeAt(0) | (code.charCodeAt(1) << 8);
    for (let at = table; ; at += 4) {
      const c = rom.readUint16(at);
      if (!c) return 0;
      if (c === key) return rom.readUint16(at + 2);
    }
  }

  trapFlash() {
    const rom = this.mcu.bootrom;
    this.traps = ROM_FLASH.map((code, i) => {
      const fn = this.romFunction(code) & ~1;
      if (!fn) throw new Error(`bootrom has no function ${code}`);
      const word = fn >> 2;
      const op = BKPT | (TRAP_BASE + i);
      rom[word] = fn & 2 ? (rom[word] & 0xffff) | (op << 16) : (rom[word] & 0xffff0000) | op;
      return fn;
    });
  }

  onBreak(code) {
    const i = code - TRAP_BASE;
    if (i < 0 || i >= ROM_FLASH.length) {
      // Code such as TinyUSB's asserts breaks only for an attached debugger (it reads DHCSR,
      // which rp2040js reports as attached): a chip on a board goes on.
      this.breaks += 1;
      this.log?.(`BKPT #${code} at 0x${(this.mcu.core.PC - 2).toString(16)} (usb ${this.usb.state})`);
      return;
    }
    const core = this.mcu.core;
    const r = core.registers;
    const kind = ROM_FLASH[i];
    if (kind === 'UB') {
      this.resetCause = 'bootsel'; // the USB drive of BOOTSEL mode is not emulated: the chip stops
      this.stopped = true;
      return;
    }
    if (kind === 'RE') this.erase(r[0], r[1]);
    else if (kind === 'RP') this.program(r[0], r[1], r[2]);
    core.PC = core.LR & ~1; // return to the caller (the other four have nothing to do here)
  }

  // flash_range_erase(offset, count, block_size, block_cmd).
  erase(offset, count) {
    this.startFlashOp(eraseOp(offset, count));
  }

  // flash_range_program(offset, data, count): the bytes read from the chip's memory now.
  program(offset, data, count) {
    const n = Math.min(count, FLASH_SIZE - (offset >>> 0));
    const src = new Uint8Array(n);
    for (let k = 0; k < n; k++) src[k] = this.mcu.readUint8(data + k);
    this.startFlashOp(programOp(offset, src));
  }

  // The core stalls for op.ns (see run); onFlashOp (a recorder) sees each op as it starts.
  startFlashOp(op) {
    const f = this.flashOps;
    if (op.kind === 'erase') {
      f.erase += 1;
      f.bytesErased += op.size;
    } else {
      f.program += 1;
      f.bytesProgrammed += op.size;
    }
    const flash = this.flash;
    const start = this.clock.nanos;
    this.onFlashOp?.(op, start);
    this.busy = { op, start, end: start + op.ns, done: () => op.done(flash), cut: (ns) => op.cut(flash, ns) };
  }

  // -- pins -------------------------------------------------------------------------------------

  // rp2040js gives an input the level set from outside (0 by default). A board's wiring:
  // a button held pulls low; a device may drive a level; otherwise the chip's own output, then
  // a resistor on the board, then the pad's pull decide (an input with its pull-up reads 1).
  wirePins() {
    for (const pin of this.pins) {
      pin.addListener(() => this.settle(pin.index));
    }
  }

  settle(gp) {
    const pin = this.pins[gp];
    let level;
    if (this.pressed.has(gp)) level = false;
    else if (this.driven.has(gp)) level = this.driven.get(gp);
    else if (pin.outputEnable) level = pin.outputValue;
    else if (this.pulledUp.has(gp)) level = true;
    else {
      const s = pin.value;
      level = s === GPIOPinState.InputPullUp || (s === GPIOPinState.InputBusKeeper && pin.rawInputValue);
    }
    if (level !== pin.rawInputValue) pin.setInputValue(level);
    const watchers = this.pinWatchers.get(gp);
    if (watchers) {
      const out = pin.outputEnable ? pin.outputValue : level;
      for (const fn of watchers) fn(out, this.clock.nanos);
    }
  }

  /** Call fn(level, ns) whenever GPIO gp may have changed (an output's level, or the input's). */
  watchPin(gp, fn) {
    if (!this.pinWatchers.has(gp)) this.pinWatchers.set(gp, []);
    this.pinWatchers.get(gp).push(fn);
  }

  /** Hold GPIO gp low (a button to ground pressed) or let it go. */
  press(gp, down) {
    if (down) this.pressed.add(gp);
    else this.pressed.delete(gp);
    this.settle(gp);
  }

  /** Drive GPIO gp from outside to level (true/false), or stop driving it (null). */
  drive(gp, level) {
    if (level === null) this.driven.delete(gp);
    else this.driven.set(gp, !!level);
    this.settle(gp);
  }

  /** A pull-up resistor on the board from GPIO gp to 3.3 V (an open-drain line idles high). */
  pullUp(gp) {
    this.pulledUp.add(gp);
    this.settle(gp);
  }

  /** Is GPIO gp driven by the chip (an output), and at what level: 'high' | 'low' | 'off'. */
  drivenBy(gp) {
    const pin = this.pins[gp];
    if (!pin.outputEnable) return 'off';
    return pin.outputValue ? 'high' : 'low';
  }

  /** Refresh every pin's input level after the firmware set pads (pads.js has no listener). */
  settleAll() {
    for (let gp = 0; gp < this.pins.length; gp++) this.settle(gp);
  }

  /** The PWM on GPIO gp: {freq, duty} (duty 0..1), or null when the pin is not a running PWM. */
  pwm(gp) {
    const pin = this.pins[gp];
    if (pin.functionSelect !== 4) return null;
    const ch = this.mcu.pwm.channels[(gp >> 1) & 7];
    if (!(ch.csr & 1) && !ch.en) return { freq: 0, duty: 0 }; // CSR_EN, or the EN alias register
    const div = ((ch.div >> 4) & 0xff || 256) + (ch.div & 0xf) / 16;
    const phaseCorrect = ch.csr & 2 ? 2 : 1;
    const freq = this.mcu.clkSys / (div * (ch.top + 1) * phaseCorrect);
    const cc = gp & 1 ? ch.cc >>> 16 : ch.cc & 0xffff;
    return { freq: Math.round(freq), duty: Math.min(1, cc / (ch.top + 1)) };
  }

  // -- running ----------------------------------------------------------------------------------

  /**
   * Start or stop a profile: `this.prof` maps each PC to the emulated cycles spent there
   * (PROF_WAIT: waiting for an interrupt; PROF_FLASH: stalled in a flash erase or program);
   * `this.profCallers` counts, for each function address in `callers`, the return addresses
   * (LR) it was entered with.
   */
  profile(on, callers = []) {
    this.prof = on ? new Map() : null;
    this.profCallers = on && callers.length ? new Map(callers.map((a) => [a & ~1, new Map()])) : null;
  }

  /**
   * A bus's spin (bus.mjs): the core polls a status that only `alarm`, the bus's next
   * completion, can change, so the clock goes straight there as it does for a core waiting
   * for an interrupt; only when nothing else is due first and within run()'s limit. The spin
   * would have ended within one turn of its loop after that instant; the host skips running it.
   */
  stall(alarm) {
    const clock = this.clock;
    if (clock.nextAlarm !== alarm || alarm.nanos > this.stallLimit) return;
    const d = alarm.nanos - clock.nanos;
    this.stalledNs += d;
    clock.tick(d);
  }

  /**
   * The core at the head of mp_hal_delay_us's busy wait: the clock goes to a µs before the
   * delay's end, as stall() does for a bus's spin, and the loop's own turns end it as they
   * would have (within one turn of the same instant). Not past an alarm (it fires on time and
   * the core takes any interrupt it raises, then comes back here) or run()'s limit, and not
   * with an interrupt pending. Returns the ns skipped (0: the loop runs its turn). Checks the
   * loop's bytes are still there (a new image may have been written over the flash).
   */
  skipDelay(limit) {
    const core = this.mcu.core;
    if (core.interruptsUpdated) return 0; // an interrupt to take first
    const clock = this.clock;
    const r = core.registers;
    let to = Math.min((r[5] * 4294967296 + r[4] - 1) * 1000, limit);
    const alarm = clock.nextAlarm;
    if (alarm !== null && alarm.nanos < to) to = alarm.nanos;
    const d = to - clock.nanos;
    if (d <= 0) return 0;
    if (!delayLoopAt(this.flashHalves, (this.delayLoop - FLASH_BASE) >> 1)) {
      this.delayLoop = -1;
      return 0;
    }
    clock.tick(d);
    this.skippedNs += d;
    return d;
  }

  /** Stop the chip dead when the emulated clock reaches ns (a power cut), even mid-erase. */
  stopAt(ns) {
    this.stopAtNs = ns;
  }

  /**
   * Run for up to maxCycles cycles or until the emulated clock reaches untilNs.
   * Returns 'run' (budget spent), 'idle' (waiting for an interrupt with nothing scheduled
   * before untilNs), 'stop' (reset asked, or stopAt reached), 'pause' (pauseReq was set by
   * what the last instruction did: the clock stands there until the embedder runs it again).
   */
  run(maxCycles, untilNs = Infinity) {
    const { mcu, clock } = this;
    const core = mcu.core;
    const limit = Math.min(untilNs, this.stopAtNs);
    this.stallLimit = limit;
    let cycles = 0;
    while (cycles < maxCycles && !this.stopped) {
      if (this.pauseReq) return 'pause';
      if (clock.nanos >= this.stopAtNs) {
        this.stopped = true;
        this.resetCause = 'power';
        break;
      }
      if (this.busy) {
        const b = this.busy;
        const to = Math.min(b.end, this.stopAtNs, untilNs);
        if (to > clock.nanos) {
          if (this.prof) this.charge(PROF_FLASH, (to - clock.nanos) / CYCLE_NS);
          clock.tick(to - clock.nanos);
        }
        if (clock.nanos >= b.end) {
          b.done();
          this.busy = null;
        } else if (clock.nanos >= this.stopAtNs) {
          b.cut(clock.nanos - b.start);
          this.busy = null;
        } else return 'idle';
        continue;
      }
      if (core.waiting) {
        const next = clock.nextAlarm ? clock.nanosToNextAlarm : Infinity;
        const to = clock.nanos + next;
        if (to > limit || next === Infinity) {
          if (limit !== Infinity && limit > clock.nanos) clock.tick(limit - clock.nanos);
          if (clock.nanos >= this.stopAtNs) continue;
          return 'idle';
        }
        clock.tick(next);
        cycles += next / CYCLE_NS;
        if (this.prof) this.charge(PROF_WAIT, next / CYCLE_NS);
        continue;
      }
      if (this.prof) {
        const pc = core.PC;
        if (pc === this.delayLoop) {
          const d = this.skipDelay(limit);
          if (d > 0) {
            this.charge(pc, d / CYCLE_NS);
            cycles += d / CYCLE_NS;
            continue;
          }
        }
        if (this.profCallers) this.caller(pc, core.registers[14]);
        this.stalledNs = 0;
        const c = core.executeInstruction();
        this.charge(pc, c + this.stalledNs / CYCLE_NS); // (a bus's spin: its time stays its own)
        clock.tick(c * CYCLE_NS);
        cycles += c;
        if (clock.nanos >= untilNs) return this.pauseReq ? 'pause' : 'run';
        continue;
      }
      // the hot loop: instructions until an interrupt wait, a flash operation, the budget or a
      // limit; the clock moves with every instruction (the timer reads it) and its alarms fire
      // on time (a peripheral may schedule one from the instruction it runs)
      const end = Math.min(untilNs, this.stopAtNs);
      const delay = this.delayLoop;
      while (cycles < maxCycles) {
        if (core.PC === delay) {
          const d = this.skipDelay(end);
          if (d > 0) {
            cycles += d / CYCLE_NS;
            if (clock.nanos >= end || core.waiting || this.stopped || this.pauseReq) break;
          }
        }
        const c = core.executeInstruction();
        cycles += c;
        const ns = clock.nanos + c * CYCLE_NS;
        const alarm = clock.nextAlarm;
        if (alarm !== null && alarm.nanos <= ns) clock.tick(ns - clock.nanos);
        else clock.nanosCounter = ns; // what tick() does when no alarm is due (rp2040js 1.4)
        if (ns >= end || core.waiting || this.busy !== null || this.stopped || this.pauseReq) break;
      }
      if (this.pauseReq) return 'pause';
      if (clock.nanos >= untilNs) return 'run';
    }
    if (this.stopped) return 'stop';
    return this.pauseReq ? 'pause' : 'run';
  }

  charge(pc, cycles) {
    this.prof.set(pc, (this.prof.get(pc) || 0) + cycles);
  }

  caller(pc, lr) {
    const m = this.profCallers.get(pc);
    if (m) m.set(lr & ~1, (m.get(lr & ~1) || 0) + 1);
  }
}
