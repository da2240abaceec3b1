"""The virtual table: a game's deck of NFC-tagged cards, a few foreign tags, and the zones
of a board layout where a script, a bot or a person lays and lifts them.

Every card carries an NTAG213 whose UID is fixed by its code (the same card has the same
tag in every run) and whose NDEF text record is the card code (``"AS"``, ``"4MS"``,
``"17"``; in Nerts the owner's deck too: ``"AS#2"``). ``FOREIGN`` are tags that are no
card of any game: a bank card (no NDEF at all), a tag with junk text, a blank NTAG.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from cardtable.cards import deck as card_deck
from cardtable.hw_sim import uid_for as _device_uid_for
from cardtable.table import config


class Tag(NamedTuple):
    """A tag to lay on a reader: its UID, NDEF text (None: none) and kind."""

    uid: bytes
    text: str | None
    kind: int | str = 213  # 213/215/216 NTAG, "bank", "classic", "blank"


def uid_for(text: str) -> bytes:
    """The stable 7-byte NTAG UID of the tag holding text (as the device's hw_sim makes it)."""
    return bytes(_device_uid_for(text))


FOREIGN = {
    "bank": Tag(bytes.fromhex("08a1b2c3"), None, "bank"),
    "junk": Tag(uid_for("junk:hello"), "hello, world", 213),
    "blank": Tag(uid_for("blank:"), None, "blank"),
}


class Deck:
    """The tagged cards of a game: ``deck.tag("AS")``; ``deck.codes`` in the deck's order."""

    def __init__(self, game: str, seats: int | None = None) -> None:
        from cardtable import games

        cls = games.game_class(game)
        self.game = game
        self.cards = card_deck(cls.DECK)
        codes = [self.cards.fmt(c) for c in cls.CARDS] if hasattr(cls, "CARDS") else []
        if getattr(cls, "OWNED", False):  # one deck per player: the decks of the seats in play
            n = seats or cls.SEATS[0]
            codes = [c for c in codes if int(c.rsplit("#", 1)[1]) < n]
        self.codes = codes

    def tag(self, code: str) -> Tag:
        """The tag of the card with this code (any spelling the deck parses)."""
        canon = self.cards.fmt(self.cards.parse(code))
        return Tag(uid_for(canon), canon, 213)


class VirtualTable:
    """A board's zones for one layout, and the cards lying on them (through a VirtualBoard)."""

    def __init__(self, board: Any, board_name: str, layout: str, seats: int | None = None) -> None:
        self.vb = board
        self.board = config.load_board(board_name, str(_boards_dir()))
        self.layout = self.board.layout(layout)
        self.deck = Deck(self.layout.game, seats or len(self.layout.seats))
        self.lying: dict[str, str | None] = {}

    def zone(self, role: str, seat: int | None = None) -> str | None:
        """The zone that plays role (for a seat), or None if this layout has none."""
        return self.layout.zone(role, seat)

    def zones(self, role: str, seat: int | None = None) -> list[str]:
        return list(self.layout.zones(role, seat))

    def button(self, meaning: str) -> str | None:
        """The button that means e.g. 'bid 20' or 'confirm' in this layout, or None."""
        for name, (verb, arg) in self.layout.buttons.items():
            if (verb if arg is None else "%s %s" % (verb, arg)) == meaning:
                return name
        return None

    def lay(self, zone: str, code: str, wait: bool = True) -> None:
        """Lay a card (by code) on a zone."""
        tag = self.deck.tag(code)
        self.vb.place(zone, tag.text, tag.uid, tag.kind, wait=wait)
        self.lying[zone] = tag.text

    def lay_tag(self, zone: str, tag: Tag, wait: bool = True) -> None:
        """Lay any tag (e.g. FOREIGN["bank"]) on a zone."""
        self.vb.place(zone, tag.text, tag.uid, tag.kind, wait=wait)
        self.lying[zone] = tag.text

    def lift(self, zone: str, wait: bool = True) -> None:
        """Take whatever lies on a zone away."""
        self.vb.lift(zone, wait=wait)
        self.lying.pop(zone, None)

    def clear(self) -> None:
        """Lift every card the table put down."""
        for zone in list(self.lying):
            self.lift(zone)


def _boards_dir() -> Any:
    from cardtable_host.board.firmwarefiles import firmware_dir

    return firmware_dir() / "boards"
