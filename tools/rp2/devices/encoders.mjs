// The rp2 board's rotary encoders as a board.mjs device: `turn {encoder, steps}` turns one by
// that many detents (negative: back) as quadrature on its two GPIOs, switches to ground with
// the firmware's pull-ups (hw_rp2.Rp2Inputs counts a falling A edge: +1 when B reads high).
// Each detent: B set, then A low for STEP_NS, then both released, on the emulated clock.

const STEP_NS = 2e6;

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
        const back = steps < 0;
        let left = Math.abs(steps);
        return new Promise((resolve) => {
          const detent = () => {
            if (left-- <= 0 || board.chip !== chip) {
              resolve({ seen: board.chip === chip });
              return;
            }
            chip.press(enc.b, back); // B low turning back, high turning forward
            board.after(STEP_NS / 4, () => {
              chip.press(enc.a, true); // the falling A edge the firmware counts
              board.after(STEP_NS, () => {
                chip.press(enc.a, false);
                chip.press(enc.b, false);
                board.after(STEP_NS, detent);
              });
            });
          };
          detent();
        });
      },
    },
  };
}
