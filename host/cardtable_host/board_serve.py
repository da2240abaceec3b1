"""`cardtable serve` of a real board (or any board on a port): the link, kept alive, into the hub."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

from cardtable_host import boardfind
from cardtable_host.errors import USAGE, CardtableError, end_on_sigterm

if TYPE_CHECKING:
    from cardtable_host.commands.serve import ServeOptions

RESYNC_S = 2.0  # how often to ask again when the port is there but the table does not answer


def run(args: ServeOptions, table: Any, listen: Callable[[str], Callable[[], None]]) -> int:
    from cardtable_host.link import Link, LinkDown

    port = boardfind.board_port(args.port)
    on_term = end_on_sigterm()
    stop: Callable[[], None] | None = None
    link = None
    try:
        try:
            link = Link(port, timeout=5, reconnect=True, command="cardtable serve", tap=table.hub.feed)
        except LinkDown as e:
            raise CardtableError(str(e), USAGE) from None
        table.link = link
        table.hub.model.port = port
        table.resync()
        stop = listen(port)
        return _loop(table, link)
    except KeyboardInterrupt:
        return 0
    except SystemExit as e:
        return int(e.code or 0)
    finally:
        if stop is not None:
            stop()
        if link is not None:
            link.close()
        on_term()


def _loop(table: Any, link: Any) -> int:
    tried = time.monotonic()

    def new_game() -> dict[str, Any]:
        header = ((table.hub.model.hello or {}).get("game")) or {}
        if not header.get("game"):
            raise ValueError("the board has no game to start again")
        fields = {k: header[k] for k in ("seats", "dealer", "rules") if k in header}
        return link.new(header["game"], layout=table.hub.layout, **fields)

    while True:
        msg = link.next(0.1)
        changed = False
        sync = False
        while msg is not None:
            kind = msg.get("type")
            if kind == "link" and msg.get("up"):
                sync = True
            elif kind in ("event", "state"):
                changed = True
            msg = link.next(0)
        if sync or (not table.hub.model.connected and link.up and time.monotonic() - tried > RESYNC_S):
            tried = time.monotonic()
            changed = table.resync() or changed
        table.run_requests(new_game)
        if changed:
            table.archive_if_over()
