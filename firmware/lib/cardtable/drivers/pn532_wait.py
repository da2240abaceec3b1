"""A PN532 waiting for a card by itself: InListPassiveTarget retried for ever, answered on IRQ."""
# NXP UM0701-02 (PN532 User Manual): RFConfiguration CfgItem 5 (section 7.3.1) with
# MxRtyPassiveActivation 0xFF retries the activation for ever, so an InListPassiveTarget sent
# then answers only once a card is in the field (its field stays on meanwhile); with
# SAMConfiguration's IRQ byte set (section 7.2.10; the driver's init() sets it) the P70_IRQ
# line goes low whenever the PN532 has a frame for the host: the ACK, then that answer.
# InAutoPoll (section 7.3.13) would also wait by itself, but its Period is in units of 150 ms:
# far too coarse to time a race. The bus is used only to arm a reader and to read its answer.
from cardtable.drivers.pn532 import ACK, CMD_LIST, CMD_RFCONFIG

_P_FOREVER = b"\x05\xff\x01\xff"  # CfgItem 5: MxRtyATR, MxRtyPSL, MxRtyPassiveActivation 0xFF
_P_BOUNDED = bytearray(b"\x05\xff\x01\x01")  # ... back to the reader's own retries (patched)
_P_WAIT = b"\x02\x00"  # MaxTg 2, 106 kbps type A: the answer counts a second tag too


def arm(r):
    """Set reader r waiting for a card: retries for ever, then InListPassiveTarget sent and its
    ACK taken. Its answer comes when a card does; the IRQ line goes low then."""
    if r.stale():  # reset by its bus's RSTPDN since it was configured
        r.init()
    r._call(CMD_RFCONFIG, _P_FOREVER, 9)
    r._call(CMD_LIST, _P_WAIT, 0, r._send)


def answer(r):
    """The UID (a memoryview, as poll() gives) of the card armed reader r found, or None: reads
    the answer its IRQ line announced. Its retries are still unbounded: bound(r) before r is
    polled again (the card's READ and its verdict come first)."""
    # Read in one transaction sized for one tag (22 bytes with a 7-byte UID), as a poll reads
    # its answer: two tags' 36 cost a NACK and a re-read, but that is a fault on the pad, while
    # every card at the edge would wait for the 14 more bytes (0.3 ms at 400 kHz) before its READ.
    n = r._call(CMD_LIST, _P_WAIT, 22, r._response)
    return r.listed(n)  # (copied out of the shared receive buffer; r.ntg: how many tags)


def bound(r):
    """Bound reader r's activation retries again to its own (poll() works as before)."""
    _P_BOUNDED[3] = r.retries
    r._call(CMD_RFCONFIG, _P_BOUNDED, 9)


def disarm(r):
    """Stop reader r waiting (an ACK from the host aborts the command) and bound its retries."""
    r._write(ACK)
    bound(r)
