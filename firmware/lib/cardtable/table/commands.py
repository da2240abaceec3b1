"""The host's commands over the link (link.py has the protocol): the controller's HostCommands part."""
from cardtable import games, record
from cardtable import link as lk
from cardtable.compat import ticks_diff

_LOG_LINES = 4  # journal lines streamed per step


class HostCommands:
    """Mixed into Controller: one method per link command, each an answer dict or an error text."""

    def _command(self, cmd):
        if isinstance(cmd, lk.LinkError):
            self.link.send(lk.error(cmd.id, cmd.msg))
            return
        cid = cmd.get("id")
        try:
            answer = getattr(self, "_cmd_" + cmd["cmd"])(cmd)
        except Exception as e:  # noqa: BLE001 - a bad command must never stop the table
            self.errors += 1
            answer = "internal error: %s %s" % (type(e).__name__, e)
        if answer is None:
            return  # answered later (log)
        if isinstance(answer, str):
            self.link.send(lk.error(cid, answer))
        else:
            self.link.send(lk.ok(cid, answer))

    def _cmd_hello(self, cmd):
        self.hello()
        return {}

    def _cmd_new(self, cmd):
        name = cmd.get("game", self.game.ID)
        seats = cmd.get("seats")
        dealer = cmd.get("dealer", 0)
        rules = cmd.get("rules", {})
        layout = cmd.get("layout")
        if not isinstance(name, str):
            return "\"game\" must be a game id (%s)" % ", ".join(sorted(games.GAMES))
        if name not in games.GAMES:
            return "unknown game %r (games: %s)" % (name, ", ".join(sorted(games.GAMES)))
        if seats is not None and type(seats) is not int or type(dealer) is not int:
            return "\"seats\" and \"dealer\" must be whole numbers"
        if not isinstance(rules, dict):
            return "\"rules\" must be an object of rule options"
        if layout is not None and not isinstance(layout, str):
            return "\"layout\" must be a layout name"
        reason = self.new_game(name, seats, dealer, rules, layout)
        if reason:
            return reason
        self.hello()
        self.send_state()
        return {"game": record.header(self.game), "number": self.journal.number}

    def _cmd_act(self, cmd):
        obj = cmd.get("action")
        if not isinstance(obj, dict):
            return "\"action\" must be a record line, e.g. {\"seat\": 1, \"act\": \"bid\", \"bid\": 20}"
        try:
            action = record.decode(self.game, obj, 1)
        except record.RecordError as e:
            return e.message
        done, what, events = self.play(action, "host")
        if not done:
            return what
        return {"seq": what, "events": events}

    def _cmd_undo(self, cmd):
        done, what = self.undo("host")
        if not done:
            return what
        return {"action": what, "seq": self.journal.seq}

    def _cmd_state(self, cmd):
        return {"seq": self.journal.seq, "view": self.game.view(None)}

    def _cmd_log(self, cmd):
        if self._log is not None:
            return "a log is already being sent"
        n = cmd.get("game", self.journal.number)
        if type(n) is not int or n not in self.journal.numbers():
            return "no journal %r (games: %s)" % (n, ", ".join([str(k) for k in self.journal.numbers()]) or "none")
        try:
            rd = self.journal.reader(n)
        except OSError as e:
            return "cannot read journal %d: %s" % (n, e)
        self._log = [cmd.get("id"), rd, n, 0]
        return None

    def _log_step(self):
        cid, rd, n, count = self._log
        try:
            for _ in range(_LOG_LINES):
                line = rd.next()
                if line is None:
                    rd.close()
                    self._log = None
                    self.link.send(lk.ok(cid, {"game": n, "lines": count}))
                    return
                self.link.send({"type": "log", "id": cid, "game": n, "line": line[0]})
                count += 1
        except OSError as e:
            self._log = None
            self.link.send(lk.error(cid, "journal %d: %s" % (n, e)))
            return
        self._log[3] = count

    def _cmd_config(self, cmd):
        new = cmd.get("set")
        if new is not None:
            if not isinstance(new, dict):
                return "\"set\" must be an object, e.g. {\"layout\": \"fortyfives\"}"
            for k in new:
                if k not in ("board", "layout") or not isinstance(new[k], str):
                    return "config takes \"board\" and \"layout\" names"
            if "layout" in new and "board" not in new and new["layout"] not in self.board.layouts:
                return "no layout %r on %s" % (new["layout"], self.board.name)
            cfg = dict(self.config)
            cfg.update(new)
            try:
                save_config(self.hal.storage, cfg, self.config_path)
            except OSError as e:
                return "cannot save the config: %s" % e
            self.config = cfg
        lay = self.layout
        zones = {}
        for z in lay.roles:
            r, s = lay.roles[z]
            zones[z] = r if s is None else "%s %d" % (r, s)
        buttons = {}
        for name in lay.buttons:
            v, a = lay.buttons[name]
            buttons[name] = v if a is None else "%s %s" % (v, a)
        return {"board": self.board.name, "layout": lay.name, "game": lay.game,
                "layouts": sorted(self.board.layouts), "zones": zones, "buttons": buttons,
                "host_verbs": list(lay.host_verbs), "saved": self.config}

    def _cmd_games(self, cmd):
        out = []
        for n, size in self.journal.games():
            out.append({"number": n, "bytes": size, "current": n == self.journal.number})
        return {"games": out}

    def _cmd_health(self, cmd):
        readers = []
        for i in range(self.scanner.n):
            st = self.scanner.status(i)
            st["zone"] = self.board.reader_zone[i]
            readers.append(st)
        j = self.journal
        return {"readers": readers,
                "journal": {"number": j.number, "seq": j.seq, "bytes": j.size, "dropped": j.dropped,
                            "error": j.error},
                "flash_free": self.hal.storage.free(), "heap_free": self.hal.mem_free(),
                "uptime_ms": ticks_diff(self.clock.ticks_ms(), self.t_boot), "steps": self.steps,
                "link": {"sent": self.link.sent, "received": self.link.received,
                         "errors": self.link.errors}}


def load_config(storage, path="config.json"):
    """The board's config file as a dict ({} if it is missing or unreadable)."""
    import json

    try:
        f = storage.open(path, "rb")
    except OSError:
        return {}
    try:
        obj = json.loads(f.read().decode())
    except ValueError:
        obj = {}
    finally:
        f.close()
    return obj if isinstance(obj, dict) else {}


def save_config(storage, cfg, path="config.json"):
    """Write the config file through a temp file and a rename."""
    import json

    tmp = path + ".tmp"
    f = storage.open(tmp, "wb")
    try:
        f.write(json.dumps(cfg).encode())
        f.flush()
    finally:
        f.close()
    storage.rename(tmp, path)
