"""`cardtable serve` of a real board (or any board on a port): the link, kept alive, into the hub."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from cardtable_host.board import boardfind

if TYPE_CHECKING:
    from cardtable_host.serve.serving import ServeOptions, Serving

RESYNC_S = 2.0  # how often to ask again when the port is there but the table does not answer


def run(args: ServeOptions, serving: Serving) -> int:
    port = boardfind.board_port(args.port)
    link = serving.attach(port, timeout=5)
    serving.listen(port)
    return _loop(serving.table, link)


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
            if table.report is not None:
                table.report.follow(msg)
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
            table.reveal_if_hand_over()
