"""Board config checks of the table's geometry: pads apart by their outlines, a keep-out round
the deal pad, reader cables that do not run under another reader's antenna."""
# Imported by configcheck once the zones are read, and unloaded with it; integer maths only
# (this runs on the Pico at boot). A zone's outline ("size", a card by default) is its
# PN532's antenna area: a tag lying anywhere on it is read, and a reader's field reaches some
# 30-50 mm past it (NXP AN10609's loop antennas; a 25 mm NTAG213 sticker on the Elechouse V3).
from cardtable.compat import const
from cardtable.table.intmath import isqrt

MIN_GAP_MM = const(30)  # outline to outline: a card on one pad is not read by the next
DEAL_KEEP_MM = const(100)  # round a deal pad: the deck held over it, each card leaving it
CARD = (63, 88)


def outline(z):
    """(x0, y0, x1, y1) of zone dict z (its "at" and "size")."""
    x, y = z["at"]
    w, h = z.get("size", CARD)
    return (x - w // 2, y - h // 2, x + w // 2, y + h // 2)


def gap(a, b):
    """Distance in mm between two outlines (0 if they touch or overlap)."""
    gx = max(0, a[0] - b[2], b[0] - a[2])
    gy = max(0, a[1] - b[3], b[1] - a[3])
    return isqrt(gx * gx + gy * gy)


def crosses(p, q, o):
    """Does the segment from p to q pass over outline o (touching its edge does not count)?
    Allocation free: its boxes overlap, and the outline's corners are not all on one side."""
    x0, y0, x1, y1 = o
    px, py, qx, qy = p[0], p[1], q[0], q[1]
    if max(px, qx) <= x0 or min(px, qx) >= x1 or max(py, qy) <= y0 or min(py, qy) >= y1:
        return False
    dx, dy = qx - px, qy - py
    s0 = dx * (y0 - py) - dy * (x0 - px)
    s1 = dx * (y0 - py) - dy * (x1 - px)
    s2 = dx * (y1 - py) - dy * (x0 - px)
    s3 = dx * (y1 - py) - dy * (x1 - px)
    return not ((s0 > 0 and s1 > 0 and s2 > 0 and s3 > 0)
                or (s0 < 0 and s1 < 0 and s2 < 0 and s3 < 0))


def length(pts):
    """The length in mm of a polyline."""
    n = 0
    for k in range(1, len(pts)):
        dx, dy = pts[k][0] - pts[k - 1][0], pts[k][1] - pts[k - 1][1]
        n += isqrt(dx * dx + dy * dy)
    return n


def _xy(p):
    return isinstance(p, list) and len(p) == 2 and isinstance(p[0], int) and isinstance(p[1], int)


def route(cfg, i):
    """The points of reader i's cable as the board file lays it: its mux (or the Pico), the
    "route" waypoints, its zone; None where a position is missing."""
    r = cfg["readers"][i]
    start = None
    try:
        bus = cfg["buses"][r["bus"]]
        if "mux" in r:
            start = bus["muxes"][r["mux"]]
        else:
            start = cfg["pico"]["at"]
    except (KeyError, TypeError):
        return None
    end = None
    for z in cfg.get("zones", {}).values():
        if isinstance(z, dict) and z.get("reader") == i:
            end = z.get("at")
    pts = [start] + list(r.get("route", [])) + [end]
    for p in pts:
        if not _xy(p):
            return None  # (reported where the position is read)
    return pts


def check(ck, b, cfg, w, h):
    """Add the geometry problems of board config cfg (its zones already read) to ck."""
    zones = cfg.get("zones")
    if not isinstance(zones, dict):
        return
    names = sorted([zn for zn in zones if zn in b.zone_reader])
    box = {}
    for zn in names:
        try:
            box[zn] = outline(zones[zn])
        except (TypeError, ValueError, KeyError):
            return  # reported by _zones
    _gaps(ck, names, box)
    _deal_keep(ck, cfg, names, box)
    _trunks(ck, cfg, names, box)
    _cables(ck, b, cfg, w, h, names, box)


def _gaps(ck, names, box):
    # Zones too close outline to outline: a card on one is read by the other.
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            g = gap(box[names[i]], box[names[j]])
            if g < MIN_GAP_MM:
                ck.bad(None, "zones '%s' and '%s' are %d mm apart outline to outline (antenna"
                       " to antenna): a card on one is read by the other; keep %d mm between"
                       " them" % (names[i], names[j], g, MIN_GAP_MM))


def _deal_keep(ck, cfg, names, box):
    # Zones too near a deal pad, over which the deck is held and its cards dealt.
    deals = []
    layouts = cfg.get("layouts", {})
    if isinstance(layouts, dict):
        for lay in layouts.values():
            zs = lay.get("zones", {}) if isinstance(lay, dict) else {}
            for zn in zs:
                role = zs[zn]  # its first word "deal", without a list per zone and layout
                if isinstance(role, str) and role[:4] == "deal" and role[4:5] in ("", " ") \
                        and zn in box and zn not in deals:
                    deals.append(zn)
    for dz in deals:
        for zn in names:
            if zn != dz:
                g = gap(box[dz], box[zn])
                if g < DEAL_KEEP_MM:
                    ck.bad("zones." + zn, "%d mm from the deal pad '%s': the deck held over it"
                           " and each card dealt from it pass over this pad; keep pads %d mm"
                           " from a deal pad's outline" % (g, dz, DEAL_KEEP_MM))


def _trunks(ck, cfg, names, box):
    # Trunks from the Pico to a mux that run under a zone's antenna.
    pico = cfg.get("pico")
    pico = pico.get("at") if isinstance(pico, dict) else None
    buses = cfg.get("buses")
    if _xy(pico) and isinstance(buses, dict):
        for bn in buses:
            muxes = buses[bn].get("muxes") if isinstance(buses[bn], dict) else None
            for a in muxes if isinstance(muxes, dict) else ():
                for zn in names:
                    if _xy(muxes[a]) and crosses(pico, muxes[a], box[zn]):
                        ck.bad("buses.%s.muxes.%s" % (bn, a), "the trunk from the Pico to this mux"
                               " runs under the antenna of zone '%s': place the mux (or the Pico)"
                               " so the trunk goes round it" % zn)
                        break


def _cables(ck, b, cfg, w, h, names, box):
    # Reader cables that run under another zone's antenna, or are shorter than their route.
    readers = cfg.get("readers", [])
    for i in range(len(readers)):
        r = readers[i]
        key = "readers[%d]" % i
        if not isinstance(r, dict):
            continue
        pts = r.get("route", [])
        if not isinstance(pts, list) or [p for p in pts if not ck.point(key + ".route", p, w, h)]:
            continue
        pts = route(cfg, i)
        if pts is None:
            continue
        own = b.reader_zone[i] if i < len(b.reader_zone) else ""
        hit = _crossed(pts, names, box, own)
        if hit:
            ck.bad(key, "its cable to zone '%s' runs under the antenna of zone '%s' (a field on"
                   " over a cable couples into it); route it round along the edges with"
                   " \"route\": [[x, y], ...] waypoints" % (own, hit))
        mm = length(pts)
        if "cable_mm" in r and isinstance(r["cable_mm"], int) and r["cable_mm"] < mm:
            ck.bad(key + ".cable_mm", "%d mm is shorter than its cable's %d mm route on the"
                   " drawing" % (r["cable_mm"], mm))


def _crossed(pts, names, box, own):
    # The first zone but own whose antenna the route pts runs under, or None.
    for k in range(1, len(pts)):
        for zn in names:
            if zn != own and crosses(pts[k - 1], pts[k], box[zn]):
                return zn
    return None
