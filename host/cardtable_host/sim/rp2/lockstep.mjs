// Lockstep (board.mjs --lockstep): the emulated clock stands still while the chip waits for
// its host. Once the table runs, the chip pauses after every line it sends over USB (its
// clock stopped at the instruction that sent it) until the host says `go`: what the host does
// meanwhile (type a line, lay or lift a card, press a button) happens at that emulated
// instant, however long the host took. So the chip's emulated times depend on what the host
// did and in which order, never on how fast the host (or the machine) was.
//
// - A pause first syncs the devices (the readers' Python side has handled every bus request
//   sent before it), then lets the line out: nothing the host does in answer can reach the
//   readers before a bus request the chip made earlier.
// - `go {lines, serial, until_ns}` resumes a pause if `lines` is the count of non-blank lines
//   the chip has sent (else it is stale: the host has not read the line it paused at), once
//   `serial` bytes in all have come in on stdin (what the host typed before saying go lands
//   at the pause's instant, in one piece); until_ns: pause again at that emulated time if no
//   line came first. Bytes typed while paused are held until then.
// - `held {now}` answers at the next pause (at once while paused, or with now: why null
//   while it runs): {lines, out_bytes, serial, now_ns, why: "line" | "time"}.

/** Bytes that are all whitespace (as Python's bytes.strip() sees it): the host skips such lines. */
function blank(text) {
  return /^[ \t\r\n\v\f]*$/.test(text);
}

export class Lockstep {
  constructor(board) {
    this.board = board;
    this.outLines = 0; // non-blank lines the chip has sent (the host's Link counts the same)
    this.outBytes = 0; // bytes written to stdout
    this.partial = '';
    this.inBytes = 0; // bytes come in on stdin
    this.needIn = 0; // stdin bytes that must have come before the chip may run
    this.untilNs = Infinity;
    this.paused = null; // {why, ns} while paused
    this.waiters = []; // `held` requests to answer at the next pause
    this.inbox = []; // stdin bytes held until the chip runs again
    this.outbox = []; // device output held until the pause's sync (or the end of a run)
  }

  /** The device sent bytes: kept for flush(); true if a line ended in them (the chip pauses). */
  fromDevice(bytes) {
    this.outbox.push(Buffer.from(bytes));
    let text = this.partial + Buffer.from(bytes).toString('latin1');
    let ended = false;
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      if (!blank(text.slice(0, nl))) {
        this.outLines += 1;
        ended = true;
      }
      text = text.slice(nl + 1);
      nl = text.indexOf('\n');
    }
    this.partial = blank(text) ? '' : 'x'; // only whether the line so far has anything in it
    return ended;
  }

  /** Write what the device sent to stdout. */
  flush(write) {
    for (const b of this.outbox) {
      this.outBytes += b.length;
      write(b);
    }
    this.outbox = [];
  }

  /** May the chip run now (not paused, every byte the host promised come in)? */
  mayRun() {
    return this.paused === null && this.inBytes >= this.needIn;
  }

  /** Stdin bytes: true if they were held (the chip does not run now). */
  toDevice(data) {
    this.inBytes += data.length;
    if (this.mayRun() && !this.inbox.length) return false;
    this.inbox.push(Buffer.from(data));
    return true;
  }

  /** The bytes held while the chip stood, all at once (one piece for the chip's USB). */
  takeInbox() {
    const all = Buffer.concat(this.inbox);
    this.inbox = [];
    return all;
  }

  /** The chip paused (a line out, or until_ns reached) at emulated ns. */
  pause(why, ns) {
    this.paused = { why, ns };
    this.untilNs = Infinity;
    const waiting = this.waiters;
    this.waiters = [];
    return waiting;
  }

  state(chip) {
    return {
      lines: this.outLines,
      out_bytes: this.outBytes,
      serial: this.inBytes,
      now_ns: chip ? chip.nanos : null,
      why: this.paused ? this.paused.why : null,
    };
  }

  /** A go request: {resumed} (false: not paused, or stale). */
  go(req) {
    if (this.paused === null) return { resumed: false, running: true };
    if (Number(req.lines) !== this.outLines) return { resumed: false, stale: true, lines: this.outLines };
    this.needIn = Math.max(this.needIn, Number(req.serial ?? 0));
    this.untilNs = req.until_ns == null ? Infinity : Number(req.until_ns);
    this.paused = null;
    return { resumed: true };
  }

  /** A new chip (power-on, reset): it boots freely until its table's first line. */
  reset() {
    this.paused = null;
    this.untilNs = Infinity;
    this.partial = '';
  }
}
