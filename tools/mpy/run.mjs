#!/usr/bin/env node
// Run a script, or test modules, on the real MicroPython (pinned WebAssembly port) with an
// optional enforced heap cap. See tools/mpy/README.md; `node tools/mpy/run.mjs --help`.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  EXITED, MORE, OK, RAISED, REPO_ROOT, Progress, RunnerError, commandLine, copyIn, copyOut, emuAllowance, formatSize,
  installRunner, joinList, loadMicroPython, nextInstance, parseSize, reportException, startWatchdog,
} from './mp.mjs';

const USAGE = `usage: node tools/mpy/run.mjs [options] script.py [args...]
       node tools/mpy/run.mjs --test [options] tests/.../test_x.py...

  --heap SIZE           MicroPython GC heap (default 192k, the Pico's)
  --cap                 enforce the heap size: no growth past it (MemoryError instead)
  --emulators N         the run emulates N PN532 readers in the heap, which a real board's
                        readers are not: their share goes on top of --heap (20 KB + 1 KB each)
  --lib HOST[:MEMFS]    copy a host dir/file into MEMFS (default MEMFS dir /lib); repeatable.
                        Without any --lib: firmware/lib (build/mpy/lib with --mpy) -> /lib
  --mpy                 default lib is the .mpy build (python tools/mpy/build.py)
  --out MEMFS:HOST      after the run, copy a MEMFS file or dir back to a host dir; repeatable
  --step FN N           after running the script, call its FN(i) for i in 0..N-1 from JS
  --timeout S           kill the run after S seconds of CPU (default 300; 0 = never)
  --test                run the test* functions of the given test files, as pytest collects
                        them, each test (and each yield of a generator test) one top-level call
  -k TEXT               with --test: only tests whose id contains TEXT
  --each                with --test: every file in a MicroPython of its own, one after the
                        other in this process (each after a "# file PATH" line, its report
                        ended by "# took MS ms"); --timeout counts for each file

exit status: the script's sys.exit() value; 1 for an uncaught exception or a failed test;
2 for bad usage; killed by SIGKILL (-9) on timeout.`;

const MPY_LIB = path.join(REPO_ROOT, 'build', 'mpy', 'lib');
const PY_LIB = path.join(REPO_ROOT, 'firmware', 'lib');

function parseArgs(argv) {
  const o = { heap: 192 * 1024, cap: false, emulators: 0, libs: [], outs: [], step: null, timeout: 300,
    test: false, mpy: false, each: false, pattern: '', positional: [] };
  let i = 0;
  const need = (flag, n = 1) => {
    if (i + n >= argv.length) throw new RunnerError(`${flag} needs ${n} argument(s)`);
    const vals = argv.slice(i + 1, i + 1 + n);
    i += n;
    return vals;
  };
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { i++; break; }
    if (!a.startsWith('-') || a === '-') break;
    if (a === '-h' || a === '--help') { o.help = true; return o; }
    else if (a === '--heap') o.heap = parseSize(need(a)[0]);
    else if (a === '--cap') o.cap = true;
    else if (a === '--emulators') {
      const n = need(a)[0];
      if (!/^\d+$/.test(n)) throw new RunnerError(`--emulators ${n}: expected a count of readers`);
      o.emulators = Number(n);
    }
    else if (a === '--lib') o.libs.push(parseLib(need(a)[0]));
    else if (a === '--out') o.outs.push(parseOut(need(a)[0]));
    else if (a === '--step') {
      const [fn, n] = need(a, 2);
      if (!/^[A-Za-z_]\w*$/.test(fn) || !/^\d+$/.test(n)) throw new RunnerError('--step FN N: FN a name, N a count');
      o.step = { fn, n: Number(n) };
    } else if (a === '--timeout') {
      const s = need(a)[0];
      if (!/^\d+(\.\d+)?$/.test(s)) throw new RunnerError(`--timeout ${s}: expected seconds`);
      o.timeout = Number(s);
    } else if (a === '--test') o.test = true;
    else if (a === '--mpy') o.mpy = true;
    else if (a === '--each') o.each = true;
    else if (a === '-k') o.pattern = need(a)[0];
    else throw new RunnerError(`unknown option ${a}`);
  }
  o.positional = argv.slice(i);
  if (!o.positional.length) throw new RunnerError(o.test ? 'no test files given' : 'no script given');
  if (o.test && o.step) throw new RunnerError('--step does not apply to --test');
  if (o.each && !o.test) throw new RunnerError('--each applies to --test only');
  return o;
}

function parseLib(spec) {
  const at = spec.lastIndexOf(':');
  if (at > 0 && spec[at + 1] === '/') return { host: spec.slice(0, at), memfs: path.posix.normalize(spec.slice(at + 1)) };
  return { host: spec, memfs: '/lib' };
}

function parseOut(spec) {
  const at = spec.indexOf(':');
  if (!spec.startsWith('/') || at < 0 || at === spec.length - 1) {
    throw new RunnerError(`--out ${spec}: expected MEMFSPATH:HOSTDIR, e.g. /journal:out`);
  }
  return { memfs: spec.slice(0, at), host: spec.slice(at + 1) };
}

const sha256 = (file) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

// The .mpy tree must match firmware/lib exactly, or the tests would run stale code.
let mpyChecked = false;

function checkMpyBuild() {
  if (mpyChecked) return;
  const manifestPath = path.join(REPO_ROOT, 'build', 'mpy', 'manifest.json');
  const fix = 'run `python tools/mpy/build.py` first';
  if (!fs.existsSync(manifestPath)) throw new RunnerError(`no .mpy build (${path.relative(REPO_ROOT, manifestPath)}): ${fix}`);
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  } catch (e) {
    throw new RunnerError(`${path.relative(REPO_ROOT, manifestPath)} is unreadable (${e.message}): ${fix}`);
  }
  const seen = new Set();
  const walk = (dir) => {
    for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, ent.name);
      if (ent.isDirectory()) { if (ent.name !== '__pycache__') walk(p); continue; }
      const rel = path.relative(PY_LIB, p).split(path.sep).join('/');
      const entry = manifest.files[rel];
      if (!entry && !/\.(py|json|jsonl|txt|bin)$/.test(ent.name)) continue;
      if (!entry || entry.sha256 !== sha256(p)) throw new RunnerError(`build/mpy is stale (firmware/lib/${rel}): ${fix}`);
      seen.add(rel);
    }
  };
  walk(PY_LIB);
  for (const rel of Object.keys(manifest.files)) {
    if (!seen.has(rel)) throw new RunnerError(`build/mpy is stale (firmware/lib/${rel} is gone): ${fix}`);
  }
  mpyChecked = true;
}

function defaultLibs(o) {
  if (o.libs.length) return o.libs;
  if (o.mpy) checkMpyBuild();
  // The simulated hardware the device tests use (cardtable.sim: the PN532 emulator) is in it.
  return [{ host: o.mpy ? MPY_LIB : PY_LIB, memfs: '/lib' }];
}

function searchPath(first, libs) {
  const dirs = [...first];
  for (const { memfs } of libs) if (memfs !== '/' && !dirs.includes(memfs)) dirs.push(memfs);
  if (!dirs.includes('/lib')) dirs.push('/lib');
  dirs.push('.frozen');
  return dirs;
}

async function runScript(o, session, runner) {
  const FS = session.mp.FS;
  const libs = defaultLibs(o);
  for (const lib of libs) copyIn(FS, lib.host, lib.memfs);
  const [script, ...args] = o.positional;
  if (!fs.existsSync(script)) throw new RunnerError(`no such script: ${script}`);
  const main = '/' + path.basename(script);
  FS.writeFile(main, fs.readFileSync(script));
  runner.setup(joinList([main, ...args]), joinList(searchPath([''], libs)), '/');

  let status = runner.runMain(main);
  if (status === OK && o.step) {
    if (!runner.hasFunction(o.step.fn)) {
      throw new RunnerError(`--step: ${script} defines no function ${o.step.fn}`);
    }
    for (let i = 0; i < o.step.n && status === OK; i++) status = runner.call(o.step.fn, i);
  }
  let rc = 0;
  if (status === EXITED) rc = runner.exitCode();
  else if (status !== OK) {
    reportException(runner);
    rc = 1;
  }
  for (const out of o.outs) {
    try {
      copyOut(FS, out.memfs, out.host);
    } catch (e) {
      if (!(e instanceof RunnerError)) throw e;
      session.stderr.write(`run.mjs: ${e.message}\n`);
      if (rc === 0) rc = 2;
    }
  }
  return rc;
}

// In test mode MEMFS mirrors the repository: /tests/... (without the CPython-only
// tests/host) and /firmware/... (without lib, which is at /lib), cwd /, so repo-relative
// paths (fixtures, board files) work as they do under pytest from the repo root.
function mirrorRepo(FS) {
  const tests = path.join(REPO_ROOT, 'tests');
  copyIn(FS, tests, '/tests', undefined, [path.join(tests, 'host')]);
  const firmware = path.join(REPO_ROOT, 'firmware');
  if (fs.existsSync(firmware)) copyIn(FS, firmware, '/firmware', undefined, [path.join(firmware, 'lib')]);
}

function placeTest(FS, file, placed) {
  const abs = path.resolve(file);
  if (!fs.existsSync(abs)) throw new RunnerError(`no such test file: ${file}`);
  const rel = path.relative(REPO_ROOT, abs);
  let dir;
  let shown;
  if (!rel.startsWith('..') && !path.isAbsolute(rel)) {
    shown = rel.split(path.sep).join('/');
    dir = '/' + path.posix.dirname(shown);
    if (!FS.analyzePath('/' + shown).exists) copyIn(FS, path.dirname(abs), dir);
  } else {
    shown = file;
    dir = `/ext/${placed.size}`;
    copyIn(FS, abs, dir);
  }
  placed.add(dir);
  const module = path.basename(abs, '.py');
  return { dir, shown, module, memfs: path.posix.join(dir, module + '.py') };
}

async function runTests(o, session, runner, progress) {
  const FS = session.mp.FS;
  const libs = defaultLibs(o);
  for (const lib of libs) copyIn(FS, lib.host, lib.memfs);
  mirrorRepo(FS);
  const sys = session.mp.pyimport('sys');
  const libNote = o.libs.length ? libs.map((l) => l.host).join(', ') : (o.mpy ? 'build/mpy/lib (.mpy)' : 'firmware/lib (.py)');
  const version = /MicroPython (v\S+)/.exec(sys.version)?.[1] || sys.version;
  const emu = o.emulators ? ` (${formatSize(o.heap)} + ${formatSize(emuAllowance(o.emulators))} for ${o.emulators} emulated readers)` : '';
  session.stdout.write(`# MicroPython ${version} (${sys.platform}), heap ${formatSize(session.heap)}${emu}` +
    `${session.cap ? ' capped' : ' (not capped)'}, lib ${libNote}\n`);

  const placed = new Set();
  let passed = 0;
  let failed = 0;
  progress.meta[3] = 1;
  for (const file of o.positional) {
    const t = placeTest(FS, file, placed);
    runner.setup('testrunner', joinList(searchPath([t.dir, '/tests'], libs)), '/');
    progress.current = t.shown;
    const t0 = performance.now();
    const n = runner.load(t.module, t.memfs, t.shown, o.pattern);
    runner.collect();
    if (n < 0) {
      runner.finish(`${t.shown} (import)`, RAISED, Math.round(performance.now() - t0), 0);
      progress.meta[1] = ++failed;
      continue;
    }
    for (let i = 0; i < n; i++) {
      const id = runner.test_id(i);
      progress.current = id;
      const start = performance.now();
      let status = runner.start(i);
      let steps = 0;
      while (status === MORE) {
        status = runner.step();
        if (status === MORE) steps += 1;
      }
      const ok = runner.finish(id, status, Math.round(performance.now() - start), steps);
      if (ok) progress.meta[0] = ++passed;
      else progress.meta[1] = ++failed;
      runner.collect();
    }
  }
  session.stdout.write(`${passed} passed, ${failed} failed\n`);
  return failed ? 1 : 0;
}

async function run(o, progress) {
  let session;
  try {
    const heap = o.heap + (o.emulators ? emuAllowance(o.emulators) : 0);
    nextInstance();
    session = await loadMicroPython({ heap, cap: o.cap });
    const runner = installRunner(session, { test: o.test });
    return o.test ? await runTests(o, session, runner, progress) : await runScript(o, session, runner);
  } catch (e) {
    session?.stdout.flush();
    session?.stderr.flush();
    if (e instanceof RunnerError) {
      process.stderr.write(`run.mjs: ${e.message}\n`);
      return 2;
    }
    // A Python error outside the guarded calls (the runner itself), or a JS failure.
    process.stderr.write(e.name === 'PythonError' ? e.message : `run.mjs: ${e.stack || e}\n`);
    return 1;
  } finally {
    session?.stdout.flush();
    session?.stderr.flush();
  }
}

// --each: a fresh MicroPython per file, in this one process (no Node start, worker or WebAssembly
// compilation per file: most of a small file's run).
async function runEach(o, progress) {
  let rc = 0;
  for (const file of o.positional) {
    fs.writeSync(1, `# file ${file}\n`);
    progress.restart();
    const t0 = performance.now();
    const status = await run({ ...o, positional: [file] }, progress);
    fs.writeSync(1, `# took ${Math.round(performance.now() - t0)} ms, status ${status}\n`);
    rc = Math.max(rc, status);
  }
  return rc;
}

async function main() {
  const o = commandLine(parseArgs, 'run.mjs', USAGE);
  if (typeof o === 'number') return o;
  const progress = new Progress();
  if (o.timeout > 0) await startWatchdog(o.timeout, progress.shared);
  return o.each ? runEach(o, progress) : run(o, progress);
}

process.exit(await main());
