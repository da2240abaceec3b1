"""`cardtable serve --sim GAME`: a virtual board with bots in every seat, served like a board."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

from cardtable_host.errors import USAGE, CardtableError

if TYPE_CHECKING:
    from cardtable_host.serve.serving import ServeOptions, Serving

BETWEEN_GAMES_S = 5.0


def run(args: ServeOptions, serving: Serving) -> int:
    from cardtable_host.serve.serving import SIM_DELAY
    from cardtable_host.sim import choice as simchoice
    from cardtable_host.sim.board import BoardError, VirtualBoard
    from cardtable_host.sim.rp2board import Rp2Board

    game = str(args.sim)
    chip, board_cfg = simchoice.board_kind(args.board, game)
    try:
        board_name, layout, rules, seed = simchoice.prepare(game, board_cfg, None, None, args.rule, args.seed,
                                                            args.deal_pad)
    except (ValueError, OSError) as e:
        raise CardtableError(str(e), USAGE) from None
    delay = SIM_DELAY if args.delay is None else args.delay
    vb: VirtualBoard
    if chip == simchoice.RP2:
        vb = Rp2Board(board_name, layout=layout)
    else:
        vb = VirtualBoard(board_name, layout=layout, period_ms=0 if delay == 0 else simchoice.IDLE_PERIOD_MS)
    serving.stack.callback(vb.close)
    try:
        vb.start(vb.BOOT_S)
    except BoardError as e:
        raise CardtableError("the %s did not start: %s" % (vb.KIND, e)) from None
    table = serving.table
    table.cable = _cable(vb)
    table.hub.board, table.hub.layout = board_name, layout
    link = serving.attach(vb.stable_port, timeout=vb.LINK_S, shown=vb.port)
    serving.listen(vb.port)
    return _play(args, table, vb, link, board_name, layout, rules, seed, delay)


def _play(args: ServeOptions, table: Any, vb: Any, link: Any, board_name: str, layout: str,
          rules: dict[str, Any], seed: int, delay: float) -> int:
    from cardtable_host.sim.play import play_out
    from cardtable_host.board.link import LinkError
    from cardtable_host.sim.bots import Bots, SimError
    from cardtable_host.sim.table import VirtualTable

    vt = VirtualTable(vb, board_name, layout)
    bots = Bots(link, vt, set(range(len(vt.layout.seats))), seed=seed, mistakes=not args.no_mistakes,
                timeout=vb.JUDGE_S, deal_pad=args.deal_pad)
    hello: dict[str, Any] | None = link.last_hello or link.hello()

    def new_game() -> dict[str, Any]:
        vt.clear()
        return bots.new_game(rules)

    def requests() -> bool:
        table.run_requests(new_game)
        table.reveal_if_hand_over()
        return False

    if args.wait_viewers > 0:
        table.hub.note("the game starts when %d spectator(s) have the page open" % args.wait_viewers)
        table.hub.wait_viewers(args.wait_viewers)
    played = 0
    restart = False
    while True:
        try:
            if restart:
                table.resync()
                vt.clear()
                bots.new_game(rules)
                restart = False
            elif hello is not None:
                bots.new_game(rules, hello=hello)
                hello = None
            play_out(bots, delay, stop=requests)
            table.archive_if_over()
            table.reveal_if_hand_over()
            played += 1
            more = args.games == 0 or played < args.games
            deadline = time.monotonic() + (BETWEEN_GAMES_S if more else 1e12)
            while bots.over and time.monotonic() < deadline:
                bots.pump(0.2)
                table.run_requests(new_game)
            if bots.over:
                vt.clear()
                bots.new_game(rules)
        except (SimError, LinkError) as e:
            while not link.up:
                table.run_requests(new_game)
                time.sleep(0.2)
            time.sleep(0.5)
            if not table.resync() or not catch_up(bots, link):
                table.hub.note("the game on the virtual board stopped (%s): a new one starts" % e, "red")
                restart = True


def _cable(vb: Any) -> Callable[[bool], None]:
    """The virtual board's USB cable: plug(False) pulls it, plug(True) plugs it back."""
    def plug(plugged: bool) -> None:
        if plugged:
            vb.replug()
        else:
            vb.unplug()
    return plug


def catch_up(bots: Any, link: Any) -> bool:
    """After the link was lost: bring the bots up to the board's game from its journal (the
    board went on without being heard); False if they cannot follow it any more."""
    from cardtable import record

    if bots.shadow is None or bots.over or bots.divergences:
        return False
    try:
        seq = link.state().get("seq")
        lines = link.log() if seq != bots.applied else []
    except Exception:  # noqa: BLE001 - LinkError and friends: a new game instead
        return False
    for text in lines:
        try:
            obj = record.parse_line(text, 0)
        except record.RecordError:
            return False
        n = obj.pop("seq", None)
        if isinstance(n, int) and n > bots.applied and "act" in obj:
            bots.handle({"type": "event", "seq": n, "action": obj, "from": "journal"})
    bots.sent = None
    bots.pending_deal = None
    return bots.applied == seq and not bots.divergences
