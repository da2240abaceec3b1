// A record of one chip's play: the flash as it was when the record began, every erase and
// program after that in order (with the bytes programmed), and the serial lines both ways,
// each with the emulated time it crossed the USB. host/cardtable_host/sim/rp2/board.mjs keeps one (the
// `record` control op) and rebuilds from it the flash a power cut at any point of that play
// leaves (`restore`): the operations finished by then done, the one in progress cut part-way
// as chip.mjs's ops model a cut (RAM is lost, so the flash is all a cut leaves). The power-cut
// trials (host/cardtable_host/sim/cutreplay.py) boot a new chip from each such flash.

export class FlashLog {
  /** Begin on chip (a Chip): its flash now, and an operation it is in the middle of. */
  constructor(chip) {
    this.chip = chip;
    this.base = Uint8Array.from(chip.flash);
    this.ops = []; // [op, startNs]
    this.lines = []; // [dir ('in' | 'out'), ns, text]
    this.part = { in: '', out: '' };
    this.on = true;
    this.broken = null; // why the record stopped early (the chip was replaced)
    if (chip.busy) this.ops.push([chip.busy.op, chip.busy.start]);
  }

  flashOp(chip, op, start) {
    if (this.on && chip === this.chip) this.ops.push([op, start]);
  }

  serial(chip, dir, bytes) {
    if (!this.on || chip !== this.chip) return;
    const text = this.part[dir] + Buffer.from(bytes).toString('latin1');
    const parts = text.split('\n');
    this.part[dir] = parts.pop();
    for (const line of parts) {
      const t = line.replace(/\r$/, '');
      if (t) this.lines.push([dir, chip.nanos, t]);
    }
  }

  /** The chip this record follows went away (a reset, a power cut): the record ends there. */
  lost(why) {
    if (this.on) this.broken = why;
    this.on = false;
  }

  stop() {
    this.on = false;
  }

  /** What the host needs to place cuts: each op as [kind, startNs, ns, offset, size]. */
  summary() {
    return {
      ops: this.ops.map(([op, start]) => [op.kind, start, op.ns, op.offset, op.size]),
      lines: this.lines,
      broken: this.broken,
    };
  }

  /** The flash a power cut leaves `cutNs` into op `upto` (null: just before it starts; upto
   * may be ops.length, after the last). */
  image(upto, cutNs = null) {
    if (!(upto >= 0 && upto <= this.ops.length)) throw new Error(`restore: no operation ${upto} (0-${this.ops.length})`);
    const flash = Uint8Array.from(this.base);
    for (let i = 0; i < upto; i++) this.ops[i][0].done(flash);
    if (cutNs !== null) {
      if (upto === this.ops.length) throw new Error('restore: cut_ns needs an operation to cut');
      const op = this.ops[upto][0];
      if (!(cutNs >= 0 && cutNs < op.ns)) throw new Error(`restore: cut_ns outside the operation (0-${op.ns})`);
      op.cut(flash, cutNs);
    }
    return flash;
  }
}
