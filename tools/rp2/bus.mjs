// The rp2 board's reader buses: TCA9548A multiplexers and PN532 readers on the RP2040's I2C
// blocks, PN532 readers on its SPI blocks with a chip select each on GPIO.
//
// The wire faces live here (addresses, ACKs, the mux's control register, the PN532's I2C
// status byte and its SPI op bytes, bit order); the PN532s themselves (frames, commands,
// tags) are host/cardtable_host/sim/pn532_emu.py in the Python process that started us,
// reached over a blocking socket (BusLink): while it answers, this whole process (the
// chip included) waits, so emulated time does not move. Only a transaction that needs a
// PN532's answer asks (an I2C read, an SPI status or data read); writes are sent and not
// waited for.
//
// Bus time is real: every byte completes after its bit times on the emulated clock (I2C: 9
// bits at the SCL period the firmware programmed, plus a bit for START and for STOP; SPI: the
// data bits at the programmed baud rate).
//
// Sources: TI TCA9548A datasheet SCPS207H (one control byte, a bit per channel); NXP UM0701-02
// (PN532 user manual) 6.2.4/6.2.5: I2C reads begin with a status byte (bit 0: ready), SPI
// frames begin with an op byte (01 data write, 02 status read, 03 data read), LSB first.

import fs from 'node:fs';

const PN532_ADDR = 0x24;
const R_TX_EMPTY = 1 << 4; // IC_RAW_INTR_STAT.TX_EMPTY
const FRAME_MAX = 300; // longest answer the host may read in one I2C transaction

// Requests to Python: u32 length of the rest, u8 op, u8 reader, f64 emulated ns, payload.
const OP_WRITE = 0x57; // 'W': host frame bytes for a reader (no reply)
const OP_READ = 0x52; // 'R': the reader's status and pending frame, not taken (reply)
const OP_TAKE = 0x54; // 'T': the host read the pending frame (no reply)
const OP_POWER = 0x50; // 'P': a new chip; reader 1: a cold power-on (the PN532s restart too)

function rev8(b) {
  let r = 0;
  for (let i = 0; i < 8; i++) { r = (r << 1) | (b & 1); b >>= 1; }
  return r;
}
const REV = Uint8Array.from({ length: 256 }, (_, i) => rev8(i));

/** The blocking request/reply channel to the Python side that holds the PN532s. */
export class BusLink {
  constructor(fd) {
    this.fd = fd;
    this.head = Buffer.alloc(4);
    this.requests = 0;
    this.calls = 0;
  }

  _send(op, reader, nanos, payload) {
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

  /** [ready, frame]: is a frame ready for the host, and which (not taken). */
  read(reader, nanos) {
    this._send(OP_READ, reader, nanos, null);
    this.calls++;
    const len = this._readExactly(4).readUInt32LE(0);
    const body = this._readExactly(len);
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
      fn();
    });
  }

  after(ns, fn) {
    this.fn = fn;
    this.alarm.schedule(ns);
  }
}

/**
 * I2C block `i2c` (rp2040.i2c[n]) with TCA9548A muxes and PN532s on it.
 * muxes: 7-bit addresses; readers: [{index, mux (address or null), ch}].
 */
export function attachI2C(rp2040, i2c, link, muxes, readers) {
  const mask = new Map(muxes.map((a) => [a, 0]));
  const later = new Later(rp2040.clock);
  const stats = { transactions: 0, bytes: 0, nacks: 0 };
  let seg = null; // the transaction in progress: {addr, read, data, src, n, visible}

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
      if (mask.has(seg.addr)) mask.set(seg.addr, value);
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

  return { stats, mask };
}

/**
 * SPI block `spi` (rp2040.spi[n]) with PN532s, each on its chip select GPIO.
 * readers: [{index, cs}].
 */
export function attachSPI(rp2040, spi, link, readers) {
  const later = new Later(rp2040.clock);
  const stats = { transactions: 0, bytes: 0 };
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
    stats.bytes++;
    const rx = byte(value & 0xff);
    const ns = (spi.dataBits * 1e9) / (spi.clockFrequency || 1e6);
    later.after(ns, () => spi.completeTransmit(rx));
  };

  return { stats };
}

/** Attach every reader bus a board config (firmware/boards/*.json, parsed) describes. */
export function attachBoard(rp2040, board, link) {
  const out = {};
  const readers = board.readers.map((r, index) => ({ ...r, index }));
  for (const [name, bus] of Object.entries(board.buses || {})) {
    const mine = readers.filter((r) => r.bus === name);
    if (bus.kind === 'i2c') {
      const muxes = [...new Set(mine.filter((r) => r.mux != null).map((r) => parseInt(r.mux, 16)))];
      out[name] = attachI2C(rp2040, rp2040.i2c[bus.id], link, muxes,
        mine.map((r) => ({ index: r.index, mux: r.mux == null ? null : parseInt(r.mux, 16), ch: r.ch || 0 })));
    } else if (bus.kind === 'spi') {
      out[name] = attachSPI(rp2040, rp2040.spi[bus.id], link, mine.map((r) => ({ index: r.index, cs: r.cs })));
    }
  }
  return out;
}
