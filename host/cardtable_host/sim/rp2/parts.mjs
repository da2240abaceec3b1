// What a card table's board wires to the chip's pins, seen from outside: WS2812 LEDs decoded
// from their data pin, buttons to ground, the piezo's tone. Each part is built for one Chip
// (a reset builds new ones on the new chip); state that outlives a chip lives in the Board.

// WS2812B datasheet: a bit is a high pulse, 0 is ~400 ns and 1 is ~800 ns; a low of more than
// 50 us latches the frame.
const WS2812_ONE_NS = 625;
const WS2812_RESET_NS = 50000;
const LATCH_LOG = 256;

/** The colours a WS2812 chain shows, decoded from the edges on its data pin. */
export class Ws2812 {
  constructor(chip, gp, count, order = 'GRB') {
    this.chip = chip;
    this.count = count;
    this.bytesPer = order.includes('W') ? 4 : 3;
    this.order = order;
    this.shown = Array.from({ length: count }, () => [0, 0, 0]);
    this.frames = 0;
    this.latched = []; // [emulated ns of the latch, colours shown], the last LATCH_LOG frames
    this.bits = [];
    this.level = false;
    this.rise = 0;
    this.fall = 0;
    chip.watchPin(gp, (level, ns) => this.edge(level, ns));
  }

  edge(level, ns) {
    if (level === this.level) return;
    this.level = level;
    if (level) {
      if (this.bits.length && ns - this.fall >= WS2812_RESET_NS) this.latch();
      this.rise = ns;
    } else {
      this.fall = ns;
      this.bits.push(ns - this.rise >= WS2812_ONE_NS ? 1 : 0);
    }
  }

  latch() {
    const bits = this.bits;
    this.bits = [];
    const n = Math.floor(bits.length / 8);
    const bytes = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      let v = 0;
      for (let k = 0; k < 8; k++) v = (v << 1) | bits[i * 8 + k];
      bytes[i] = v;
    }
    // The wire carries G, R, B (and W) per LED: what the strip shows as (r, g, b).
    for (let led = 0; led < this.count && (led + 1) * this.bytesPer <= n; led++) {
      const at = led * this.bytesPer;
      this.shown[led] = [bytes[at + 1], bytes[at], bytes[at + 2]];
    }
    this.frames += 1;
    this.latched.push([this.fall + WS2812_RESET_NS, this.shown.map((p) => p.slice())]);
    if (this.latched.length > LATCH_LOG) this.latched.shift();
  }

  /** The colours now (a frame whose latch time has passed counts as shown). */
  pixels() {
    if (this.bits.length && !this.level && this.chip.nanos - this.fall >= WS2812_RESET_NS) this.latch();
    return this.shown.map((p) => p.slice());
  }

  /** The frames latched at or after emulated ns `since`: [[latch ns, colours], ...]. */
  framesSince(since) {
    this.pixels();
    return this.latched.filter((f) => f[0] >= since);
  }
}

/** Buttons to ground by name: press(name, holdNs) holds one low for a while on the emulated clock. */
export class Buttons {
  constructor(chip, pins) {
    this.chip = chip;
    this.pins = pins; // name -> GPIO
  }

  gpio(name) {
    const gp = this.pins[name];
    if (gp === undefined) {
      const names = Object.keys(this.pins).sort();
      throw new Error(`no button ${JSON.stringify(name)} (buttons: ${names.join(', ') || 'none'})`);
    }
    return gp;
  }

  /** Hold a button down until the emulated clock has moved holdNs on, then call done(). */
  press(name, holdNs, done) {
    const gp = this.gpio(name);
    this.chip.press(gp, true);
    const alarm = this.chip.clock.createAlarm(() => {
      this.chip.press(gp, false);
      done?.();
    });
    alarm.schedule(holdNs);
  }

  hold(name, down) {
    this.chip.press(this.gpio(name), down);
  }
}
