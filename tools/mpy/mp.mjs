// Shared pieces for running the pinned WebAssembly MicroPython under Node: locating the
// package, loading it with an enforced heap cap, moving files between the host and MEMFS,
// and the Python-side glue (mprun.py) that maps exceptions and sys.exit to exit statuses.
// Used by run.mjs; written so a later REPL bridge can reuse load/cap/copy without the CLI.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeAll } from '../boardio.mjs';

export const TOOLS_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(TOOLS_DIR, '..', '..');
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
// the glue; MicroPython itself, the package's .wasm, is loaded from the package (loadMicroPython's
// `url`). A package whose glue differs is loaded as it is.
const TABLE_CHECK = 'assert(wasmTable.get(funcPtr)==func,"JavaScript-side Wasm function table mirror is out of date!"),';

export function fastGlue(glue) {
  const src = fs.readFileSync(glue, 'utf8');
  if (src.split(TABLE_CHECK).length !== 2) return glue;
  const key = crypto.createHash('sha256').update(src).digest('hex').slice(0, 16);
  const out = path.join(REPO_ROOT, 'build', 'micropython-wasm', key, 'micropython.mjs');
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

// Copy a host file or directory tree into MEMFS; returns the number of files copied.
// `skip`: host paths (absolute) of subtrees to leave out.
export function copyIn(FS, hostPath, memfsDir, exts = COPY_EXTS, skip = []) {
  const st = fs.statSync(hostPath, { throwIfNoEntry: false });
  if (!st) throw new RunnerError(`no such file or directory: ${hostPath}`);
  memfsMkdirs(FS, memfsDir);
  if (st.isFile()) {
    FS.writeFile(path.posix.join(memfsDir, path.basename(hostPath)), fs.readFileSync(hostPath));
    return 1;
  }
  let n = 0;
  for (const ent of fs.readdirSync(hostPath, { withFileTypes: true })) {
    const src = path.join(hostPath, ent.name);
    if (ent.isDirectory()) {
      if (ent.name === '__pycache__' || ent.name.startsWith('.') || ent.name === 'node_modules') continue;
      if (skip.includes(path.resolve(src))) continue;
      n += copyIn(FS, src, path.posix.join(memfsDir, ent.name), exts, skip);
    } else if (ent.isFile() && exts.includes(path.extname(ent.name))) {
      FS.writeFile(path.posix.join(memfsDir, ent.name), fs.readFileSync(src));
      n += 1;
    }
  }
  return n;
}

// Copy a MEMFS file, or every file under a MEMFS directory, into a host directory.
export function copyOut(FS, memfsPath, hostDir) {
  const info = FS.analyzePath(memfsPath);
  if (!info.exists) throw new RunnerError(`--out: ${memfsPath} does not exist in MEMFS`);
  fs.mkdirSync(hostDir, { recursive: true });
  if (!FS.isDir(info.object.mode)) {
    fs.writeFileSync(path.join(hostDir, path.posix.basename(memfsPath)), FS.readFile(memfsPath));
    return 1;
  }
  let n = 0;
  for (const name of FS.readdir(memfsPath)) {
    if (name === '.' || name === '..') continue;
    const src = path.posix.join(memfsPath, name);
    if (FS.isDir(FS.stat(src).mode)) n += copyOut(FS, src, path.join(hostDir, name));
    else {
      fs.writeFileSync(path.join(hostDir, name), FS.readFile(src));
      n += 1;
    }
  }
  return n;
}

// --- the Python side -------------------------------------------------------------------

// Status codes returned by mprun/testrunner calls.
export const OK = 0;
export const RAISED = 1;
export const EXITED = 2;
export const MORE = 3;

// Install mprun.py (and testrunner.py) and return a handle with JS wrappers around them.
export function installRunner(session, { test = false } = {}) {
  const { mp } = session;
  const FS = mp.FS;
  memfsMkdirs(FS, RUNNER_MEMFS_DIR);
  for (const name of ['mprun.py', ...(test ? ['testrunner.py'] : [])]) {
    FS.writeFile(`${RUNNER_MEMFS_DIR}/${name}`, fs.readFileSync(path.join(TOOLS_DIR, name)));
  }
  mp.runPython(`import sys\nsys.path.insert(0, '${RUNNER_MEMFS_DIR}')\nimport mprun\n` +
    (test ? 'import testrunner\n' : '') + 'sys.path.pop(0)\n');
  const mprun = mp.pyimport('mprun');
  const fn = (mod, name) => {
    const f = mod[name];
    return (...args) => {
      try {
        return f(...args);
      } finally {
        session.stdout.flush();
        session.stderr.flush();
      }
    };
  };
  const runner = {
    session,
    setup: fn(mprun, 'setup'),
    runMain: fn(mprun, 'run_main'),
    call: fn(mprun, 'call'),
    exitCode: fn(mprun, 'exit_code'),
    report: fn(mprun, 'report'),
    collect: fn(mprun, 'collect'),
    hasFunction: fn(mprun, 'has_function'),
  };
  if (test) {
    const tr = mp.pyimport('testrunner');
    for (const name of ['load', 'test_id', 'start', 'step', 'finish']) runner[name] = fn(tr, name);
  }
  return runner;
}

// Print the pending exception's traceback to stderr (a fresh top-level call, so the garbage
// of the failed call has been collected); falls back to the JS-side error if that fails too.
export function reportException(runner) {
  const { session } = runner;
  try {
    const kind = runner.report();
    if (kind === 'MemoryError' && session.cap) {
      session.stderr.write(`(heap capped at ${formatSize(session.heap)}; in this port the GC runs only ` +
        'between top-level calls from JavaScript, so garbage made within one call counts too)\n');
    }
  } catch (e) {
    session.stderr.write(`${e.type || e.name}: ${e.message}\n`);
  }
}

// Python-side argument lists travel as NUL-joined strings.
export const joinList = (items) => items.join('\0');

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

// The process's CPU time so far, in ms.
function cpuMs() {
  const used = process.cpuUsage();
  return Math.round((used.user + used.system) / 1000);
}

// Start a watchdog thread that prints what hung and kills the process after `seconds` of CPU
// (counted from progress.meta[4], the CPU ms when the current file began).
// The main thread may be stuck inside WebAssembly, so only another thread can end it.
export async function startWatchdog(seconds, shared) {
  const { Worker } = await import('node:worker_threads');
  const code = `
    const { workerData } = require('node:worker_threads');
    const fs = require('node:fs');
    // CPU time, not wall time: a run that waits its turn on a busy machine is not stuck
    const timer = setInterval(() => {
      const { seconds, shared } = workerData;
      const used = process.cpuUsage(); // the whole process, the interpreter's thread with it
      const meta = new Int32Array(shared, 0, 8);
      if ((used.user + used.system) / 1e6 - meta[4] / 1000 < seconds) return;
      clearInterval(timer);
      const bytes = new Uint8Array(shared, 32);
      const current = Buffer.from(bytes.subarray(0, meta[2])).toString();
      const lines = [];
      if (meta[3]) {
        lines.push('FAIL ' + current + ' (timed out after ' + seconds + ' s of CPU)');
        lines.push('run.mjs: timeout: killed after ' + seconds + ' s of CPU in ' + current);
        lines.push(meta[0] + ' passed, ' + (meta[1] + 1) + ' failed');
      } else {
        lines.push('run.mjs: timeout: killed after ' + seconds + ' s of CPU' + (current ? ' (in ' + current + ')' : '') +
          ' -- an endless loop, or a capped heap filled within one top-level call');
      }
      const out = meta[3] ? 1 : 2;
      try { fs.writeSync(out, lines.join('\\n') + '\\n'); } catch (e) {}
      process.kill(process.pid, 'SIGKILL');
    }, 1000);
  `;
  const worker = new Worker(code, { eval: true, workerData: { seconds, shared } });
  worker.unref();
  return worker;
}

// Progress the watchdog can read: [passed, failed, len(current), test mode, CPU ms at the
// file's start, unused x3] + current id bytes.
export class Progress {
  constructor() {
    this.shared = new SharedArrayBuffer(32 + 1024);
    this.meta = new Int32Array(this.shared, 0, 8);
    this.bytes = new Uint8Array(this.shared, 32);
  }

  // A new file: its own counts and its own CPU time.
  restart() {
    this.meta[0] = 0;
    this.meta[1] = 0;
    this.meta[4] = cpuMs();
  }

  set current(text) {
    const b = Buffer.from(text).subarray(0, this.bytes.length);
    this.bytes.set(b);
    this.meta[2] = b.length;
  }
}
