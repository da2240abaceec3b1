"""Where the chip's time goes while the table plays: a profile on the rp2 board's clock.

The bots play a seeded game on the rp2 board (the frozen image on the emulated RP2040) while the
emulator counts the cycles the core spends at each instruction (`profile` control op,
host/cardtable_host/sim/rp2/chip.mjs); each address is then named by the firmware's ELF symbols
(`arm-none-eabi-nm`), and the functions are grouped into what they are for: the MicroPython VM
(bytecode, calls, attribute and name look-ups), the heap (allocation and collection), the I2C
block's busy waits (the bus), delays (sleep_us), USB, flash, waiting for an interrupt.

    python bench/rp2profile.py [PLAYS [GAME]]      # the table (--json: the figures as JSON)
    python bench/run.py --only profile             # the same, as a section of `make bench`

Needs the image and its ELF (build/firmware/cardtable-pico.elf: the build cache keeps it beside the
image; one cached before it did comes without: `python3 tools/firmware/build.py --force`) and Node.
"""

from __future__ import annotations

import bisect
import functools
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchlib import REPO_ROOT, RESULTS

ELF = REPO_ROOT / "build" / "firmware" / "cardtable-pico.elf"
OUT = RESULTS.with_name("rp2profile.json")
BOARD = "pico-i2c-4seat"
GAME = "california-jacks"  # every play a card laid on a reader (bench/rp2latency.py)
PLAYS = 30
TOP = 15
WAIT, FLASH = -1, -2  # host/cardtable_host/sim/rp2/chip.mjs PROF_WAIT, PROF_FLASH
ALLOCATORS = ("gc_alloc", "m_malloc", "m_malloc_maybe", "m_malloc0", "m_realloc", "mp_obj_malloc_helper")

# What each function is for, by the first pattern its name starts with or contains.
GROUPS = (
    ("heap", ("gc_", "m_malloc", "m_realloc", "m_free", "mp_obj_new_", "mp_obj_list_append", "list_append")),
    ("vm: bytecode", ("mp_execute_bytecode",)),
    ("vm: calls", ("mp_call", "fun_bc_call", "mp_setup_code_state", "bound_meth", "native_", "mp_obj_call",
                   "fun_builtin", "mp_arg_", "closure_call", "mp_obj_new_bound", "mp_pystack")),
    ("vm: look-ups", ("mp_map_", "mp_load_", "mp_store_", "mp_obj_get_type", "mp_obj_class_lookup",
                      "mp_obj_instance", "instance_", "mp_obj_is_subclass", "mp_convert_member",
                      "mp_qstr", "qstr_", "find_qstr")),
    ("vm: objects", ("mp_obj_", "mp_binary", "mp_unary", "mp_small_int", "mpz_", "array_", "bytearray",
                     "memoryview", "mp_get_buffer", "mp_seq", "tuple_", "list_", "str_", "mp_iter", "mp_get_index")),
    ("i2c: the bus's own time", ("machine_i2c", "mp_machine_i2c", "i2c_", "check_single_timeout_us")),
    ("clock, delays", ("mp_hal_delay", "sleep_", "busy_wait", "time_us_64", "mp_hal_ticks", "timer_")),
    ("division (hashes, ticks)", ("divmod_", "div_s", "div_u", "__wrap___aeabi")),
    ("usb", ("tud_", "tu_", "dcd_", "usbd_", "mp_usbd", "cdc")),
    ("flash", ("flash_", "rp2_flash", "lfs", "mp_vfs", "littlefs")),
    ("interrupts", ("isr_", "irq_", "mp_sched", "mp_handle_pending", "__wfe", "__wfi")),
    ("string, memory", ("memcpy", "memset", "memmove", "memcmp", "strlen", "mp_print", "vstr_")),
)


def elf_missing() -> str | None:
    """Why the image's ELF cannot name the profile's addresses, or None. (An image the build
    cache kept before it kept ELFs comes without one.)"""
    info = REPO_ROOT / "build" / "firmware" / "cardtable-pico.json"
    build = json.loads(info.read_text()).get("build") if info.exists() else None
    if not ELF.exists() or not build or build.encode() not in ELF.read_bytes():
        return ("no ELF of the image's build (%s): `python3 tools/firmware/build.py --force` builds both"
                % ELF.relative_to(REPO_ROOT))
    return None


@functools.lru_cache(maxsize=None)
def _nm(elf: Path = ELF) -> list[list[str]]:
    """`arm-none-eabi-nm -n -S` of the ELF, split (run once)."""
    nm = shutil.which("arm-none-eabi-nm")
    if nm is None:
        raise SystemExit("rp2profile: arm-none-eabi-nm is missing (apt-get install gcc-arm-none-eabi)")
    out = subprocess.run([nm, "-n", "-S", "--defined-only", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    return [line.split() for line in out.splitlines()]


def symbols(elf: Path = ELF) -> tuple[list[int], list[tuple[int, str]]]:
    """The ELF's functions sorted by address: (starts, [(end, name)])."""
    syms: list[tuple[int, int, str]] = []  # (start, size or -1, name)
    for f in _nm(elf):
        if len(f) == 4 and f[2] in "tTwW":
            syms.append((int(f[0], 16) & ~1, int(f[1], 16), f[3]))
        elif len(f) == 3 and f[1] in "tTwW":  # no size (assembly): up to the next symbol
            syms.append((int(f[0], 16) & ~1, -1, f[2]))
    starts = [a for a, _, _ in syms]
    ends = []
    for a, n, name in syms:
        k = bisect.bisect_right(starts, a)  # the next symbol that starts further on
        ends.append((a + n if n >= 0 else (starts[k] if k < len(starts) else a + 2), name))
    return starts, ends


def data_symbol(name: str, elf: Path = ELF) -> tuple[int, int]:
    """(address, size) of a data symbol of the ELF (e.g. the Python stack's buffer)."""
    for f in _nm(elf):
        if len(f) == 4 and f[3] == name:
            return int(f[0], 16), int(f[1], 16)
    raise KeyError(name)


def high_water(raw: bytes) -> int:
    """Bytes of a zeroed buffer ever written, from its start: the last non-zero byte's end."""
    return len(raw.rstrip(b"\0"))


def name_of(pc: int, starts: list[int], ends: list[tuple[int, str]]) -> str:
    """The function at pc (or its address)."""
    if pc == WAIT:
        return "(waiting for an interrupt)"
    if pc == FLASH:
        return "(flash erase or program)"
    k = bisect.bisect_right(starts, pc) - 1
    if k >= 0 and pc < ends[k][0]:
        return ends[k][1]
    return "0x%08x" % pc


def group_of(name: str) -> str:
    """The group a function belongs to (GROUPS)."""
    if name.startswith("("):
        return "idle" if "interrupt" in name else "flash"
    for group, pats in GROUPS:
        if any(name.startswith(p) or p in name for p in pats):
            return group
    return "other"


def by_function(cycles: list[list[int]], elf: Path = ELF) -> dict[str, int]:
    """Cycles per function name."""
    starts, ends = symbols(elf)
    out: dict[str, int] = {}
    for pc, c in cycles:
        n = name_of(pc, starts, ends)
        out[n] = out.get(n, 0) + c
    return out


def callers(got: list[list[Any]], elf: Path = ELF) -> dict[str, dict[str, int]]:
    """For each allocator, how often each function called it."""
    starts, ends = symbols(elf)
    out: dict[str, dict[str, int]] = {}
    for addr, pairs in got:
        mine: dict[str, int] = {}
        for lr, n in pairs:
            c = name_of(lr, starts, ends)
            mine[c] = mine.get(c, 0) + n
        out[name_of(addr, starts, ends)] = dict(sorted(mine.items(), key=lambda kv: -kv[1]))
    return out


def report(funcs: dict[str, int], top: int = 30) -> dict[str, Any]:
    """The profile's figures: each group's and the top functions' share of the cycles."""
    total = sum(funcs.values()) or 1
    groups: dict[str, int] = {}
    for n, c in funcs.items():
        g = group_of(n)
        groups[g] = groups.get(g, 0) + c
    return {
        "cycles": total,
        "groups": [{"group": g, "share": round(c / total, 4)}
                   for g, c in sorted(groups.items(), key=lambda kv: -kv[1])],
        "functions": [{"function": n, "group": group_of(n), "share": round(c / total, 4)}
                      for n, c in sorted(funcs.items(), key=lambda kv: -kv[1])[:top]],
    }


def profile(plays: int = PLAYS, game: str = GAME, seed: int = 171) -> dict[str, Any]:
    """Bots lay `plays` cards on the rp2 board while the chip is profiled."""
    sys.path.insert(0, str(REPO_ROOT / "host"))
    from cardtable_host.board.link import Link
    from cardtable_host.sim.bots import Bots
    from cardtable_host.sim.rp2board import Rp2Board, missing
    from cardtable_host.sim.table import VirtualTable

    why = missing()
    if why:
        return {"skipped": why}
    why = elf_missing()
    if why:
        return {"skipped": why}
    board = Rp2Board(BOARD, game=game, speed=0)
    t0 = time.monotonic()
    board.start(board.BOOT_S)
    try:
        table = VirtualTable(board, BOARD, board.chosen_layout() or game)
        with Link(board.port, timeout=board.LINK_S) as link:
            bots = Bots(link, table, seed=seed, timeout=board.JUDGE_S)
            hello = link.hello()
            link.drain()
            bots.new_game({}, hello=hello)
            addrs = {n: a for a, (e, n) in zip(*symbols()) if n in ALLOCATORS}
            board.profile(True, list(addrs.values()))
            t_on = board.status().get("emulated_ns") or 0
            laid = 0
            while laid < plays:
                if bots.over:
                    bots.new_game({})
                if bots.bot_turn():
                    bots.step()
                    bots.settle(0.0)
                    laid += 1
                else:
                    bots.pump(0.05)
            got = board.profile(False)
            addr, size = data_symbol("pystack")
            used = high_water(board.peek(addr, size))
    finally:
        board.close()
    out = report(by_function(got["cycles"]))
    out["allocators"] = callers(got["callers"])
    out["pystack"] = {"size": size, "high_water": used}
    out.update({"game": game, "plays": plays, "emulated_s": round((got["now_ns"] - t_on) / 1e9, 2),
                "wall_s": round(time.monotonic() - t0, 1)})
    return out


def tables(out: dict[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    """(title, header, rows) of the profile."""
    if not out.get("groups"):
        return []
    title = ("rp2 board: where the chip's time goes (%d plays of %s, %.2f s emulated; Python stack: "
             "%d of %d bytes at the deepest)" % (out["plays"], out["game"], out["emulated_s"],
                                                out["pystack"]["high_water"], out["pystack"]["size"]))
    rows: list[list[Any]] = [[g["group"], "", "%.1f%%" % (100 * g["share"])] for g in out["groups"]]
    rows += [["", f["function"], "%.1f%%" % (100 * f["share"])] for f in out["functions"][:TOP]]
    alloc = out.get("allocators", {}).get("gc_alloc", {})
    rows.append(["heap allocations", "%d, from: %s" % (sum(alloc.values()), ", ".join(
        "%s %d" % kv for kv in list(alloc.items())[:3])), ""])
    return [(title, ["group", "function", "share"], rows)]


def section(quick: bool = False, with_rp2: bool = True, plays: int = PLAYS) -> dict[str, Any]:
    """The bench's profile section (skipped with --quick or --no-rp2)."""
    if quick or not with_rp2:
        return {"skipped": "--quick" if quick else "--no-rp2"}
    return profile(plays)


def main(argv: list[str]) -> int:
    js = "--json" in argv
    args = [a for a in argv if a != "--json"]
    out = profile(int(args[0]) if args else PLAYS, args[1] if len(args) > 1 else GAME)
    if js:
        print(json.dumps(out, indent=1))
        return 0
    if "skipped" in out:
        print("rp2profile: skipped: %s" % out["skipped"])
        return 0
    from benchlib import table

    for title, header, rows in tables(out):
        print(table(title, header, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
