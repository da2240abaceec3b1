// The rp2 board's readers as a board.mjs device (host/cardtable_host/sim/rp2/devices): the board config's I2C and SPI
// reader buses (bus.mjs) on every new chip, talking to the Python side that holds the PN532s
// (host/cardtable_host/sim/rp2bus.py) over the socket inherited as $CARDTABLE_RP2_BUS_FD.
// A chip powered on cold (no reset reason carried) tells it first: the PN532s share the
// board's supply and restart with it; a watchdog or machine.reset() leaves them running.

import { BusLink, attachBoard } from '../bus.mjs';
import { IrqLines } from '../irq.mjs';

export const ENV_FD = 'CARDTABLE_RP2_BUS_FD';
const OP_SYNC = 0x53; // 'S': answered once every request before it has been handled (lockstep)

export default function readers(board) {
  const env = process.env[ENV_FD];
  if (!env) return {}; // started without readers (no board config)
  const fd = Number(env);
  if (!Number.isInteger(fd) || fd < 0) throw new Error(`readers.mjs: $${ENV_FD} is not a descriptor: ${env}`);
  const raw = new BusLink(fd);
  let buses = {};
  // reader index -> {hold, holding}: a PN532 told to hold SDA low (it outlives a chip reset:
  // the PN532s keep running; a cold power-on restarts them).
  const faults = new Map();
  const cfg = board.config || { buses: {}, readers: [] };
  const irq = new IrqLines(raw, cfg); // the readers' P70_IRQ lines (board "irq" pins)
  const link = irq.wrap();
  // GPIO -> reader indexes whose RSTPDN it drives (a reader's "rst", a bus's shared "rst" to
  // every reader on it, and wire_rst's).
  const rst = new Map();
  cfg.readers.forEach((r, i) => {
    const gp = r.rst ?? cfg.buses?.[r.bus]?.rst;
    if (gp != null) rst.set(gp, [...(rst.get(gp) || []), i]);
  });
  let rstLog = []; // [gp, level, ns] on the chip now
  const watchRst = (chip, gp) => {
    let level = chip.pins[gp].outputEnable ? chip.pins[gp].outputValue : false;
    chip.watchPin(gp, (now, ns) => {
      if (now === level || board.chip !== chip) return;
      level = now;
      if (rstLog.length < 200) rstLog.push([gp, now ? 1 : 0, ns]);
      if (now) for (const i of rst.get(gp) || []) link.rstpdn(i, ns); // a PN532 restarts as RSTPDN rises
      else if ((rst.get(gp) || []).some((i) => faults.delete(i))) { // in reset it lets go of SDA
        for (const b of Object.values(buses)) b.wires?.update();
      }
    });
  };
  return {
    // Lockstep (board.mjs pauses the chip): the Python side has handled every request sent so
    // far (the writes are not waited for) before the host may touch the readers.
    sync() {
      if (board.chip) raw.ask(OP_SYNC, 0, board.chip.nanos);
    },
    powerOn(chip) {
      const cold = !chip.watchdog.reason;
      link.power(chip.nanos, cold);
      if (cold) for (const f of faults.values()) f.holding = false;
      buses = attachBoard(chip.mcu, cfg, link, chip, faults);
      irq.attach(chip);
      rstLog = [];
      for (const gp of rst.keys()) watchRst(chip, gp);
    },
    ops: {
      // {arrivals: [{reader, in_ns}]}: each reader's staged card (Readers.stage) comes into its
      // field that much emulated time from now; its IRQ line falls when its PN532 answers.
      arrive(req) {
        const chip = board.chip;
        if (!chip) throw new Error('no chip running');
        const at = [];
        for (const a of req.arrivals || []) {
          const i = Number(a.reader);
          const ns = Math.max(0, Number(a.in_ns) || 0);
          at.push(chip.nanos + ns);
          board.after(ns, () => irq.arrive(i, board.chip.nanos));
        }
        return { at_ns: at };
      },
      irqstats() {
        return { edges: irq.edges, lines: Object.fromEntries(irq.pins) };
      },
      busstats() {
        const out = {};
        for (const [name, b] of Object.entries(buses)) {
          out[name] = b.wires ? { ...b.stats, pins: b.wires.counts, log: b.wires.log } : b.stats;
        }
        return { buses: out, requests: raw.requests, calls: raw.calls };
      },
      // {pins: {GPIO: reader or [readers]}}: wire readers' RSTPDN to GPIOs (beside the board's
      // "rst"); returns the RSTPDN edges seen so far on this chip: [[gp, level, ns], ...].
      wire_rst(req) {
        const chip = board.chip;
        for (const [gp, who] of Object.entries(req.pins || {})) {
          const g = Number(gp);
          if (!rst.has(g)) {
            rst.set(g, []);
            if (chip) watchRst(chip, g);
          }
          for (const i of [].concat(who)) if (!rst.get(g).includes(Number(i))) rst.get(g).push(Number(i));
        }
        return { log: rstLog };
      },
      // {reader, clocks, now}: the reader holds SDA low from the next transaction addressed to
      // it (now: from now on, as one a chip reset cut off mid-byte), until that many SCL clocks
      // reach it (-1 or absent: for good); clocks 0: let go now.
      hold_sda(req) {
        const i = Number(req.reader);
        if (!Number.isInteger(i) || i < 0 || i >= cfg.readers.length) throw new Error(`no reader ${req.reader}`);
        if (cfg.buses?.[cfg.readers[i].bus]?.kind !== 'i2c') throw new Error(`reader ${i} is not on an I2C bus`);
        const clocks = req.clocks == null ? -1 : Number(req.clocks);
        if (clocks === 0) faults.delete(i);
        else faults.set(i, { hold: clocks, holding: !!req.now });
        for (const b of Object.values(buses)) b.wires?.update();
        return { reader: i, clocks };
      },
    },
  };
}
