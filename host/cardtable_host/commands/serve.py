"""`cardtable serve`: one owner of the board; the live table in the browser; the archive."""
from __future__ import annotations

import argparse
from typing import Any

from cardtable import games

from cardtable_host.board import boardfind
from cardtable_host.commands import options
from cardtable_host.serve.archive import REVEALS, default_dir
from cardtable_host.serve.main import serve
from cardtable_host.serve.serving import DEFAULT_HTTP, SIM_DELAY, ServeOptions

DESCRIPTION = """\
Owns the board's port (every other cardtable command is refused, naming this one, while it
runs; `cardtable monitor` becomes its client) and serves, on a local web server:
  /          the table: the board's layout drawing with the cards in their zones, whose
             turn, the trick, bids and trump, verdicts with their reason, faults, scores
  /overlay   for streaming software: the trick and the scores on a transparent page
  /archive   every finished game: replay it trick by trick, download its record, read the
             referee's verdict
Spectators only read: what they see is the board's spectator view, never a hand. The
scorekeeper's controls (POST /control: undo, a typed bid or pass, a new game; with --sim,
unplug and replug the virtual board's USB cable) need the
secret printed at start (or $CARDTABLE_SERVE_SECRET / --secret-file). It binds to
127.0.0.1 unless --http names another address (0.0.0.0: phones on the same network; it
then prints the machine's LAN addresses, and the page and the secret travel as plain HTTP).
Requests naming another host, or sent by a page of another site, are refused
(--allow-origin adds a name).
It follows the board across an unplug and a replug.

With --sim GAME it serves a virtual board with bots in every seat (see cardtable sim);
--board rp2 puts the firmware image on the emulated RP2040 instead.
Prints `table page: http://HOST:PORT/` on a line of its own once it listens.

examples:
  cardtable serve                                   # the plugged-in board
  cardtable serve --sim fortyfives --seed 7         # the demo table
  cardtable serve --sim nexus --board rp2           # ... served from the emulated RP2040
  cardtable serve --http 0.0.0.0:8719 --table "Club night" --players Ann,Bob,Cy,Di
  cardtable serve --tournament club --tournament-table 2 --broker 192.168.1.10
                                                    # a Forty-Fives tournament's table 2: its
                                                    # status and each game both teams confirmed
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    _sim_arguments(p.add_argument_group("a simulated table (--sim)"))
    _seat_arguments(p.add_argument_group("the players' own pages and speech"))
    p.add_argument("--http", default=DEFAULT_HTTP, metavar="HOST:PORT",
                   help="where the web server listens (default %s; port 0 picks a free one)" % DEFAULT_HTTP)
    p.add_argument("--allow-origin", action="append", default=[], metavar="NAME",
                   help="another host name the page is opened by (e.g. table.club.lan, or "
                        "http://table.club.lan:8719); repeatable. Requests naming any other host (Host or "
                        "Origin) are refused")
    p.add_argument("--table", default="", help="the table's name, kept in each archived game")
    p.add_argument("--players", default="", metavar="A,B,...", help="players' names by seat, for the "
                   "page and the archive")
    p.add_argument("--reveal", choices=REVEALS, default=ServeOptions.reveal,
                   help="when the hands the deal pad read reach spectators (the archive): once the hand "
                        "is over (hand, the default), once the game is over (game), or never")
    p.add_argument("--delay", dest="overlay_delay", type=float, default=ServeOptions.overlay_delay,
                   metavar="SECONDS",
                   help="show the overlay (/overlay, for a stream) this many seconds behind the table; "
                        "the table page stays live")
    p.add_argument("--archive", metavar="DIR", help="where finished games are kept (default %s)" % default_dir())
    p.add_argument("--secret-file", metavar="F", help="the scorekeeper's password, from a file")
    p.add_argument("--log", metavar="FILE", help="log verdicts, faults, connections, refused controls and "
                   "results to FILE (rotated at 5 MB; what spectators may see, never a secret)")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the addresses, not the game")
    t = p.add_argument_group("a tournament table (a board on a port; see cardtable tournament)")
    t.add_argument("--tournament", metavar="DIR", help="the tournament directory (its schedule and "
                   "broker/credentials.json): report this table's status and finished games over MQTT")
    t.add_argument("--tournament-table", type=int, metavar="N", help="this table's number in the tournament")
    t.add_argument("--broker", default=ServeOptions.broker, metavar="HOST[:PORT]",
                   help="the tournament's broker (default 127.0.0.1:1883)")
    boardfind.add_port_argument(p)



def _sim_arguments(g: Any) -> None:
    """--sim and what goes with it: the virtual board, its bots and their games."""
    g.add_argument("--sim", metavar="GAME",
                   help="serve a virtual board playing GAME with bots (%s)" % ", ".join(sorted(games.GAMES)))
    g.add_argument("--seed", type=int, help="(--sim) shuffle and bot seed")
    g.add_argument("--board", metavar="NAME",
                   help="(--sim) the simulated board, as for cardtable sim: a board config, or 'rp2' for "
                        "the emulated RP2040 running the firmware image ('rp2:NAME' with board config NAME)")
    g.add_argument("--games", type=int, default=ServeOptions.games, metavar="N",
                   help="(--sim) games to play one after another, 0 for ever (default 1); serving goes on")
    g.add_argument("--bot-delay", dest="delay", type=float, default=None, metavar="SECONDS",
                   help="(--sim) seconds between bot actions (default %g)" % SIM_DELAY)
    g.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                   help="(--sim) a rule option, as for cardtable sim; repeatable")
    g.add_argument("--deal-pad", action="store_true",
                   help="(--sim) the bots deal every card across the board's deal pad: the table knows "
                        "the hands (see --reveal)")
    g.add_argument("--no-mistakes", action="store_true",
                   help="(--sim) bots never lay a wrong card (by default one now and then)")
    g.add_argument("--wait-viewers", type=int, default=ServeOptions.wait_viewers, metavar="N",
                   help="(--sim) start the first game once N spectators have the page open")


def _seat_arguments(g: Any) -> None:
    """The seat pages' teaching mode and the spoken verdicts."""
    g.add_argument("--teach", default="", metavar="SEATS",
                   help="teaching mode on these seats' own pages (e.g. 0,2, or all): the cards that may "
                        "be played now are marked, the others say why not")
    g.add_argument("--speak", action="store_true",
                   help="say every refused card and every trick aloud through espeak-ng, with the players' names")
    g.add_argument("--speak-lang", default=ServeOptions.speak_lang, metavar="LANG",
                   help="the language espeak-ng speaks (default %s; espeak-ng --voices lists them)" % ServeOptions.speak_lang)
    g.add_argument("--speak-hands", action="store_true",
                   help="(with --speak) a seat's say button has the loudspeaker say that seat's hand too, "
                        "not the trick alone: only for a speaker that player alone hears (an earpiece)")
    g.add_argument("--speak-to", metavar="DIR",
                   help="(with --speak) render each announcement to DIR/NNNN.wav, with DIR/said.jsonl, "
                        "instead of the loudspeaker")


def run(args: argparse.Namespace) -> int:
    return serve(options(ServeOptions, args))
