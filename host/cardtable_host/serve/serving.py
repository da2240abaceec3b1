"""What `cardtable serve` shares between its two ways (a board on a port: board_serve, a
simulated one: sim_serve): its options, the table it owns (the link, the hub, the archive, the
scorekeeper's commands) and the serving of it (the link that follows the board, the web server)."""
from __future__ import annotations

import contextlib
import dataclasses
import queue
import time
from typing import Any, Callable

from cardtable_host.errors import USAGE, CardtableError
from cardtable_host.serve.archive import Archive, iso
from cardtable_host.serve.hub import Hub

DEFAULT_HTTP = "127.0.0.1:8719"
ARCHIVE_RETRY_S = 5  # seconds between tries to save a finished game after a storage error
SIM_DELAY = 0.4  # seconds between bot actions on the demo table: watchable


@dataclasses.dataclass
class ServeOptions:
    """What serve is asked to do: its command line (add_arguments), typed."""

    sim: str | None = None
    seed: int | None = None
    board: str | None = None
    games: int = 1
    delay: float | None = None
    rule: list[str] = dataclasses.field(default_factory=list)
    no_mistakes: bool = False
    deal_pad: bool = False
    wait_viewers: int = 0
    teach: str = ""
    speak: bool = False
    speak_lang: str = "en"
    speak_to: str | None = None
    speak_hands: bool = False
    http: str = DEFAULT_HTTP
    allow_origin: list[str] = dataclasses.field(default_factory=list)
    table: str = ""
    players: str = ""
    reveal: str = "hand"
    overlay_delay: float = 0.0
    archive: str | None = None
    secret_file: str | None = None
    log: str | None = None
    quiet: bool = False
    port: str | None = None
    tournament: str | None = None
    tournament_table: int | None = None
    broker: str = "127.0.0.1:1883"


class Table:
    """What serve owns: the link, the hub, the archive, and the scorekeeper's commands."""

    def __init__(self, hub: Hub, archive: Archive, players: list[str], table: str) -> None:
        self.hub = hub
        self.archive = archive
        self.players = players
        self.table = table
        self.link: Any = None
        self.archived_game: Any = None  # the journal number of the last game archived
        self.cable: Callable[[bool], None] | None = None  # a virtual board's USB cable: plug(True/False)
        self.report: Any = None  # a tournament table's reporter (tablereport.TableReport)
        self.requests: queue.Queue[tuple[dict[str, Any], queue.Queue[dict[str, Any]]]] = queue.Queue()
        self.unsaved: list[tuple[list[str], dict[str, Any]]] = []  # finished games the archive could not take yet
        self._retry_at = 0.0
        self.revealed = 0  # the last hand whose dealt hands spectators were shown (--reveal hand)

    def control(self, cmd: dict[str, Any]) -> dict[str, Any]:
        """Run a scorekeeper's command on the main loop (any thread); its answer."""
        if cmd.get("cmd") in ("unplug", "replug"):  # at once: the main loop may be waiting for the board
            if self.cable is None:
                return {"ok": False, "error": "only a virtual board's cable can be pulled from here "
                        "(cardtable serve --sim)", "status": 409}
            self.cable(cmd["cmd"] == "replug")
            return {"ok": True}
        answer: queue.Queue[dict[str, Any]] = queue.Queue()
        self.requests.put((cmd, answer))
        try:
            return answer.get(timeout=20)
        except queue.Empty:
            return {"ok": False, "error": "the table did not answer in time", "status": 504}

    def run_requests(self, new_game: Callable[[], dict[str, Any]]) -> None:
        """Carry out the scorekeeper's commands that wait, and a retry of the archive (main thread)."""
        from cardtable_host.board.link import CommandError, LinkError

        self.retry_archive()
        while True:
            try:
                cmd, answer = self.requests.get_nowait()
            except queue.Empty:
                return
            try:
                name = cmd.get("cmd")
                if name == "new":
                    reply = new_game()
                elif name == "act":
                    if not isinstance(cmd.get("action"), dict):
                        raise ValueError("act needs an action object")
                    reply = self.link.act(cmd["action"])
                elif name == "press":
                    reply = self.link.press(str(cmd.get("button")))
                elif name == "undo":
                    seq = cmd.get("seq")
                    reply = self.link.undo(seq if type(seq) is int else None)
                else:
                    reply = self.link.state()
                    self.hub.feed({"type": "state", "seq": reply.get("seq"), "view": reply.get("view")})
                out = {"ok": True}
                out.update({k: v for k, v in reply.items() if k in ("seq", "game", "number", "action")})
                answer.put(out)
            except CommandError as e:
                answer.put({"ok": False, "error": e.msg, "status": 409})
            except (LinkError, ValueError) as e:
                answer.put({"ok": False, "error": str(e), "status": 503 if isinstance(e, LinkError) else 400})

    def resync(self) -> bool:
        """Ask the board who it is and what the table looks like; False if it did not answer."""
        from cardtable_host.serve.model import seat_names

        try:
            hello = self.link.hello()
            state = self.link.state()
            cfg = self.link.config()
        except Exception:  # noqa: BLE001 - LinkError and friends: the caller tries again
            return False
        self.hub.board = cfg.get("board") or self.hub.board
        self.hub.layout = cfg.get("layout") or self.hub.layout
        self.hub.resynced(None if hello is None else dict(hello), state,
                          seat_names(cfg.get("board"), cfg.get("layout")))
        return True

    def archive_if_over(self) -> None:
        """A game that is over goes to the archive once (its journal, with the occasion)."""
        view = self.hub.view()
        if not view or not view.get("over"):
            return
        try:
            current = [g["number"] for g in self.link.games() if g.get("current")]
        except Exception:  # noqa: BLE001 - try again on the next change
            return
        key = current[0] if current else None
        if key is not None and key == self.archived_game:
            return
        try:
            journal = self.link.log()
        except Exception:  # noqa: BLE001
            return
        if self.report is not None:
            self.report.finished(key, journal)
        start = self.hub.started or time.time()
        occasion = {"table": self.table, "players": self.hub.seat_names() or None, "start": iso(start),
                    "end": iso(time.time()),
                    "times": self.hub.times_ms(sum(1 for line in journal[1:] if line.strip())),
                    "undos": list(self.hub.undos)}
        self.archived_game = key  # taken: kept below until it is saved
        self.unsaved.append((journal, occasion))
        self.save_archive()

    def save_archive(self) -> None:
        """Save the finished games waiting for the archive, oldest first. On a storage error
        (a full disk, a folder made read-only) they are kept, the page says so, and
        retry_archive tries again every ARCHIVE_RETRY_S."""
        while self.unsaved:
            journal, occasion = self.unsaved[0]
            try:
                number = self.archive.save(journal, occasion)
            except OSError as e:
                self._retry_at = time.monotonic() + ARCHIVE_RETRY_S
                status = ("%d finished game%s not archived yet (%s: %s): serve keeps %s and tries again "
                          "every %d s" % (len(self.unsaved), "" if len(self.unsaved) == 1 else "s",
                                          self.archive.dir, e.strerror or e,
                                          "it" if len(self.unsaved) == 1 else "them", ARCHIVE_RETRY_S))
                if status != self.hub.archive_status:
                    self.hub.archive_status = status
                    self.hub.note(status, "red")
                return
            except ValueError as e:  # a record the referee could not read: saving again cannot help
                self.unsaved.pop(0)
                self.hub.note("the finished game could not be archived: %s" % e, "red")
                continue
            self.unsaved.pop(0)
            self.hub.games_archived.append(number)
            if not self.unsaved:
                self.hub.archive_status = ""
            self.hub.note("game archived as number %d" % number, "green")

    def retry_archive(self) -> None:
        """Try again to save finished games a storage error kept back, when it is time (main loop)."""
        if self.unsaved and time.monotonic() >= self._retry_at:
            self.save_archive()


    def reveal_if_hand_over(self) -> None:
        """With --reveal hand: once a hand is scored, the hands the deal pad read for it go to
        spectators (from the board's journal; nothing while the hand is in play)."""
        if self.archive.reveal != "hand" or self.link is None:
            return
        scored = self.hub.hands_scored()
        if scored < self.revealed:
            self.revealed = 0  # a new game
        if scored <= self.revealed:
            return
        try:
            journal = self.link.log()
        except Exception:  # noqa: BLE001 - try again after the next hand
            return
        from cardtable import record
        from cardtable_host.serve.archive import clean
        from cardtable_host.serve.grid import Refereed

        try:
            dealt = Refereed(clean(journal)).dealt
        except (ValueError, KeyError, TypeError, IndexError, record.RecordError):
            return
        for h in sorted(dealt):
            if self.revealed < h <= scored:
                self.hub.reveal(h, dealt[h])
        self.revealed = scored


class Serving:
    """What serve's two ways (a board on a port: board_serve, a simulated one: sim_serve) share:
    the table, the link that follows the board, the web server; `stack` closes them at the end."""

    def __init__(self, table: Table, stack: contextlib.ExitStack,
                 listen: Callable[[str], Callable[[], None]]) -> None:
        self.table = table
        self.stack = stack
        self._listen = listen

    def attach(self, port: str, timeout: float, shown: str | None = None) -> Any:
        """The link to the board on port, kept alive (it reconnects) and feeding the hub; the
        table asked who it is. shown: the port to name (default port)."""
        from cardtable_host.board.link import Link, LinkDown

        try:
            link = Link(port, timeout=timeout, reconnect=True, command="cardtable serve", tap=self.table.hub.feed)
        except LinkDown as e:
            raise CardtableError(str(e), USAGE) from None
        self.stack.callback(link.close)
        self.table.link = link
        self.table.hub.model.port = shown or port
        self.table.resync()
        return link

    def listen(self, board_port: str) -> None:
        """Start the web server (stopped at the end) and say where."""
        self.stack.callback(self._listen(board_port))
