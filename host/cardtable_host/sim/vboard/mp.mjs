// Running the pinned WebAssembly MicroPython under Node, shared by the virtual board (board.mjs
// here) and the test runner (tools/mpy/mp.mjs adds its own pieces): locating the package,
// loading it with an enforced heap cap, MEMFS folders, the command line.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeAll } from '../boardio.mjs';

export const TOOLS_DIR = path.dirname(fileURLToPath(import.meta.url));  // host/cardtable_host/sim/vboard
export const REPO_ROOT = path.resolve(TOOLS_DIR, '..', '..', '..', '..');
export const PACKAGE = '@micropython/micropython-webassembly-pyscript';
// Path to micropython.mjs (or the package directory) to use instead of ./node_modules.
export const ENV_PACKAGE = 'CARDTABLE_MICROPYTHON_WASM';
export const COPY_EXTS = ['.py', '.mpy', '.json', '.jsonl', '.txt', '.bin'];
// Where the runner's own Python modules live in MEMFS; their frames are cut from tracebacks.
export const RUNNER_MEMFS_DIR = '/.mprun';
// Bytes of malloc pool left free after the cap soaks up the rest, for JS<->C glue buffers.
const GLUE_RESERVE = 32 * 1024;

export class RunnerError extends Error {}

// A tool's options from its command line (parse throws RunnerError on a bad one), or the exit
// status when there is nothing to run: 2 after a bad command line (said on stderr with the
// usage), 0 after --help (the usage on stdout).
export function commandLine(parse, name, usage) {
  let o;
  try {
    o = parse(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof RunnerError)) throw e;
    process.stderr.write(`${name}: ${e.message}\n${usage}\n`);
    return 2;
  }
  if (o.help) {
    process.stdout.write(usage + '\n');
    return 0;
  }
  return o;
}

export function resolvePackage() {
  const override = process.env[ENV_PACKAGE];
  if (override) {
    let p = path.resolve(override);
    if (fs.existsSync(p) && fs.statSync(p).isDirectory()) p = path.join(p, 'micropython.mjs');
    if (!fs.existsSync(p)) throw new RunnerError(`${ENV_PACKAGE}=${override}: no micropython.mjs there`);
    return p;
  }
  try {
    return createRequire(path.join(REPO_ROOT, 'package.json')).resolve(`${PACKAGE}/micropython.mjs`);
  } catch {
    throw new RunnerError(`${PACKAGE} is not installed: run \`npm ci\` in the repository root ` +
      `(or set ${ENV_PACKAGE} to its micropython.mjs)`);
  }
}

// The npm build keeps Emscripten's assertions in its JS glue, and one sits on the hottest path of
// all: every call through the function table (each of the port's try blocks goes through one)
// looks the function up a second time to check the glue's cache. Measured on test_nexus: 17 % of
// the run. The glue is loaded from a copy without that one check, in build/ under the hash of
// the glue ($CARDTABLE_BUILD when set); MicroPython itself, the package's .wasm, is loaded from the package (loadMicroPython's
// `url`). A package whose glue differs is loaded as it is.
const TABLE_CHECK = 'assert(wasmTable.get(funcPtr)==func,"JavaScript-side Wasm function table mirror is out of date!"),';

export function fastGlue(glue) {
  const src = fs.readFileSync(glue, 'utf8');
  if (src.split(TABLE_CHECK).length !== 2) return glue;
  const key = crypto.createHash('sha256').update(src).digest('hex').slice(0, 16);
  // build/ of the checkout, or where CARDTABLE_BUILD says (an installed cardtable: its cache)
  const build = process.env.CARDTABLE_BUILD ? path.resolve(process.env.CARDTABLE_BUILD) : path.join(REPO_ROOT, 'build');
  const out = path.join(build, 'micropython-wasm', key, 'micropython.mjs');
  if (fs.existsSync(out)) return out;
  try {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    // written under a temporary name and renamed: a process starting beside this one never
    // loads half a file
    const tmp = `${out}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, src.replace(TABLE_CHECK, ''));
    fs.renameSync(tmp, out);
    return out;
  } catch {
    return glue;  // build/ not writable: the package's own glue works, only slower
  }
}

export function parseSize(text) {
  const m = /^(\d+)([kKmM]?)$/.exec(String(text));
  if (!m) throw new RunnerError(`bad size ${JSON.stringify(text)} (expected e.g. 192k, 1m, 65536)`);
  const mult = { '': 1, k: 1024, m: 1024 * 1024 }[m[2].toLowerCase()];
  return Number(m[1]) * mult;
}

// Emulated PN532s live in the MicroPython heap, which a real board's readers do not: the virtual
// board and the test runner give them this much on top of the table's heap. Measured with the
// .mpy build: the emulator module ~19 KB, each reader's emulator ~0.5 KB and a tag in its
// field ~0.3 KB.
const EMU_MODULE = 20 * 1024;
const EMU_PER_READER = 1024;

export function emuAllowance(readers) {
  return EMU_MODULE + EMU_PER_READER * readers;
}

export function formatSize(n) {
  if (n % (1024 * 1024) === 0) return `${n / (1024 * 1024)}m`;
  if (n % 1024 === 0) return `${n / 1024}k`;
  return String(n);
}

// A byte sink on a file descriptor: buffered, flushed at each newline and on demand.
export class FdWriter {
  constructor(fd) {
    this.fd = fd;
    this.buf = Buffer.alloc(8192);
    this.len = 0;
  }

  byte(c) {
    if (this.len === this.buf.length) this.flush();
    this.buf[this.len++] = c;
    if (c === 10) this.flush();
  }

  write(data) {
    this.flush();
    writeAll(this.fd, typeof data === 'string' ? Buffer.from(data) : data);
  }

  flush() {
    if (this.len) {
      writeAll(this.fd, this.buf.subarray(0, this.len));
      this.len = 0;
    }
  }
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

// stdin for MicroPython: one byte per call from fd 0, null at end of input.
function stdinReader() {
  const buf = Buffer.alloc(4096);
  let pos = 0;
  let end = 0;
  let eof = false;
  return () => {
    while (pos === end && !eof) {
      try {
        end = fs.readSync(0, buf, 0, buf.length, null);
        pos = 0;
        if (end === 0) eof = true;
      } catch (e) {
        if (e.code === 'EAGAIN') Atomics.wait(sleepCell, 0, 0, 5);
        else if (e.code === 'EOF') eof = true;
        else throw e;
      }
    }
    return pos < end ? buf[pos++] : null;
  };
}

const GROW_NOISE = /^(growMemory: Attempted|Failed to grow the heap|Cannot enlarge memory)/;

// Load MicroPython with a GC heap of `heap` bytes. With cap, the heap cannot grow past it:
// the port (MICROPY_GC_SPLIT_HEAP_AUTO) would otherwise malloc extra heap areas forever,
// so refuse WebAssembly memory growth and take every free malloc byte for ourselves.
export async function loadMicroPython({ heap = 192 * 1024, cap = false, stdout, stderr, stdin } = {}) {
  const glue = resolvePackage();
  const { loadMicroPython: load } = await import(pathToFileURL(fastGlue(glue)).href);
  const out = stdout || new FdWriter(1);
  const err = stderr || new FdWriter(2);
  const input = stdin || stdinReader();
  let memory = null;
  const instantiate = WebAssembly.instantiate;
  const consoleError = console.error;
  // Emscripten binds console.error when the module is created; growth refusals are expected.
  console.error = (...args) => {
    if (!GROW_NOISE.test(String(args[0]))) consoleError(...args);
  };
  WebAssembly.instantiate = async (...args) => {
    const result = await instantiate.apply(WebAssembly, args);
    memory = (result.instance || result).exports.memory;
    return result;
  };
  let mp;
  try {
    mp = await load({
      url: path.join(path.dirname(glue), 'micropython.wasm'), // the package's, wherever the glue is
      heapsize: heap,
      linebuffer: false,
      stdout: (bytes) => { for (const c of bytes) out.byte(c); },
      stderr: (bytes) => { for (const c of bytes) err.byte(c); },
      stdin: input,
    });
  } finally {
    WebAssembly.instantiate = instantiate;
    console.error = consoleError;
  }
  const session = { mp, heap, cap: false, stdout: out, stderr: err, soaked: 0 };
  if (cap) applyCap(session, memory);
  return session;
}

export function applyCap(session, memory) {
  if (!memory) throw new RunnerError('cannot cap the heap: WebAssembly memory not captured');
  const M = session.mp._module;
  memory.grow = () => { throw new RangeError('cardtable heap cap: memory growth refused'); };
  const reserve = M._malloc(GLUE_RESERVE);
  let chunk = 1 << 26;
  while (chunk >= 16) {
    if (M._malloc(chunk)) session.soaked += chunk;
    else chunk >>= 1;
  }
  M._free(reserve);
  session.cap = true;
}

// --- files -----------------------------------------------------------------------------

export function memfsMkdirs(FS, dir) {
  let cur = '';
  for (const part of dir.split('/').filter(Boolean)) {
    cur += '/' + part;
    const info = FS.analyzePath(cur);
    if (!info.exists) FS.mkdir(cur);
    else if (!FS.isDir(info.object.mode)) throw new RunnerError(`MEMFS ${cur} is a file, not a directory`);
  }
}

// Several MicroPythons one after another in one process (a board's power cycles, the test
// runner's files). The port frees a Python object when its JavaScript proxy is garbage-collected,
// through a FinalizationRegistry whose callback calls the *current* global Module: a proxy of an
// old instance collected later would free an object of the new one. So registries remember the
// instance they were made for and keep quiet once it is gone: call nextInstance() before loading
// each MicroPython.
let generation = 0;
const RealRegistry = globalThis.FinalizationRegistry;

class InstanceRegistry {
  constructor(callback) {
    const gen = generation;
    this.registry = new RealRegistry((held) => { if (gen === generation) callback(held); });
  }

  register(obj, held, token) { return this.registry.register(obj, held, token); }

  unregister(token) { return this.registry.unregister(token); }
}

export function nextInstance() {
  globalThis.FinalizationRegistry = InstanceRegistry;
  generation += 1;
}
