// The rp2 board's reader buses: TCA9548A multiplexers and PN532 readers on the RP2040's I2C
// blocks, PN532 readers on its SPI blocks with a chip select each on GPIO.
//
// The wire faces live here (addresses, ACKs, the mux's control register, the PN532's I2C
// status byte and its SPI op bytes, bit order); the PN532s themselves (frames, commands,
// tags) are firmware/lib/cardtable/sim/pn532_emu.py in the Python process that started us,
// reached over a blocking socket (BusLink): while it answers, this whole process (the
// chip included) waits, so emulated time does not move. Only a transaction that needs a
// PN532's answer asks (an I2C read, an SPI status or data read); writes are sent and not
// waited for.
//
// Bus time is real: every byte completes after its bit times on the emulated clock (I2C: 9
// bits at the SCL period the firmware programmed, plus a bit for START and for STOP; SPI: the
// data bits at the programmed baud rate). The SDK's busy-wait for a byte stalls the core until
// the byte's completion instead of being run (stallWhileSpinning).
//
// Pin level (with the chip: attachBoard's `chip`): the I2C lines have their board pull-ups,
// a mux RESET pin low turns every channel of the bus's muxes off, and a PN532 told to hold
// SDA low (`faults`) grabs it in the next transaction addressed to it and keeps it while its
// channel is connected: then no START can be made (the master loses arbitration at the first
// 1 bit of the address: TX_ABRT ARB_LOST, and no STOP_DET follows, so the SDK's write waits
// out its timeout: ETIMEDOUT, a read EIO), and the SDA pin reads low. SCL clocks bit-banged on
// the pin reach a holding PN532 through its channel (n clocks free one that was cut off n
// bits before the end of a byte), and SDA rising while SCL is high is a STOP. `wires.log`
// keeps what happened on the pins, for tests: mux resets, SCL clocks, STOPs, lost STARTs.
//
// Sources: TI TCA9548A datasheet SCPS207H (one control byte, a bit per channel); NXP UM0701-02
// (PN532 user manual) 6.2.4/6.2.5: I2C reads begin with a status byte (bit 0: ready), SPI
// frames begin with an op byte (01 data write, 02 status read, 03 data read), LSB first.

import fs from 'node:fs';

const PN532_ADDR = 0x24;
const R_TX_EMPTY = 1 << 4; // IC_RAW_INTR_STAT.TX_EMPTY
const WIRE_LOG = 400; // events kept on the pins of one bus
const FRAME_MAX = 300; // longest answer the host may read in one I2C transaction

// Requests to Python: u32 length of the rest, u8 op, u8 reader, f64 emulated ns, payload.
const OP_WRITE = 0x57; // 'W': host frame bytes for a reader (no reply)
const OP_READ = 0x52; // 'R': the reader's status and pending frame, not taken (reply)
const OP_TAKE = 0x54; // 'T': the host read the pending frame (no reply)
const OP_POWER = 0x50; // 'P': a new chip; reader 1: a cold power-on (the PN532s restart too)
const OP_RSTPDN = 0x5a; // 'Z': the reader's RSTPDN rose after a low: it restarts (no reply)

function rev8(b) {
  let r = 0;
  for (let i = 0; i < 8; i++) { r = (r << 1) | (b & 1); b >>= 1; }
  return r;
}
const REV = Uint8Array.from({ length: 256 }, (_, i) => rev8(i));

const NOT_READY = [false, new Uint8Array(0)];

/**
 * The blocking request/reply channel to the Python side that holds the PN532s. A reader still
 * working on a command says until when (`busy`): its status polls before then are answered
 * here, not over the socket (the driver polls every 100 us through a 5-15 ms command), until
 * anything else reaches that reader.
 */
export class BusLink {
  constructor(fd) {
    this.fd = fd;
    this.head = Buffer.alloc(4);
    this.requests = 0;
    this.calls = 0;
    this.busy = new Map(); // reader -> emulated ns its answer is ready at
  }

  _send(op, reader, nanos, payload) {
    if (op === OP_POWER) this.busy.clear();
    else this.busy.delete(reader);
    const n = payload ? payload.length : 0;
    const buf = Buffer.alloc(4 + 10 + n);
    buf.writeUInt32LE(10 + n, 0);
    buf[4] = op;
    buf[5] = reader;
    buf.writeDoubleLE(nanos, 6);
    if (n) buf.set(payload, 14);
    let off = 0;
    while (off < buf.length) off += fs.writeSync(this.fd, buf, off);
    this.requests++;
  }

  _readExactly(n) {
    const buf = Buffer.alloc(n);
    let off = 0;
    while (off < n) {
      let got;
      try {
        got = fs.readSync(this.fd, buf, off, n - off, null);
      } catch (e) {
        if (e.code === 'EAGAIN') continue;
        throw e;
      }
      if (got === 0) throw new Error('the bus host closed its end');
      off += got;
    }
    return buf;
  }

  /** Bytes for a reader (a frame or part of one); nothing comes back. */
  write(reader, nanos, data) { this._send(OP_WRITE, reader, nanos, data); }

  /** The reader has handed over its pending frame. */
  take(reader, nanos) { this._send(OP_TAKE, reader, nanos, null); }

  /** A new chip runs from now; cold: the board's power came on (not a reset). */
  power(nanos, cold) { this._send(OP_POWER, cold ? 1 : 0, nanos, null); }

  /** The reader's RSTPDN was pulsed low: it restarts. */
  rstpdn(reader, nanos) { this._send(OP_RSTPDN, reader, nanos, null); }

  /** Any request with a reply (op, reader, emulated ns): the reply's body. */
  ask(op, reader, nanos) {
    this._send(op, reader, nanos, null);
    this.calls++;
    const len = this._readExactly(4).readUInt32LE(0);
    return this._readExactly(len);
  }

  /** [ready, frame]: is a frame ready for the host, and which (not taken). */
  read(reader, nanos) {
    const until = this.busy.get(reader);
    if (until !== undefined && nanos < until) return NOT_READY;
    this._send(OP_READ, reader, nanos, null);
    this.calls++;
    const len = this._readExactly(4).readUInt32LE(0);
    const body = this._readExactly(len);
    if (body[0] === 2) { // (not ready: working until then)
      this.busy.set(reader, body.readDoubleLE(1));
      return NOT_READY;
    }
    return [body[0] === 1, body.subarray(1)];
  }
}

/** Runs `fn` after `ns` of emulated time (one pending action per bus). */
class Later {
  constructor(clock) {
    this.fn = null;
    this.alarm = clock.createAlarm(() => {
      const fn = this.fn;
      this.fn = null;
      this.polled = null;
      fn();
    });
    this.polled = null; // register offset -> the value the core last read there
  }

  after(ns, fn) {
    this.fn = fn;
    this.alarm.schedule(ns);
  }
}

// Status registers, whose reads change nothing (I2C's IC_CLR_* clear as they are read: never
// stalled on). I2C: IC_INTR_STAT, IC_RAW_INTR_STAT, IC_STATUS, IC_TXFLR, IC_RXFLR,
// IC_TX_ABRT_SOURCE; SPI: SSPSR, SSPRIS, SSPMIS.
const I2C_STATUS = new Set([0x2c, 0x34, 0x70, 0x74, 0x78, 0x80]);
const SPI_STATUS = new Set([0x0c, 0x18, 0x1c]);

/**
 * The SDK waits for each byte by reading the block's status registers in a loop. The second
 * read of a status register giving the same value, with a byte still on the wire and no write
 * since, is that loop turning: the core stalls until the byte's completion (Chip.stall)
 * instead of being run round it dozens of times (a quarter of the chip's cycles on an I2C
 * table, bench/rp2profile.py).
 */
function stallWhileSpinning(rp2040, block, later, status) {
  const read = block.readUint32.bind(block);
  const write = block.writeUint32Atomic.bind(block);
  block.readUint32 = (offset) => {
    const v = read(offset);
    if (later.fn === null || !rp2040.stall || !status.has(offset)) return v;
    const seen = (later.polled ??= new Map());
    if (seen.get(offset) !== v) {
      seen.set(offset, v);
      return v;
    }
    rp2040.stall(later.alarm);
    return read(offset);
  };
  block.writeUint32Atomic = (offset, value, atomicType) => {
    later.polled = null;
    write(offset, value, atomicType);
    later.polled = null;
  };
}

/**
 * I2C block `i2c` (rp2040.i2c[n]) with TCA9548A muxes and PN532s on it.
 * muxes: 7-bit addresses; readers: [{index, mux (address or null), ch}].
 */
export function attachI2C(rp2040, i2c, link, muxes, readers, pins = null) {
  const mask = new Map(muxes.map((a) => [a, 0]));
  const later = new Later(rp2040.clock);
  stallWhileSpinning(rp2040, i2c, later, I2C_STATUS);
  const stats = { transactions: 0, bytes: 0, nacks: 0, first: null };
  let seg = null; // the transaction in progress: {addr, read, data, src, n, visible}
  const wires = pins ? new Wires(pins, mask, readers) : null;

  const bitNs = () => {
    const cycles = i2c.sclHighPeriod + i2c.sclLowPeriod;
    const hz = rp2040.clkSys || 125e6;
    return cycles > 0 ? (cycles * 1e9) / hz : 2500;
  };
  const now = () => rp2040.clock.nanos;

  const visible = () => readers.filter((r) => r.mux === null || (mask.get(r.mux) & (1 << r.ch)));

  function finish() {
    if (!seg) return;
    const s = seg;
    seg = null;
    if (s.addr !== PN532_ADDR) return;
    if (!s.read) {
      if (s.data.length) for (const r of s.visible) link.write(r.index, now(), Uint8Array.from(s.data));
    } else if (s.n > 1) {
      for (let i = 0; i < s.visible.length; i++) if (s.ready[i]) link.take(s.visible[i].index, now());
    }
  }

  i2c.onStart = (repeated) => {
    if (repeated) finish();
    if (!stats.first && pins) stats.first = { ns: now(), pins: pins.levels() };
    if (wires && wires.held()) {
      // SDA held low: the address's first 1 bit (bit 1 at most for the addresses here) is lost.
      seg = null;
      wires.note('lost');
      later.after(3 * bitNs(), () => lose(i2c));
      return;
    }
    later.after(bitNs(), () => i2c.completeStart());
  };

  i2c.onConnect = (addr, mode) => {
    const read = mode === 1;
    let ack = false;
    seg = { addr, read, data: [], src: null, n: 0, visible: [], ready: [] };
    stats.transactions++;
    if (mask.has(addr)) {
      ack = true;
      if (read) seg.src = Uint8Array.of(mask.get(addr));
    } else if (addr === PN532_ADDR) {
      seg.visible = visible();
      if (wires && wires.grab(seg.visible)) {
        // A PN532 grabbed SDA in this transaction: the master loses arbitration.
        seg = null;
        later.after(9 * bitNs(), () => lose(i2c));
        return;
      }
      ack = seg.visible.length > 0;
      if (ack && read) {
        // Several PN532s answering at once read as the wired-AND of their bytes.
        const src = new Uint8Array(FRAME_MAX + 1).fill(0xff);
        for (const r of seg.visible) {
          const [ready, frame] = link.read(r.index, now());
          seg.ready.push(ready);
          const mine = new Uint8Array(FRAME_MAX + 1);
          if (ready) { mine[0] = 1; mine.set(frame.subarray(0, FRAME_MAX), 1); }
          for (let i = 0; i < src.length; i++) src[i] &= mine[i];
        }
        seg.src = src;
      }
    }
    if (!ack) { stats.nacks++; seg = null; }
    later.after(9 * bitNs(), () => {
      i2c.completeConnect(ack);
      // The abort flushed the TX FIFO, so TX_EMPTY holds on the RP2040 (a level); rp2040js
      // does not raise it, and the SDK would wait for it until its timeout (ETIMEDOUT, not EIO).
      if (!ack) i2c.setInterrupts(R_TX_EMPTY);
    });
  };

  i2c.onWriteByte = (value) => {
    stats.bytes++;
    if (seg) {
      seg.data.push(value);
      if (mask.has(seg.addr)) {
        mask.set(seg.addr, value);
        wires?.update();
      }
    }
    later.after(9 * bitNs(), () => i2c.completeWrite(true));
  };

  i2c.onReadByte = () => {
    stats.bytes++;
    let v = 0xff;
    if (seg && seg.src) {
      v = seg.n < seg.src.length ? seg.src[seg.n] : 0;
      seg.n++;
    }
    later.after(9 * bitNs(), () => i2c.completeRead(v));
  };

  i2c.onStop = () => {
    finish();
    later.after(bitNs(), () => i2c.completeStop());
  };

  return { stats, mask, wires };
}

/** The master lost arbitration: idle again, its TX FIFO flushed (TX_EMPTY is a level). */
function lose(i2c) {
  i2c.arbitrationLost();
  i2c.setInterrupts(R_TX_EMPTY);
}

/**
 * One I2C bus's wires as the pins see them. pins: {chip, scl, sda, reset (GPIO or null),
 * faults: Map reader index -> {hold: clocks to free it (-1: never), holding}, levels()}.
 */
class Wires {
  constructor(pins, mask, readers) {
    this.pins = pins;
    this.mask = mask;
    this.readers = readers;
    this.log = []; // [kind, ns]: 'reset' (RESET pin low), 'clock' (SCL rising), 'stop', 'lost', 'grab'
    this.counts = { reset: 0, clock: 0, stop: 0, lost: 0, grab: 0 };
    const { chip, scl, sda, reset } = pins;
    chip.pullUp(scl);
    chip.pullUp(sda);
    this.scl = true;
    this.sda = true;
    chip.watchPin(scl, (level) => this.sclEdge(level));
    chip.watchPin(sda, (level) => this.sdaEdge(level));
    if (reset != null) {
      this.reset = chip.pins[reset].outputEnable ? chip.pins[reset].outputValue : false;
      chip.watchPin(reset, (level) => this.resetEdge(level));
    }
    this.update();
  }

  note(kind) {
    this.counts[kind]++;
    this.log.push([kind, this.pins.chip.nanos]);
    if (this.log.length > WIRE_LOG) this.log.splice(0, this.log.length - WIRE_LOG);
  }

  connected(r) {
    return r.mux === null || (this.mask.get(r.mux) & (1 << r.ch)) !== 0;
  }

  /** Is SDA held low on the trunk by a PN532 whose channel is connected? */
  held() {
    for (const r of this.readers) {
      const f = this.pins.faults.get(r.index);
      if (f && f.holding && this.connected(r)) return true;
    }
    return false;
  }

  /** A transaction reached these PN532s: one told to hold SDA grabs it (true if one did).
   * hold: -1 for good (until a cold power-on, or its channel is cut off), n > 0: until n
   * clocks reach it (after which it holds again only if told again). */
  grab(visible) {
    let any = false;
    for (const r of visible) {
      const f = this.pins.faults.get(r.index);
      if (f && f.hold !== 0 && !f.holding) {
        f.holding = true;
        any = true;
      }
    }
    if (any) {
      this.note('grab');
      this.update();
    }
    return any;
  }

  /** Drive the SDA pin low while a connected PN532 holds it. */
  update() {
    const low = this.held();
    this.pins.chip.drive(this.pins.sda, low ? false : null);
  }

  // A holding PN532 shifts a bit out per clock; after its last one it lets SDA go while SCL
  // is low (as a transmitter does), so releasing it makes no STOP.
  sclEdge(level) {
    if (level === this.scl) return;
    this.scl = level;
    const faults = this.pins.faults;
    if (!level) {
      for (const r of this.readers) {
        const f = faults.get(r.index);
        if (f && f.holding && f.hold === 0) f.holding = false;
      }
      this.update();
      return;
    }
    this.note('clock');
    for (const r of this.readers) {
      const f = faults.get(r.index);
      if (f && f.holding && f.hold > 0 && this.connected(r)) f.hold -= 1; // 0: the byte is out
    }
  }

  sdaEdge(level) {
    if (level === this.sda) return;
    this.sda = level;
    if (level && this.scl) this.note('stop');
  }

  resetEdge(level) {
    if (level === this.reset) return;
    this.reset = level;
    if (level) return;
    this.note('reset');
    for (const a of this.mask.keys()) this.mask.set(a, 0); // TCA9548A: RESET low, every channel off
    this.update();
  }
}

/**
 * SPI block `spi` (rp2040.spi[n]) with PN532s, each on its chip select GPIO.
 * readers: [{index, cs}].
 */
export function attachSPI(rp2040, spi, link, readers, pins = null) {
  const later = new Later(rp2040.clock);
  stallWhileSpinning(rp2040, spi, later, SPI_STATUS);
  const stats = { transactions: 0, bytes: 0, first: null };
  const sel = new Map(); // reader index -> transaction while its CS is low
  const now = () => rp2040.clock.nanos;

  for (const r of readers) {
    const pin = rp2040.gpio[r.cs];
    let low = false; // an undriven chip select is pulled up
    pin.addListener((state) => {
      const isLow = state === 0; // GPIOPinState.Low: driven low
      if (isLow === low) return;
      low = isLow;
      if (low) {
        sel.set(r.index, { op: -1, data: [], src: null, n: 0 });
        stats.transactions++;
        return;
      }
      const t = sel.get(r.index);
      sel.delete(r.index);
      if (!t) return;
      if (t.op === 1 && t.data.length) link.write(r.index, now(), Uint8Array.from(t.data));
      else if (t.op === 3 && t.src) link.take(r.index, now());
    });
  }

  function byte(wire) {
    // What the selected PN532s put on MISO for this byte (MSB-first master's view).
    let out = 0xff; // nobody drives MISO: pulled up
    for (const [index, t] of sel) {
      const v = REV[wire];
      let miso = 0;
      if (t.op < 0) {
        t.op = v;
      } else if (t.op === 1) {
        t.data.push(v);
      } else if (t.op === 2) {
        miso = link.read(index, now())[0] ? 1 : 0;
      } else if (t.op === 3) {
        if (!t.src) {
          const [ready, frame] = link.read(index, now());
          t.src = ready ? Uint8Array.from(frame) : new Uint8Array(0);
        }
        miso = t.n < t.src.length ? t.src[t.n] : 0;
        t.n++;
      }
      out &= REV[miso];
    }
    return out;
  }

  spi.onTransmit = (value) => {
    if (!stats.first && pins) stats.first = { ns: now(), pins: pins.levels() };
    stats.bytes++;
    const rx = byte(value & 0xff);
    const ns = (spi.dataBits * 1e9) / (spi.clockFrequency || 1e6);
    later.after(ns, () => spi.completeTransmit(rx));
  };

  return { stats };
}

/**
 * Attach every reader bus a board config (firmware/boards/*.json, parsed) describes.
 * With chip (a Chip): the pin-level parts too (I2C pull-ups, mux RESET, SDA held by the
 * PN532s in faults), and each bus's stats.first: when it first moved and the levels then of
 * its select pins (chip selects, mux RESET) and the readers' RSTPDN: 'high' | 'low' | 'off'.
 */
export function attachBoard(rp2040, board, link, chip = null, faults = new Map()) {
  const out = {};
  const readers = board.readers.map((r, index) => ({ ...r, index }));
  const rst = readers.filter((r) => r.rst != null).map((r) => r.rst)
    .concat(Object.values(board.buses || {}).filter((b) => b.rst != null).map((b) => b.rst));
  for (const [name, bus] of Object.entries(board.buses || {})) {
    const mine = readers.filter((r) => r.bus === name);
    const watch = (gps) => ({
      chip,
      faults,
      levels: () => Object.fromEntries(gps.map((gp) => [gp, chip.drivenBy(gp)])),
    });
    if (bus.kind === 'i2c') {
      const muxes = [...new Set(mine.filter((r) => r.mux != null).map((r) => parseInt(r.mux, 16)))];
      const reset = bus.reset ?? null;
      const pins = chip ? { ...watch([...(reset != null ? [reset] : []), ...rst]), scl: bus.scl, sda: bus.sda, reset } : null;
      out[name] = attachI2C(rp2040, rp2040.i2c[bus.id], link, muxes,
        mine.map((r) => ({ index: r.index, mux: r.mux == null ? null : parseInt(r.mux, 16), ch: r.ch || 0 })), pins);
    } else if (bus.kind === 'spi') {
      const pins = chip ? watch([...mine.map((r) => r.cs), ...rst]) : null;
      out[name] = attachSPI(rp2040, rp2040.spi[bus.id], link, mine.map((r) => ({ index: r.index, cs: r.cs })), pins);
    }
  }
  return out;
}
