// The rp2 board's readers as a board.mjs device (tools/rp2/devices): the board config's I2C and SPI
// reader buses (bus.mjs) on every new chip, talking to the Python side that holds the PN532s
// (host/cardtable_host/sim/rp2bus.py) over the socket inherited as $CARDTABLE_RP2_BUS_FD.
// A chip powered on cold (no reset reason carried) tells it first: the PN532s share the
// board's supply and restart with it; a watchdog or machine.reset() leaves them running.

import { BusLink, attachBoard } from '../bus.mjs';

export const ENV_FD = 'CARDTABLE_RP2_BUS_FD';

export default function readers(board) {
  const raw = process.env[ENV_FD];
  if (!raw) return {}; // started without readers (no board config)
  const fd = Number(raw);
  if (!Number.isInteger(fd) || fd < 0) throw new Error(`readers.mjs: $${ENV_FD} is not a descriptor: ${raw}`);
  const link = new BusLink(fd);
  let buses = {};
  return {
    powerOn(chip) {
      link.power(chip.nanos, !chip.watchdog.reason);
      buses = attachBoard(chip.mcu, board.config || { buses: {}, readers: [] }, link);
    },
    ops: {
      busstats() {
        const out = {};
        for (const [name, b] of Object.entries(buses)) out[name] = b.stats;
        return { buses: out, requests: link.requests, calls: link.calls };
      },
    },
  };
}
