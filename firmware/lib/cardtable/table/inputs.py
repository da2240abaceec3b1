"""How zone, button and encoder inputs become actions: the controller's TableInputs part."""
# The mapping per game is described at the top of table/controller.py.
from cardtable.compat import ticks_diff
from cardtable.hal import BUTTON, TURN


class TableInputs:
    """Mixed into Controller: zones, taps, buttons and encoders to actions."""

    def _placed(self, zone, led, text, key, t):
        role = self.layout.role(zone)
        if role is None:
            return  # this game does not use the zone
        r, seat = role
        src = "zone " + zone
        if r == "tap":
            self.confirm(seat, "tap " + zone, led)
            return
        g = self.game
        now = self.clock.ticks_ms()
        try:
            code = text.split(":")[0]
            card = g.deck.parse(code)
        except ValueError:
            self.feedback.flash(led, "unknown", now)
            self.feedback.sound("unknown", now)
            self._fault("tag", "zone %s: %r is no %s card" % (zone, text, g.ID), zone)
            return
        prev = self.tags.get(card)
        if prev is None:
            self.tags[card] = key
        elif prev != key:
            self.feedback.flash(led, "unknown", now)
            self._fault("duplicate", "zone %s: two tags say they are the %s" % (zone, g.card_code(card)), zone)
        if self.zone_card.get(zone) == card:
            return  # the card accepted here was lifted and put back
        action = self._zone_action(r, seat, card, t, led)
        if action is not None:
            self.play(action, src, led, zone)

    def _zone_action(self, r, seat, card, t, led):
        g = self.game
        gid = g.ID
        now = self.clock.ticks_ms()
        if r == "play":
            if gid == "nonesuch":
                if g.phase == "excuse" and g.card_code(card) == "X":
                    return (seat, "excuse")
                suit = None
                if g.phase == "play" and not g.trick and len(g.deck.suits(card)) > 1 and self.lead_suit >= 0:
                    suit = self.lead_suit
                self.lead_suit = -1
                return (seat, "play", card, suit)
            return (seat, "play", card)
        if r == "up":
            return (None, "deal", {"up": [card]}) if g.dealing else None
        if r == "indicator":
            if not g.dealing:
                return None
            if card not in self.indicators:
                self.indicators.append(card)
            if len(self.indicators) < 2:
                self.feedback.flash(led, "accepted", now)
                self.refresh()
                return None
            up = self.indicators[:2]
            self.indicators = []
            return (None, "deal", {"up": up})
        if r == "parade":
            if g.dealing and seat == 1:
                return (None, "deal", {"parade": [card]})
            return None
        if r == "nexus":
            return (self._turn(), "meditate", self._end(), card)
        if r == "sow":
            return (self._turn(), "sow", card, self.at)
        if r == "kitty":
            if g.phase != "discard":
                if g.dealing or g.phase in ("bid", "trump"):
                    return None
                return (self._turn(), "discard", (card,), None)  # the rules say why not
            if card not in self.discards:
                self.discards.append(card)
            self.feedback.flash(led, "accepted", now)
            self.refresh()
            return None
        if r == "foundation":
            from cardtable.cards import standard

            owner = standard.owner(card)
            dt = ticks_diff(t, self.round_t0)
            return (owner if owner >= 0 else 0, "center", card, dt if dt > 0 else 0)
        if r == "left":
            if getattr(g, "phase", "") == "count" and card not in self.left[seat]:
                self.left[seat].append(card)
                self.feedback.flash(led, "accepted", now)
                self.refresh()
            return None
        return None

    def _end(self):
        if self.game.rules.get("double_ended"):
            return "top" if self.at == 0 else "bottom"
        return None

    def confirm(self, seat, src, led=-1):
        """A tap pad (seat) or a confirm button (seat None): end what is pending."""
        g = self.game
        if g.over:
            self.new_game(g.ID, g.seats, 0, _changed_rules(g), self.layout.name)
            self.hello()
            self.send_state()
            return
        if g.ID == "fortyfives" and g.phase == "discard":
            turn = self._turn()
            if seat is not None and seat != turn:
                self._verdict((seat, "discard", (), None), g.not_your_turn(seat), src, led)
                return
            cards = tuple(self.discards)
            self.discards = []
            self.play((turn, "discard", cards, None), src, led)
            return
        if g.ID == "fairies" and not g.dealing:
            self.play((self._turn() if seat is None else seat, "meditate", self._end(), None), src, led)

    # -- buttons and encoders -------------------------------------------------------------

    def _input(self, ev):
        lay = self.layout
        name = ev[1]
        if ev[0] == TURN:
            meaning = lay.encoders.get(name)
            if meaning is not None and meaning[0] == "at":
                self._move_at(ev[2])
            return
        if ev[0] != BUTTON:
            return
        meaning = lay.button(name)
        if meaning is None:
            return
        verb, arg = meaning
        src = "button " + name
        led = self.board.button_led.get(name, -1)
        g = self.game
        if verb == "undo":
            self.undo(src)
        elif verb == "confirm":
            self.confirm(None, src, led)
        elif verb == "bid":
            self.play((self._turn(), "bid", arg), src, led)
        elif verb == "pass":
            self.play((self._turn(), "pass"), src, led)
        elif verb == "trump":
            self.play((self._turn(), "trump", g.deck.parse_suit(arg)), src, led)
        elif verb == "suit":
            suit = g.deck.parse_suit(arg)
            if g.phase == "trump":
                self.play((self._turn(), "trump", suit), src, led)
            else:
                self.lead_suit = suit
                self.feedback.flash(led, "accepted", self.clock.ticks_ms())
        elif verb == "at":
            self._move_at(-1 if arg == "up" else 1)
        elif verb == "nerts":
            if g.dealing:
                self.play((None, "deal", {}), src, led)
            elif g.phase == "count":
                self.play((arg, "left", len(self.left[arg])), src, led)
            else:
                dt = ticks_diff(self.clock.ticks_ms(), self.round_t0)
                self.play((arg, "nerts", dt if dt > 0 else 0), src, led)

    def _move_at(self, steps):
        top = len(getattr(self.game, "nexus", ()))
        at = self.at + steps
        self.at = 0 if at < 0 else top if at > top else at


def _changed_rules(g):
    out = {}
    for k in g.rules:
        if g.rules[k] != g.OPTIONS[k]:
            out[k] = g.rules[k]
    return out
