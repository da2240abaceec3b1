"""`cardtable enroll`: tag a deck - write each card's code on its NFC sticker and check it."""
from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, Protocol, cast

from cardtable import games
from cardtable.cards import BadCard, deck, standard
from cardtable.drivers import ndef

from cardtable_host.board import boardfind
from cardtable_host.errors import UsageError
from cardtable_host.progress import Progress
from cardtable_host.term import paint, use_colour

DESCRIPTION = """\
Walks you through a deck one card at a time: "place AS on the reader", then it reads the
sticker, writes the card's code as an NDEF text record (NTAG213/215/216, pages from 4),
reads it back and checks it. A sticker that already holds another card of the deck is
refused (so a deck is never tagged twice by mistake); one that already holds the right code
is taken as it is. Lift each card when the next one is asked for.

The reader is either a PN532 breakout on a USB-serial adapter, in HSU (UART) mode at 115200
baud (--port), or one of the table's own readers (--board-port and --zone): the running table
reads and writes the tags for you over its link, and plays nothing while you enroll.
Exit status: 0 the deck (or --cards) is done, 1 stopped before the end (Ctrl-C too: it says
how to finish later), 2 no reader, the board's port in use by another program, or bad
arguments.

example:  cardtable enroll --game fortyfives --port /dev/ttyUSB0
          cardtable enroll --game nerts --owner 2 --port /dev/ttyUSB0     # deck #2: AS#2 ...
          cardtable enroll --game nexus --port /dev/ttyUSB0 --cards BJ,LJ  # replace two stickers
          cardtable enroll --game nexus --board-port --zone s0            # on seat 0's reader
"""

PAGE0 = 4  # NTAG user memory starts at page 4
READ_TIMEOUT = 0.5  # seconds one InListPassiveTarget may wait for a tag
SERIAL_TIMEOUT = 0.1  # the Adafruit UART example's value (embedded-facts 4.1)
MAX_ERRORS = 5  # reader errors in a row before giving up
BOARD_POLL = 0.05  # seconds between two looks for a tag through the board's reader


class TagLost(Exception):
    """The tag did not answer a READ or WRITE (moved, or lifted too soon)."""


class TagTrouble(Exception):
    """The board could not use the tag: kind "lost" (try again) or "unusable"."""

    def __init__(self, kind: str, msg: str) -> None:
        super().__init__(msg)
        self.kind = kind
        self.msg = msg


class TagSource(Protocol):
    """What enrolling needs from any reader: the UID of the tag in its field."""

    def uid(self, timeout: float) -> bytes | None: ...


class Reader(TagSource, Protocol):
    """A reader enrolling reads and writes page by page (the USB-serial PN532)."""

    def read(self, page: int) -> bytes | None: ...  # 16 bytes (4 pages) or None

    def write(self, page: int, data: bytes) -> bool: ...


def driver_installed() -> bool:
    """Whether Adafruit's PN532 driver (the `enroll` extra) is installed."""
    import importlib.util

    return importlib.util.find_spec("adafruit_pn532") is not None


class UartReader:
    """A PN532 on a USB-serial adapter, through Adafruit's driver (adafruit-circuitpython-pn532)."""

    def __init__(self, port: str, serial_timeout: float = SERIAL_TIMEOUT) -> None:
        import serial
        from adafruit_pn532.uart import PN532_UART

        self.serial = serial.Serial(port, 115200, timeout=serial_timeout)
        try:
            self.pn = PN532_UART(self.serial, debug=False)
            self.firmware = self.pn.firmware_version
        except Exception:
            self.serial.close()
            raise

    def uid(self, timeout: float) -> bytes | None:
        uid = self.pn.read_passive_target(timeout=timeout)
        return bytes(uid) if uid is not None else None

    def read(self, page: int) -> bytes | None:
        # The NTAG READ command (0x30) is the same byte as MIFARE Classic's: 16 bytes back.
        try:
            block = self.pn.mifare_classic_read_block(page)
        except TypeError:  # the driver indexes a missing answer
            return None
        return bytes(block) if block is not None else None

    def write(self, page: int, data: bytes) -> bool:
        try:
            return bool(self.pn.ntag2xx_write_block(page, data))
        except TypeError:
            return False

    def close(self) -> None:
        self.serial.close()


class BoardReader:
    """One of the table's own readers, through the board's link (the ``tag`` command)."""

    def __init__(self, link: Any, zone: str) -> None:
        self.link = link
        self.zone = zone
        self.last: dict[str, Any] = {}  # the last read: uid, text or why it has none

    def _tag(self, **fields: Any) -> dict[str, Any]:
        from cardtable_host.board.link import CommandError, LinkError

        try:
            return dict(self.link.tag(self.zone, **fields))
        except CommandError as e:
            if e.reply.get("tag"):
                raise TagTrouble(str(e.reply["tag"]), e.msg) from None
            raise RuntimeError(e.msg) from None
        except LinkError as e:
            raise RuntimeError(str(e)) from None

    def uid(self, timeout: float) -> bytes | None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                r = self._tag()
            except TagTrouble:  # it left the field while being read: look again
                r = {}
            if r.get("uid"):
                if r["uid"] == self.last.get("uid"):
                    time.sleep(BOARD_POLL)  # the same tag still lies there: do not hammer the link
                self.last = r
                return bytes.fromhex(r["uid"])
            if time.monotonic() >= deadline:
                return None
            time.sleep(BOARD_POLL)

    def write(self, code: str, uid: bytes) -> dict[str, Any]:
        """Write code on the tag with this UID and read it back (the board does both)."""
        return self._tag(write=code, uid=uid.hex())


def deck_codes(game: str, owner: int | None = None) -> list[str]:
    """The card codes a game's deck is tagged with, in enrolling order."""
    cls = games.game_class(game)
    fmt = deck(cls.DECK).fmt
    cards = list(cls.CARDS)
    if getattr(cls, "OWNED", False):
        own = 0 if owner is None else owner
        cards = [standard.owned(c, own) for c in standard.DECK]
    return [fmt(c) for c in cards]


def is_deck_card(game: str, text: str) -> bool:
    """True if text is a card code of this game's card family (any owner where decks are owned)."""
    cls = games.game_class(game)
    try:
        c = deck(cls.DECK).parse(text)
    except (BadCard, ValueError):
        return False
    return getattr(cls, "OWNED", False) or c in cls.CARDS


def read_area(reader: Reader) -> tuple[int, bytes]:
    """(user bytes, the TLV area from page 4) of an NDEF-formatted NTAG.

    Raises TagLost if a READ fails, NdefError if the tag has no NDEF capability container.
    """
    block = reader.read(3)
    if block is None or len(block) < 16:
        raise TagLost("READ of page 3 failed")
    ndef.check_cc(block, 0)
    size = block[2] * 8
    area = bytearray(block[4:16])
    while len(area) < size:
        try:
            off, n = ndef.message_span(area, 0, len(area))
        except ndef.NdefError:
            break  # blank or foreign: what we have is enough to say so
        if off >= 0 and off + n < len(area):  # the message and the byte after it (terminator)
            break
        more = reader.read(PAGE0 + len(area) // 4)
        if more is None or len(more) < 16:
            raise TagLost("READ of page %d failed" % (PAGE0 + len(area) // 4))
        area.extend(more)
    return size, bytes(area[:size])


def tag_text(area: bytes) -> str | None:
    """The text record on the tag, or None for a blank or foreign sticker."""
    try:
        return ndef.text_of_area(area)
    except ndef.NdefError:
        return None


class Enroller:
    """Runs the enrolment of a list of card codes on one reader, telling `say` as it goes."""

    def __init__(self, reader: TagSource, game: str, codes: list[str], overwrite: bool = False,
                 wait: float = 0, progress: Progress | None = None, out: Any = None,
                 colour: bool = False) -> None:
        self.reader = reader
        self.game = game
        self.codes = codes
        self.overwrite = overwrite
        self.wait = wait
        self.progress = progress
        self.out = out or sys.stdout
        self.colour = colour
        self._size = 0  # user bytes of the tag being enrolled
        self.done: list[dict[str, Any]] = []
        self.refused: list[dict[str, Any]] = []
        self._done_uids: dict[bytes, str] = {}
        self._quiet: set[bytes] = set()  # tags in the field already told about
        self._told: dict[bytes, str] = {}  # the last trouble told per tag

    def say(self, text: str, colour: str | None = None) -> None:
        if colour:
            text = paint(text, colour, self.colour)
        if self.progress is not None and self.progress.enabled:
            self.progress.note(text)
        else:
            print(text, file=self.out, flush=True)

    def run(self) -> bool:
        """Enroll every code; False if it stopped early (no tag in time, reader gone)."""
        for i, code in enumerate(self.codes):
            prompt = "place %s on the reader (%d/%d)" % (code, i + 1, len(self.codes))
            if self.progress is not None and self.progress.enabled:
                self.progress.update(i, "place %s on the reader" % code)
            else:
                self.say(prompt)
            if not self.one(code, i + 1):
                return False
        if self.progress is not None:
            self.progress.update(len(self.codes), "done")
            self.progress.close()
        return True

    def one(self, code: str, n: int) -> bool:
        """Enroll one card; False if no usable tag came in time or the reader failed."""
        deadline = time.monotonic() + self.wait if self.wait > 0 else None
        errors = 0
        while True:
            if deadline is not None and time.monotonic() > deadline:
                self.say("no new tag for %s within %g s: stopping" % (code, self.wait), "red")
                return False
            try:
                uid = self.reader.uid(READ_TIMEOUT)
            except RuntimeError as e:  # the Adafruit driver's frame errors
                errors += 1
                if errors >= MAX_ERRORS:
                    self.say("the reader stopped answering (%s): stopping" % e, "red")
                    return False
                continue
            errors = 0
            if uid is None:
                self._quiet.clear()  # the field is empty: any tag that comes back is news
                continue
            if uid in self._quiet:
                continue
            if uid in self._done_uids:
                self._quiet.add(uid)
                self.say("  that sticker (%s) is %s, enrolled a moment ago: lift it and place %s"
                         % (uid.hex(), self._done_uids[uid], code), "yellow")
                continue
            result = self._enroll_tag(uid, code)
            if result is None:
                continue
            self._done_uids[uid] = code
            self._quiet = {uid}  # it stays on the reader until the next card comes
            self.done.append({"card": code, "uid": uid.hex(), "written": result})
            what = "written and verified" if result else "already held its code"
            self.say("%s %s on tag %s (%d/%d)" % (code, what, uid.hex(), n, len(self.codes)),
                     "green" if result else None)
            return True

    def _trouble(self, uid: bytes, text: str) -> None:
        """Say text once per tag and trouble (the loop retries several times a second)."""
        if self._told.get(uid) != text:
            self._told[uid] = text
            self.say(text, "yellow")

    def _enroll_tag(self, uid: bytes, code: str) -> bool | None:
        """True written, False already right, None refused or failed (the card stays due)."""
        if len(uid) != 7:
            self._refuse(uid, code, "a %d-byte UID is no NTAG sticker (MIFARE Classic? a bank or "
                                    "transit card?)" % len(uid))
            return None
        ok, old = self._read_tag(uid, code)
        if not ok:
            return None
        if old == code:
            return False
        if old is not None and is_deck_card(self.game, old) and not self.overwrite:
            self._refuse(uid, code, "it already holds %s, another card of the deck "
                                    "(use a fresh sticker, or --overwrite to re-tag)" % old)
            return None
        return self._write_tag(uid, code)

    def _read_tag(self, uid: bytes, code: str) -> tuple[bool, str | None]:
        """(True, the card code on the tag or None), or (False, None) if it was told off."""
        try:
            self._size, area = read_area(cast(Reader, self.reader))
        except TagLost:
            self._trouble(uid, "  lost tag %s while reading it: hold the card still on the reader" % uid.hex())
            return False, None
        except ndef.NdefError as e:
            self._refuse(uid, code, "not an NDEF-formatted NTAG sticker (%s)" % e)
            return False, None
        return True, tag_text(area)

    def _write_tag(self, uid: bytes, code: str) -> bool | None:
        """Write the code and check it by reading it back; None if that failed."""
        tlv = ndef.text_tlv(code)
        data = ndef.padded(tlv)
        if len(data) > self._size:
            self._refuse(uid, code, "%s does not fit in its %d bytes" % (code, self._size))
            return None
        pages = cast(Reader, self.reader)
        for i in range(0, len(data), 4):
            if not pages.write(PAGE0 + i // 4, data[i:i + 4]):
                self._trouble(uid, "  writing page %d of tag %s failed: hold the card still, it will "
                                   "be written again" % (PAGE0 + i // 4, uid.hex()))
                return None
        try:
            _, back = read_area(pages)
        except (TagLost, ndef.NdefError):
            self._trouble(uid, "  could not read tag %s back: hold the card still, it will be written "
                               "again" % uid.hex())
            return None
        if not self._verify(code, back, tlv):
            self.say("  tag %s reads back %r, not %s: trying again" % (uid.hex(), tag_text(back), code), "red")
            return None
        return True

    def _verify(self, code: str, area: bytes, tlv: bytes | None = None) -> bool:
        if tlv is not None and area[:len(tlv)] != tlv:
            return False
        return tag_text(area) == code

    def _refuse(self, uid: bytes, code: str, why: str) -> None:
        self._quiet.add(uid)
        self.refused.append({"uid": uid.hex(), "card": code, "reason": why})
        self.say("  refused tag %s for %s: %s" % (uid.hex(), code, why), "red")


class BoardEnroller(Enroller):
    """Enrolling through the table's own reader: the board reads, writes and reads back."""

    def _read_tag(self, uid: bytes, code: str) -> tuple[bool, str | None]:
        return True, cast(BoardReader, self.reader).last.get("text")  # read with the UID just now

    def _write_tag(self, uid: bytes, code: str) -> bool | None:
        try:
            back = cast(BoardReader, self.reader).write(code, uid).get("text")
        except TagTrouble as e:
            why = e.msg.split(": ", 1)[1] if e.msg.startswith("tag %s: " % uid.hex()) else e.msg
            if e.kind == "unusable":
                self._refuse(uid, code, "it cannot take a card code (%s)" % why)
            else:
                self._trouble(uid, "  writing tag %s failed (%s): hold the card still, it will be "
                                   "written again" % (uid.hex(), why))
            return None
        except RuntimeError as e:  # the reader or the link failed
            self._trouble(uid, "  writing tag %s failed (%s): it will be written again" % (uid.hex(), e))
            return None
        if back != code:
            self.say("  tag %s reads back %r, not %s: trying again" % (uid.hex(), back, code), "red")
            return None
        return True


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", "-g", required=True, choices=sorted(games.GAMES), metavar="GAME",
                   help="whose deck to tag: %s" % ", ".join(sorted(games.GAMES)))
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", "-p",
                       help="serial port of the PN532 (USB-serial adapter, HSU mode), e.g. /dev/ttyUSB0")
    where.add_argument("--board-port", nargs="?", const="", metavar="PORT",
                       help="enroll on the table's own reader of --zone instead: the board's port "
                            "(default: $%s, else the one Pico plugged in)" % boardfind.ENV)
    p.add_argument("--zone", metavar="ZONE",
                   help="with --board-port: the zone whose reader tags are laid on, e.g. s0")
    p.add_argument("--owner", type=int, metavar="N",
                   help="nerts: the deck's owner seat (0-7); its cards are coded AS#N (default 0)")
    p.add_argument("--cards", metavar="CODES",
                   help="only these cards, comma-separated (e.g. to replace lost stickers)")
    p.add_argument("--overwrite", action="store_true",
                   help="write even over a sticker that holds another card of the deck")
    p.add_argument("--wait", type=float, default=0, metavar="S",
                   help="stop if no new tag comes within S seconds for a card (default: wait)")
    p.add_argument("--json", action="store_true",
                   help="print a JSON summary (cards, tag UIDs, refusals) at the end; prompts go to stderr")


def run(args: argparse.Namespace) -> int:
    cls = games.game_class(args.game)
    if args.owner is not None and not getattr(cls, "OWNED", False):
        owned = [g for g in sorted(games.GAMES) if getattr(games.game_class(g), "OWNED", False)]
        raise UsageError("--owner is for %s decks only" % " and ".join(owned))
    if args.owner is not None and not 0 <= args.owner < cls.SEATS[1]:
        raise UsageError("--owner is a seat number, 0 to %d" % (cls.SEATS[1] - 1))
    codes = deck_codes(args.game, args.owner)
    if args.cards:
        fam = deck(games.game_class(args.game).DECK)
        wanted = []
        for text in args.cards.split(","):
            text = text.strip()
            try:
                c = fam.fmt(fam.parse(text))
            except (BadCard, ValueError):
                c = ""
            if c not in codes:
                raise UsageError("%r is not a card of the %s deck%s" % (
                    text, args.game, "" if args.owner is None else " of owner %d" % args.owner))
            wanted.append(c)
        codes = wanted
    out = sys.stderr if args.json else sys.stdout
    if args.board_port is not None:
        return _run_board(args, codes, out)
    if args.zone:
        raise UsageError("--zone is for --board-port (the table's own readers)")
    if not driver_installed():
        raise UsageError("--port needs Adafruit's PN532 driver, an optional part of cardtable: "
                         "pip install 'cardtable[enroll]'")
    try:
        reader = UartReader(args.port)
    except Exception as e:  # serial.SerialException, the driver's RuntimeError
        raise UsageError("no PN532 answers on %s (%s). Check: the adapter is plugged in, "
                         "TX goes to RX and RX to TX, the breakout is in HSU/UART mode, and it has power."
                         % (args.port, e)) from None
    ic, ver, rev, _ = reader.firmware
    print("PN532 on %s (IC %02x, firmware %d.%d); %s deck: %d cards" % (
        args.port, ic, ver, rev, args.game, len(codes)), file=out, flush=True)
    en = Enroller(reader, args.game, codes, overwrite=args.overwrite, wait=args.wait,
                  progress=Progress(len(codes), "enroll", stream=out), out=out, colour=use_colour(out))
    try:
        finished = _enroll(en, out)
    finally:
        reader.close()
    return _summary(args, en, codes, finished, "--port %s" % args.port, out)


def _run_board(args: argparse.Namespace, codes: list[str], out: Any) -> int:
    from cardtable_host.board.link import LinkError

    link = boardfind.open_link("enroll", args.board_port or None)
    port = link.port
    try:
        try:
            hello = link.hello()
            readers = {r.get("zone"): r for r in link.health().get("readers") or []}
        except LinkError as e:
            raise UsageError("the board on %s does not answer (%s): is the table running?"
                             % (port, e)) from None
        r = readers.get(args.zone)
        if r is None:
            raise UsageError("%s: which reader are the tags laid on? --zone %s" % (
                "no zone %s on this board" % args.zone if args.zone else "--zone is needed",
                "|".join(str(z) for z in readers)))
        if not r.get("up"):
            raise UsageError("the reader of zone %s is down (%s)" % (
                args.zone, r.get("error") or "it does not answer"))
        print("reader of zone %s on %s (%s, PN532 firmware %s); %s deck: %d cards" % (
            args.zone, hello.get("board"), port, r.get("fw") or "?", args.game, len(codes)),
            file=out, flush=True)
        en = BoardEnroller(BoardReader(link, args.zone), args.game, codes, overwrite=args.overwrite,
                           wait=args.wait, progress=Progress(len(codes), "enroll", stream=out), out=out,
                           colour=use_colour(out))
        try:
            finished = _enroll(en, out)
        finally:
            try:
                link.tag(done=True)  # the table plays again
            except LinkError:
                print("the table may still be enrolling: a reboot (or `cardtable enroll` again) ends it",
                      file=out)
    finally:
        link.close()
    return _summary(args, en, codes, finished, "--board-port %s --zone %s" % (port, args.zone), out)


def _enroll(en: Enroller, out: Any) -> bool:
    progress = en.progress
    try:
        return en.run()
    except KeyboardInterrupt:
        if progress is not None:
            progress.close()
        print("\nstopped", file=out)
        return False
    finally:
        if progress is not None:
            progress.close()


def _summary(args: argparse.Namespace, en: Enroller, codes: list[str], finished: bool, where: str,
             out: Any) -> int:
    written = sum(1 for d in en.done if d["written"])
    print("%d/%d cards enrolled (%d written, %d already held their code), %d stickers refused" % (
        len(en.done), len(codes), written, len(en.done) - written, len(en.refused)), file=out)
    if not finished:
        left = codes[len(en.done):]
        print("to finish later: cardtable enroll --game %s %s%s --cards %s" % (
            args.game, where, "" if args.owner is None else " --owner %d" % args.owner,
            ",".join(left)), file=out)
    if args.json:
        print(json.dumps({"game": args.game, "owner": args.owner, "complete": finished,
                          "cards": en.done, "refused": en.refused,
                          "left": codes[len(en.done):]}))
    return 0 if finished else 1
