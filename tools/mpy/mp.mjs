// The test runner's pieces for running the pinned WebAssembly MicroPython under Node: moving
// files between the host and MEMFS, the Python-side glue (mprun.py, testrunner.py) that maps
// exceptions and sys.exit to exit statuses, the watchdog and the progress it reads. Loading
// MicroPython is shared with the virtual board: host/cardtable_host/sim/vboard/mp.mjs, whose
// exports this module passes on. Used by run.mjs.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  COPY_EXTS, RUNNER_MEMFS_DIR, RunnerError, formatSize, memfsMkdirs,
} from '../../host/cardtable_host/sim/vboard/mp.mjs';

export * from '../../host/cardtable_host/sim/vboard/mp.mjs';

// tools/mpy: where mprun.py and testrunner.py are
export const RUNNER_DIR = path.dirname(fileURLToPath(import.meta.url));

// --- files -----------------------------------------------------------------------------

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
    FS.writeFile(`${RUNNER_MEMFS_DIR}/${name}`, fs.readFileSync(path.join(RUNNER_DIR, name)));
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
