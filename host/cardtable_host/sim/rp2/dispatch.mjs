// The core's instruction decode by table: rp2040js's own instruction bodies, reached in one step.
//
// rp2040js's CortexM0Core.executeInstruction finds an instruction's body by testing its opcode
// against each encoding in turn, an if/else-if chain of ~90 tests, so the common loads, stores
// and branches pay dozens of tests each (the method, tests and bodies, was half the emulator's
// time in a profile of a game). The tests read only the opcode (and, for a few 32-bit
// encodings, its second half), so which body an opcode reaches is known before the chip runs:
// `fastDispatch` reads the method's source, takes its chain apart, decides for each of the
// 65,536 opcodes the first branch it can reach, and builds the same method with a switch on
// that table. A branch whose test also reads the second half starts the original chain from
// there. The bodies, their order and every cycle count are rp2040js's own text; only the
// search for them changes, so the chip's behaviour and emulated times are the same to the
// cycle (tests/host/test_rp2_dispatch.py runs both side by side). If the method's text is not
// the shape this expects, the core keeps its own.

const START = 'let deltaCycles = 1;';
const END = 'this.cycles += deltaCycles;';

/** The index just past the bracket matching the one at `open` (strings, templates, comments skipped). */
function closing(src, open) {
  const pairs = { '(': ')', '{': '}', '[': ']' };
  const stack = [pairs[src[open]]];
  let i = open + 1;
  while (i < src.length) {
    const c = src[i];
    if (c === '/' && src[i + 1] === '/') i = src.indexOf('\n', i);
    else if (c === '/' && src[i + 1] === '*') i = src.indexOf('*/', i) + 1;
    else if (c === '"' || c === "'") {
      for (i++; src[i] !== c; i++) if (src[i] === '\\') i++;
    } else if (c === '`') {
      for (i++; src[i] !== '`'; i++) {
        if (src[i] === '\\') i++;
        else if (src[i] === '$' && src[i + 1] === '{') i = closing(src, i + 1) - 1;
      }
    } else if (pairs[c]) stack.push(pairs[c]);
    else if (c === stack[stack.length - 1]) {
      stack.pop();
      if (!stack.length) return i + 1;
    }
    if (i < 0) break;
    i++;
  }
  throw new Error('unbalanced source');
}

/** Skip blanks and comments from i. */
function skip(src, i) {
  for (;;) {
    while (/\s/.test(src[i])) i++;
    if (src.startsWith('//', i)) i = src.indexOf('\n', i);
    else if (src.startsWith('/*', i)) i = src.indexOf('*/', i) + 2;
    else return i;
  }
}

/** The chain's branches: [{test: source or null (the last else), body: source with braces}]. */
function branches(chain) {
  const out = [];
  let i = skip(chain, 0);
  for (let first = true; i < chain.length; first = false) {
    let test = null;
    if (!first) {
      if (!chain.startsWith('else', i)) throw new Error('expected else');
      i = skip(chain, i + 4);
    }
    if (chain.startsWith('if', i)) {
      const open = skip(chain, i + 2);
      const end = closing(chain, open);
      test = chain.slice(open, end);
      i = skip(chain, end);
    } else if (first) throw new Error('expected if');
    if (chain[i] !== '{') throw new Error('expected a block');
    const end = closing(chain, i);
    out.push({ test, body: chain.slice(i, end) });
    i = skip(chain, end);
    if (test === null) break;
  }
  if (skip(chain, i) < chain.length) throw new Error('text after the chain');
  return out;
}

/** A test's top-level && terms (the whole test as one term if || or ?: stands beside them). */
function terms(test) {
  const inner = test.slice(1, -1);
  const out = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && (c === '?' || (c === '|' && inner[i + 1] === '|'))) return [inner];
    else if (depth === 0 && c === '&' && inner[i + 1] === '&') {
      out.push(inner.slice(from, i));
      from = i + 2;
      i++;
    }
  }
  out.push(inner.slice(from));
  return out;
}

/** The method's source with its chain searched by table, or null if its shape is not known. */
function tabled(method) {
  const src = method.toString();
  const bodyAt = src.indexOf('{');
  const start = src.indexOf(START);
  const end = src.lastIndexOf(END);
  if (bodyAt < 0 || start < 0 || end < start) return null;
  const chainAt = start + START.length;
  const chain = src.slice(chainAt, end);
  const list = branches(chain);
  if (list[list.length - 1].test !== null) return null;
  // per branch: the terms that read the opcode alone, and whether the rest reads opcode2
  const tests = list.map(({ test }) => {
    if (test === null) return { fixed: [], later: false };
    const all = terms(test);
    const fixed = all.filter((t) => !/\bopcode2\b/.test(t));
    // a term decided before the chip runs may name the opcode alone (and number literals)
    if (fixed.some((t) => (t.match(/\b[A-Za-z_$][\w$]*/g) || []).some((w) => w !== 'opcode'))) return null;
    return { fixed: fixed.map((t) => new Function('opcode', `return (${t});`)), later: fixed.length < all.length };
  });
  if (tests.includes(null)) return null;
  const table = new Uint8Array(65536);
  const used = new Set();
  for (let op = 0; op < 65536; op++) {
    let k = 0;
    while (k < list.length - 1 && !tests[k].fixed.every((f) => f(op))) k++;
    table[op] = k;
    used.add(k);
  }
  // the chain's source from branch k on: its texts as they stand in the method, k's `if` first
  const from = (k) => list.slice(k).map(({ test, body }, j) =>
    (j ? 'else ' : '') + (test === null ? body : `if ${test} ${body}`)).join('\n');
  const cases = [...used].sort((a, b) => a - b).map((k) =>
    `case ${k}: ${tests[k].later ? `{ ${from(k)} }` : list[k].body} break;`).join('\n');
  return {
    table,
    source: `${src.slice(bodyAt, chainAt)}\nswitch (TABLE[opcode]) {\n${cases}\n}\n${src.slice(end, src.lastIndexOf('}'))}}`,
  };
}

const cache = new Map(); // CortexM0Core.prototype -> the tabled method, or null

/** What the core's module defines above its class (helpers such as signExtend8), as source. */
function prelude(moduleSource) {
  const at = moduleSource.indexOf('export class CortexM0Core');
  if (at < 0) throw new Error('no CortexM0Core class');
  return moduleSource.slice(0, at).replace(/^import .*$/gm, '').replace(/^export /gm, '');
}

/**
 * Give `core` (an rp2040js CortexM0Core) the tabled executeInstruction; `moduleSource` is the
 * text of rp2040js's cortex-m0-core.js (the method's helpers are defined there). Returns false,
 * the core unchanged, when the method is not the shape this knows.
 */
export function fastDispatch(core, moduleSource) {
  const proto = Object.getPrototypeOf(core);
  if (!cache.has(proto)) {
    let made = null;
    try {
      const t = tabled(proto.executeInstruction);
      if (t) {
        made = new Function('TABLE', `${prelude(moduleSource)}\nreturn function executeInstruction() ${t.source};`)(t.table);
      }
    } catch {
      made = null;
    }
    cache.set(proto, made);
  }
  const method = cache.get(proto);
  if (method) core.executeInstruction = method;
  return method !== null;
}
