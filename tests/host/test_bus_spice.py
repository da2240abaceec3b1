"""Every shipped board's I2C rise times, from the validator's integer two-stage model
(table/buscheck.py: the TCA9548A's pass gate joins trunk and channel only up to its pass
voltage), checked against a circuit simulator: Debian's ngspice on a netlist generated from the
board file (pull-ups to 3.3 V, each side's wire and pin capacitance, an NMOS pass gate whose
threshold leaves the datasheet's lowest pass voltage, 1.6 V). They agree within TOLERANCE."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cardtable.table import buscheck, config

BOARDS = Path(__file__).resolve().parents[2] / "firmware" / "boards"
TOLERANCE = 0.05  # the simulator's t_r within 5 % of the validator's (it runs 3-4 % slower)
VCC = 3.3
# An NMOS pass gate, gate at V_CC: it conducts while the lower side is below V_CC - VTO, that
# is the datasheet's lowest V_pass; W/L and KP give ~10 ohm on (TI SCPS207H: R_ON 4-30 ohm).
PASS_VTO = VCC - buscheck.PASS_MV_MIN / 1000


def netlist(board: str, bus: str, segs: list[tuple[int, int, int, int, int, int]]) -> str:
    """One ngspice deck for every reader of a bus: each channel selected in a circuit of its
    own, both lines released from 0 V at t = 0, t_r measured 0.3 to 0.7 V_CC on either side."""
    lines = ["* %s %s: a TCA9548A channel per reader, trunk and channel released at t=0" % (board, bus),
             "Vcc vcc 0 DC %g" % VCC,
             ".model pass NMOS (LEVEL=1 VTO=%g KP=6.25e-4 GAMMA=0 LAMBDA=0)" % PASS_VTO]
    meas = []
    for i, rt, ct, rc, cc, _mm in segs:
        t, c = "t%d" % i, "c%d" % i
        lines += ["Rt%d vcc %s %d" % (i, t, rt), "Ct%d %s 0 %dp" % (i, t, ct)]
        if rc:
            lines += ["Rc%d vcc %s %d" % (i, c, rc), "Cc%d %s 0 %dp" % (i, c, cc),
                      "M%d %s vcc %s 0 pass W=100u L=1u" % (i, c, t)]
        for node in (t, c) if rc else (t,):
            meas.append(".meas tran r_%s TRIG v(%s) VAL=%g RISE=1 TARG v(%s) VAL=%g RISE=1" % (
                node, node, 0.3 * VCC, node, 0.7 * VCC))
    nodes = " ".join("v(%s)=0" % n for n in re.findall(r"^C[tc]\d+ (\S+)", "\n".join(lines), re.M))
    lines += [".ic " + nodes, ".tran 0.5n 4u uic"] + meas + [".end", ""]
    return "\n".join(lines)


def simulate(deck: str, tmp: Path) -> dict[str, float]:
    """ngspice -b on deck: each measured rise time in ns, by node."""
    path = tmp / "bus.cir"
    path.write_text(deck)
    r = subprocess.run(["ngspice", "-b", str(path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    got = {m[0]: float(m[1]) * 1e9 for m in re.findall(r"^r_(\w+)\s*=\s*([-+0-9.eE]+)", r.stdout, re.M)}
    assert got, r.stdout
    return got


def buses() -> list[tuple[str, str]]:
    out = []
    for p in sorted(BOARDS.glob("*.json")):
        cfg = json.loads(p.read_text())
        out += [(p.stem, bn) for bn, d in sorted(cfg["buses"].items()) if d["kind"] == "i2c"]
    return out


@pytest.mark.skipif(shutil.which("ngspice") is None, reason="ngspice is not installed (apt install ngspice)")
@pytest.mark.parametrize("board,bus", buses())
def test_the_validators_rise_times_agree_with_ngspice(board: str, bus: str, tmp_path: Path) -> None:
    cfg = json.loads((BOARDS / (board + ".json")).read_text())
    segs = buscheck.sides(cfg["buses"][bus], cfg["readers"], bus)
    got = simulate(netlist(board, bus, segs), tmp_path)
    worst = 0
    for i, rt, ct, rc, cc, _mm in segs:
        want = buscheck.rise2_ns(rt, ct, rc, cc) if rc else buscheck.rise_ns(rt, ct)
        sim = max(got["t%d" % i], got.get("c%d" % i, 0.0))
        assert abs(sim - want) <= TOLERANCE * sim, (board, bus, i, want, sim)
        worst = max(worst, want)
    # The figure the board runs with is the slowest reader's, and it meets 400 kHz.
    b = config.validate(cfg, board + ".json", board)
    assert b.buses[bus]["rise_ns"] == worst <= buscheck.FAST_TR_NS


def test_a_trunk_pull_up_too_weak_for_the_pass_gate_is_refused() -> None:
    cfg = json.loads((BOARDS / "pico-i2c-4seat.json").read_text())
    cfg["buses"]["i2c0"]["pullup"] = 22000  # the channels' 2.2 kohm alone would pass (old model)
    assert buscheck.rise_ns(buscheck.parallel(22000, 2200), 122) <= buscheck.FAST_TR_NS
    with pytest.raises(config.ConfigError) as e:
        config.validate(cfg, "pico-i2c-4seat.json", "pico-i2c-4seat")
    msg = str(e.value)
    assert "buses.i2c0.freq: 400000 Hz allows a rise time of 300 ns (UM10204), but mux 0x71 ch 1" \
        " rises in " in msg, msg
    assert "the trunk rises alone (trunk: 22000 ohm of pull-ups" in msg, msg
    assert "fit stronger pull-ups on the trunk" in msg, msg
