// Two chips on one image, one decoding by rp2040js's own chain, one by dispatch.mjs's table,
// stepped an instruction at a time through the boot: after every instruction both must hold
// the same PC, registers, flags, cycles and wait state; waits for an interrupt skip to the
// next alarm on both, as Chip.run does. Prints one JSON line.
//   node tests/host/rp2_dispatch_check.mjs BOOTROM IMAGE.uf2 MAX_INSTRUCTIONS
import fs from 'node:fs';
import { Chip, bootromWords, flashFromUF2 } from '../../host/cardtable_host/sim/rp2/chip.mjs';

const [bootromFile, imageFile, most] = process.argv.slice(2);
const bootrom = bootromWords(fs.readFileSync(bootromFile));
const flash = flashFromUF2(fs.readFileSync(imageFile));
const chain = new Chip({ flash, bootrom, chain: true });
const table = new Chip({ flash, bootrom });
const a = chain.mcu.core;
const b = table.mcu.core;
const kinds = new Set(); // the distinct opcodes' top bits run (a rough count of instruction kinds)
let n = 0;
let differ = null;
const state = (c) => [c.PC, c.N, c.Z, c.C, c.V, c.waiting, c.cycles, ...c.registers].join(',');
const same = () => a.PC === b.PC && a.N === b.N && a.Z === b.Z && a.C === b.C && a.V === b.V
  && a.waiting === b.waiting && a.cycles === b.cycles && a.registers.every((r, i) => r === b.registers[i]);
while (n < +most) {
  if (a.waiting) { // both wait for an interrupt: on to the next alarm, as Chip.run does
    const next = chain.clock.nextAlarm ? chain.clock.nanosToNextAlarm : Infinity;
    if (next === Infinity) break;
    chain.clock.tick(next);
    table.clock.tick(next);
  }
  kinds.add(a.readUint16(a.PC & ~1) >> 6);
  const da = a.executeInstruction();
  const db = b.executeInstruction();
  n++;
  if (da !== db || !same()) {
    differ = { at: n, pc: a.PC, chain: state(a), table: state(b) };
    break;
  }
  chain.clock.tick(da * 8);
  table.clock.tick(db * 8);
}
console.log(JSON.stringify({ tabled: table.tabled, chainTabled: chain.tabled, instructions: n,
                             kinds: kinds.size, waiting: a.waiting, emulated_ms: chain.clock.nanos / 1e6, differ }));
