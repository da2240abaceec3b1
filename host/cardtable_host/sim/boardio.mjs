// What both virtual boards' processes (host/cardtable_host/sim/vboard/board.mjs, host/cardtable_host/sim/rp2/board.mjs) share with
// the host (host/cardtable_host/sim/board.py): the board's serial on stdin/stdout, and the
// control channel beside it - JSON lines on a socket (fd 3, or --control-fd N), a request
// {"op": ..., "id": N} answered {"id": N, "ok": true, ...} or {"id": N, "ok": false, "error"},
// and events such as {"event": "mode", "mode": "table"}.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const ENV_NODE_MODULES = 'CARDTABLE_NODE_MODULES';

// What to import() for the Node package `name`: the name itself (the checkout's node_modules
// beside this file), or its ESM entry's file URL in the node_modules folder $CARDTABLE_NODE_MODULES
// names (an installed cardtable's cache: host/cardtable_host/sim/nodepkgs.py). A bare import
// cannot find a folder outside the module's own ancestors (NODE_PATH is for require only).
export function nodePackage(name) {
  const modules = process.env[ENV_NODE_MODULES];
  if (!modules) return name;
  const dir = path.join(modules, ...name.split('/'));
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  let entry = pkg.exports && typeof pkg.exports === 'object' && '.' in pkg.exports ? pkg.exports['.'] : pkg.exports;
  while (entry && typeof entry === 'object') entry = entry.import ?? entry.default;
  return pathToFileURL(path.join(dir, entry || pkg.module || pkg.main || 'index.js')).href;
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

// Write all of data to fd, waiting while a non-blocking pipe is full.
export function writeAll(fd, data) {
  let off = 0;
  while (off < data.length) {
    try {
      off += fs.writeSync(fd, data, off, data.length - off);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
      Atomics.wait(sleepCell, 0, 0, 2);
    }
  }
}

// A board's end of the control channel (a board class extends it): notify() sends a line,
// reply() and fail() answer a request; `control` is the socket (null: no channel).
export class Control {
  constructor() {
    this.control = null;
  }

  notify(obj) {
    if (this.control && !this.control.destroyed) this.control.write(JSON.stringify(obj) + '\n');
  }

  reply(req, fields = {}) {
    this.notify({ id: req.id ?? null, ok: true, ...fields });
  }

  fail(req, error) {
    this.notify({ id: req.id ?? null, ok: false, error });
  }

  // Close the channel, then exit with code (at once if it is closed; at the latest in 200 ms).
  exit(code) {
    const end = () => process.exit(code);
    if (this.control && !this.control.destroyed) this.control.end(end);
    else end();
    setTimeout(end, 200).unref();
  }
}

function controlFd(controlFdOption) {
  if (controlFdOption !== null) return controlFdOption;
  try {
    fs.fstatSync(3);
    return 3;
  } catch {
    return -1;
  }
}

// Wire a board to its host: control requests to board.onControl(req), serial bytes from
// stdin to toDevice(data); the channel's end, stdin's end or SIGTERM to board.quit(0).
export function connect(board, controlFdOption, toDevice) {
  const fd = controlFd(controlFdOption);
  if (fd >= 0) {
    const sock = new net.Socket({ fd, readable: true, writable: true });
    board.control = sock;
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('data', (text) => {
      buf += text;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line) continue;
        let req;
        try {
          req = JSON.parse(line);
        } catch {
          board.notify({ id: null, ok: false, error: `not JSON: ${line.slice(0, 60)}` });
          continue;
        }
        board.onControl(req);
      }
    });
    sock.on('end', () => board.quit(0));
    sock.on('error', () => board.quit(0));
  }
  process.stdin.on('data', (data) => toDevice(data));
  process.stdin.on('end', () => board.quit(0));
  process.on('SIGTERM', () => board.quit(0));
}
