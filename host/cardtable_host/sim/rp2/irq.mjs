// The readers' P70_IRQ lines on the rp2 board: low while a PN532 has a frame for the host (an
// ACK at once, an answer once its processing time on the emulated clock is over, the answer to
// an InListPassiveTarget retried for ever once a card comes), driven on the emulated GPIO at
// that emulated time, so the firmware's pin interrupt sees the edge when a real PN532 would
// make it (NXP UM0701-02: SAMConfiguration with IRQ, the line falls when a frame is ready).
// The levels come from the Python side that holds the PN532s (sim/rp2bus.py): after every
// write to or read from a reader with a line, and when a card arrives at an emulated time.

const OP_IRQ = 0x49; // 'I': the reader's line now and when it next falls (reply)
const OP_ARRIVE = 0x41; // 'A': the card staged for the reader comes into its field (reply as 'I')

/** Wraps a BusLink: reader writes and reads also update that reader's IRQ line. */
export class IrqLines {
  constructor(link, cfg) {
    this.link = link;
    this.pins = new Map(); // reader index -> GPIO of its P70_IRQ
    cfg.readers.forEach((r, i) => { if (r.irq != null) this.pins.set(i, r.irq); });
    this.chip = null;
    this.alarms = new Map();
    this.edges = 0; // falling edges driven on this chip
  }

  /** A new chip: the lines idle high (pulled up; the PN532s keep their state across a reset). */
  attach(chip) {
    this.chip = chip;
    this.alarms = new Map();
    this.edges = 0;
    for (const [i, gp] of this.pins) {
      chip.pullUp(gp);
      this.alarms.set(i, { alarm: chip.clock.createAlarm(() => this.update(i, chip.nanos)), low: false });
      this.update(i, chip.nanos);
    }
  }

  /** Ask the reader's line level and drive it; schedule the next fall if one is due. */
  update(i, ns) {
    const a = this.alarms.get(i);
    if (!a || !this.chip) return;
    this.apply(i, a, this.link.ask(OP_IRQ, i, ns), ns);
  }

  /** The card staged for reader i arrives now. */
  arrive(i, ns) {
    const a = this.alarms.get(i);
    const reply = this.link.ask(OP_ARRIVE, i, ns);
    if (a && this.chip) this.apply(i, a, reply, ns);
  }

  apply(i, a, reply, ns) {
    const low = reply[0] === 1;
    const next = reply.readDoubleLE(1); // emulated ns of the next fall, or -1
    if (low && !a.low) this.edges++;
    a.low = low;
    this.chip.drive(this.pins.get(i), low ? false : null);
    a.alarm.cancel();
    if (!low && next > ns) a.alarm.schedule(Math.max(1, Math.ceil(next - ns)));
  }

  /** The link the buses use: every frame written or taken updates the reader's line. */
  wrap() {
    const link = this.link;
    return {
      write: (r, ns, data) => { link.write(r, ns, data); this.update(r, ns); },
      take: (r, ns) => { link.take(r, ns); this.update(r, ns); },
      read: (r, ns) => link.read(r, ns),
      power: (ns, cold) => link.power(ns, cold),
      rstpdn: (r, ns) => { link.rstpdn(r, ns); this.update(r, ns); },
    };
  }
}
