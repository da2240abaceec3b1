// The rp2 board's rotary encoders as a board.mjs device: `turn {encoder, steps, bounce_ms}`
// turns one by that many detents (negative: back) as quadrature on its two GPIOs, switches to
// ground read through the firmware's pull-ups. A detent is a whole Gray cycle from the rest
// state (both contacts open, A = B = 1), as on a Bourns PEC11R (24 pulses and 24 detents a
// turn): forward A closes, B closes, A opens, B opens; back the same with B leading.
// bounce_ms (default 0): every contact change chatters for that long first (the PEC11R
// bounces up to 2 ms), then holds its level for HOLD_NS, longer than the firmware's 3 ms
// settle time (drivers/encoder.py). `half: true` closes the leading contact and lets it
// spring back, as a knob nudged without reaching the next detent.

const HOLD_NS = 3.5e6; // each quarter's level after its chatter
const CHATTER_NS = 0.25e6; // a bouncing contact flips this often

export default function encoders(board) {
  const all = board.config?.encoders || {};
  return {
    ops: {
      turn(req) {
        const enc = all[req.encoder];
        if (!enc) {
          throw new Error(`no encoder ${JSON.stringify(req.encoder)} (encoders: ${Object.keys(all).sort().join(', ') || 'none'})`);
        }
        const chip = board.chip;
        if (!chip) throw new Error('the board is off');
        const steps = Number(req.steps) | 0;
        const bounce = Math.max(0, Number(req.bounce_ms ?? 0)) * 1e6;
        const [lead, lag] = steps < 0 ? [enc.b, enc.a] : [enc.a, enc.b];
        // Each change: [gp, closed]; a detent is four, a nudge two.
        const changes = [];
        if (req.half) changes.push([lead, true], [lead, false]);
        for (let k = Math.abs(steps); k > 0; k--) changes.push([lead, true], [lag, true], [lead, false], [lag, false]);
        return new Promise((resolve) => {
          const next = () => {
            if (!changes.length || board.chip !== chip) {
              resolve({ seen: board.chip === chip });
              return;
            }
            const [gp, closed] = changes.shift();
            let flips = Math.floor(bounce / CHATTER_NS) | 1; // odd: it ends on the new level
            const chatter = () => {
              chip.press(gp, flips % 2 === 1 ? closed : !closed);
              if (--flips > 0) board.after(CHATTER_NS, chatter);
              else board.after(HOLD_NS, next);
            };
            if (bounce > 0) chatter();
            else {
              chip.press(gp, closed);
              board.after(HOLD_NS, next);
            }
          };
          next();
        });
      },
    },
  };
}
