"""How zone, button and encoder inputs become actions (the mapping is described at the top of
table/controller.py). Functions of the controller `ctl`, kept apart so each module compiles in
a small heap."""
from cardtable.compat import ticks_diff
from cardtable.hal import BUTTON, TURN


def placed(ctl, zone, led, text, key, t):
    """A card read on a zone: a play, a deal, a pending card or a fault."""
    # The card's verdict comes first (issue 35): nothing between the READ and check() but what
    # makes the action; the table's own bookkeeping (the tag seen as this card, a duplicate's
    # fault) follows the LED frame.
    role = ctl.layout.roles.get(zone)
    if role is None:
        return  # this game does not use the zone
    r, seat = role
    if r == "tap":
        confirm(ctl, seat, "tap " + zone, led)
        return
    g = ctl.game
    try:
        card = _card(ctl, g.deck, text)
    except ValueError:
        if r == "deal" and g.dealing:
            from cardtable.table import dealpad
            dealpad.misdeal(ctl, zone, led, "%r is no card of this %s deck" % (text, g.ID))
            return
        now = ctl.clock.ticks_ms()
        ctl.feedback.flash(led, "unknown", now)
        ctl.feedback.sound("unknown", now)
        ctl.fault("tag", "zone %s: %r is no %s card" % (zone, text, g.ID), zone)
        return
    if r == "deal":
        from cardtable.table import dealpad
        dealpad.card(ctl, zone, led, card)
        return
    put_back = ctl.zone_card.get(zone) == card  # the card accepted here, lifted and put back
    if (r == "play" or r == "foundation") and not put_back:  # always a play: its verdict first
        a = _play(ctl, seat, card, led, zone) if r == "play" else zone_action(ctl, r, seat, card, t, led, zone)
        ctl.play(a, "zone " + zone, led, zone)
        _tag(ctl, zone, led, card, key, False)
        return
    _tag(ctl, zone, led, card, key, True)
    if put_back:
        return
    action = zone_action(ctl, r, seat, card, t, led, zone)
    if action is not None:
        ctl.play(action, "zone " + zone, led, zone)


CODES_MAX = 64  # tag texts whose card is kept (a deck's cards: each parsed once)


def _card(ctl, deck, text):
    """The card a tag's text names (ValueError: none of this deck), parsed once per text."""
    known = ctl.codes
    if known[0] is not deck:  # another game's deck: its cards are not these
        known = ctl.codes = (deck, {})
    card = known[1].get(text)
    if card is None:
        card = deck.parse(text.split(":")[0] if ":" in text else text)
        if len(known[1]) < CODES_MAX:
            known[1][text] = card
    return card


def _tag(ctl, zone, led, card, key, flash):
    """Keep the tag (key) seen as this card; two tags that say they are the same card are a
    fault (flash: shown on the LED too; not after a verdict, which the LED keeps showing)."""
    prev = ctl.tags.get(card)
    if prev is None:
        ctl.tags[card] = key
    elif prev != key:
        if flash:
            ctl.feedback.flash(led, "unknown", ctl.clock.ticks_ms())
        ctl.fault("duplicate", "zone %s: two tags say they are the %s" % (zone, ctl.game.card_code(card)), zone)


def zone_action(ctl, r, seat, card, t, led, zone=None):
    """The action a card laid on a zone with role r makes, or None (absorbed or ignored)."""
    if r == "play":
        return _play(ctl, seat, card, led, zone)
    if ctl.dealt and (r == "up" or r == "indicator" or r == "parade"):
        return None  # a deal is under way across the deal pad: it deals, these pads do not
    if r == "up" or r == "indicator" or r == "parade":
        return _deals(ctl, r, seat, card, led)
    if r == "nexus":
        return (ctl.seat_to_act(), "meditate", meditate_end(ctl), card)
    if r == "sow":
        return (ctl.seat_to_act(), "sow", card, ctl.at)
    if r == "kitty":
        return _kitty(ctl, card, led)
    if r == "foundation":
        from cardtable.cards import standard

        owner = standard.owner(card)
        dt = ticks_diff(t, ctl.round_t0)
        return (owner if owner >= 0 else 0, "center", card, dt if dt > 0 else 0)
    if r == "left" and getattr(ctl.game, "phase", "") == "count" and card not in ctl.left[seat]:
        _collect(ctl, ctl.left[seat], card, led)  # seat's nerts left at the round's end
    return None


def _play(ctl, seat, card, led, zone):
    """A card on seat's play pad: its play (a lead suit game: the suit named by a suit button, or
    waiting for one; the Excuse when it is due)."""
    g = ctl.game
    if not getattr(g, "LEAD_SUIT", False):
        return (seat, "play", card)
    if g.phase == "excuse" and g.card_code(card) == "X":
        return (seat, "excuse")
    suit = None
    ctl.unnamed = None
    if g.phase == "play" and not g.trick and seat in g.turn and len(g.deck.suits(card)) > 1:
        if ctl.lead_suit >= 0:
            suit = ctl.lead_suit
        else:
            ctl.unnamed = (seat, card, led, zone)  # a suit button pressed next names it
    ctl.lead_suit = -1
    return (seat, "play", card, suit)


def _deals(ctl, r, seat, card, led):
    """A card on the up, indicator or parade pad: the deal it makes while one is due, else None."""
    g = ctl.game
    if not g.dealing:
        return None
    if r == "up":
        return (None, "deal", {"up": [card]})
    if r == "parade":
        return (None, "deal", {"parade": [card]}) if seat == 1 else None
    if card not in ctl.indicators:
        ctl.indicators.append(card)
    if len(ctl.indicators) < 2:
        ctl.feedback.flash(led, "accepted", ctl.clock.ticks_ms())
        ctl.refresh()
        return None
    up = ctl.indicators[:2]
    ctl.indicators = []
    return (None, "deal", {"up": up})


def _kitty(ctl, card, led):
    """A card on the kitty: collected as a discard while discarding, else the rules' refusal."""
    g = ctl.game
    if g.phase != "discard":
        if g.dealing or g.phase in ("bid", "trump"):
            return None
        return (ctl.seat_to_act(), "discard", (card,), None)  # the rules say why not
    _collect(ctl, ctl.discards, card, led)
    return None


def _collect(ctl, pile, card, led):
    """Keep card in pile (discards, nerts left) for an action a button ends, shown on the LED."""
    if card not in pile:
        pile.append(card)
    ctl.feedback.flash(led, "accepted", ctl.clock.ticks_ms())
    ctl.refresh()


def meditate_end(ctl):
    """The end of the Nexus to meditate on (double-ended variant), else None."""
    if ctl.game.rules.get("double_ended"):
        return "top" if ctl.at == 0 else "bottom"
    return None


def confirm(ctl, seat, src, led=-1):
    """A tap pad (seat) or a confirm button (seat None): end what is pending."""
    g = ctl.game
    if g.over:
        a = ctl.agree
        if getattr(g, "TEAMS", False) and not (a[0] and a[1]):
            if seat is not None:
                return answer(ctl, g.team(seat), False, src, led)  # the seat's team agrees
            # a confirm button is no team's answer: the next game waits for both
            why = "both teams answer the result first (agree or dispute)"
            ctl.verdict(None, why, src, led)
            return False, why, None
        ctl.new_game(g.ID, g.seats, 0, _changed_rules(g), ctl.layout.name)
        ctl.hello()
        ctl.send_state()
        return None
    if g.dealing and ctl.deal_zone is not None:
        if not ctl.dealt:
            return None  # nothing crossed the pad: the up or indicator pad deals, hands unseen
        from cardtable.table import dealpad
        z = ctl.deal_zone
        return dealpad.short(ctl, z, ctl.board.zone_led.get(z, -1))
    if getattr(g, "CONFIRM", None) == "discard" and g.phase == "discard":
        turn = ctl.seat_to_act()
        if seat is not None and seat != turn:
            why = g.not_your_turn(seat)
            ctl.verdict((seat, "discard", (), None), why, src, led)
            return False, why, None
        cards = tuple(ctl.discards)
        ctl.discards = []
        return ctl.play((turn, "discard", cards, None), src, led)
    if getattr(g, "CONFIRM", None) == "meditate" and not g.dealing:
        return ctl.play((ctl.seat_to_act() if seat is None else seat, "meditate", meditate_end(ctl), None), src, led)
    return None


# -- buttons and encoders -------------------------------------------------------------

def input_event(ctl, ev):
    """A button press or an encoder turn."""
    if ctl.bringup:  # `cardtable doctor --bringup` (the bringup command): told, not played
        if ev[0] == BUTTON:
            ctl.link.send({"type": "bringup", "button": ev[1]})
        elif ev[0] == TURN:
            ctl.link.send({"type": "bringup", "encoder": ev[1], "steps": ev[2]})
        return
    lay = ctl.layout
    name = ev[1]
    if ev[0] == TURN:
        meaning = lay.encoders.get(name)
        if meaning is not None and meaning[0] == "at":
            move_at(ctl, ev[2])
        return
    if ev[0] != BUTTON:
        return
    meaning = lay.button(name)
    if meaning is not None:
        press(ctl, meaning[0], meaning[1], "button " + name, ctl.board.button_led.get(name, -1))


def press(ctl, verb, arg, src, led=-1):
    """A button meaning pressed (by a button, or by the host): ctl.play's or ctl.undo's
    answer, or None when the press only sets something up (a suit, the position)."""
    g = ctl.game
    if verb == "undo":
        return ctl.undo(src)
    if verb == "confirm":
        return confirm(ctl, None, src, led)
    if verb == "agree" or verb == "dispute":
        return answer(ctl, arg, verb == "dispute", src, led)
    if verb == "say":
        return say(ctl, arg, src, led)
    if verb == "bid":
        return ctl.play((ctl.seat_to_act(), "bid", arg), src, led)
    if verb == "pass":
        return ctl.play((ctl.seat_to_act(), "pass"), src, led)
    if verb == "trump":
        return ctl.play((ctl.seat_to_act(), "trump", g.deck.parse_suit(arg)), src, led)
    if verb == "suit":
        suit = g.deck.parse_suit(arg)
        if g.phase == "trump":
            return ctl.play((ctl.seat_to_act(), "trump", suit), src, led)
        if ctl.unnamed is not None:  # the lead on the table waits for its suit
            seat, card, zled, zone = ctl.unnamed
            ctl.unnamed = None
            return ctl.play((seat, "play", card, suit), src, zled, zone)
        ctl.lead_suit = suit
        ctl.feedback.flash(led, "accepted", ctl.clock.ticks_ms())
    elif verb == "at":
        move_at(ctl, -1 if arg == "up" else 1)
    elif verb == "nerts":
        if g.dealing:
            return ctl.play((None, "deal", {}), src, led)
        if g.phase == "count":
            return ctl.play((arg, "left", len(ctl.left[arg])), src, led)
        dt = ticks_diff(ctl.clock.ticks_ms(), ctl.round_t0)
        return ctl.play((arg, "nerts", dt if dt > 0 else 0), src, led)
    return None


def answer(ctl, team, dispute, src, led=-1):
    """A team's answer to a finished game's result (a team game): it agrees, or disputes it.
    The table asks both teams once the game is over (their tap pads' LEDs, the state's
    "agree"); each may change its answer until both have given one. While the game goes on a
    team's button is its consent (below); the host's own press is refused."""
    g = ctl.game
    if not g.over and src != "host":
        return consent(ctl, team, dispute, src, led)
    if not g.over:
        why = "the game is not over: there is no result to %s" % ("dispute" if dispute else "confirm")
        ctl.verdict(None, why, src, led)
        return False, why, None
    a = ctl.agree
    if a[0] and a[1]:
        return None  # both teams have answered: the result stands as they said
    a[team] = 2 if dispute else 1
    now = ctl.clock.ticks_ms()
    ctl.feedback.flash(led, "rejected" if dispute else "accepted", now)
    ctl.refresh()
    ctl.link.send({"type": "agree", "team": team, "answer": "dispute" if dispute else "agree",
                   "agree": [a[0], a[1]], "from": src})
    ctl.send_state()
    return None


def consent(ctl, team, dispute, src, led=-1):
    """A team's agree or dispute button while the game goes on: no result is asked, so the press
    is told to the host (``consent``), which may hold an undo asked from a seat page that waits
    for this team's agreement (serve/seats.py). The table keeps nothing pending itself."""
    ctl.feedback.flash(led, "rejected" if dispute else "accepted", ctl.clock.ticks_ms())
    ctl.link.send({"type": "consent", "team": team, "answer": "dispute" if dispute else "agree",
                   "from": src})
    return None


def say(ctl, seat, src, led=-1):
    """Seat's say button: the seat asks to hear its hand and the trick. The table tells the host
    (``say``) and no card: the host asks for that seat's view and says the hand to that seat's
    page alone, the trick aloud (serve/speech.py)."""
    ctl.feedback.flash(led, "accepted", ctl.clock.ticks_ms())
    ctl.link.send({"type": "say", "seat": seat, "from": src})
    return None


def move_at(ctl, steps):
    """Move the Fairies position selector, kept within the Nexus."""
    top = len(getattr(ctl.game, "nexus", ()))
    at = ctl.at + steps
    ctl.at = 0 if at < 0 else top if at > top else at


def _changed_rules(g):
    out = {}
    for k in g.rules:
        if g.rules[k] != g.OPTIONS[k]:
            out[k] = g.rules[k]
    return out
