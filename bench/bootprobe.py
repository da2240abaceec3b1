"""Bench probe for MicroPython: the heap the firmware's boot keeps (memory.boot in bench.json).

Run by bench/device.py through tools/mpy/run.mjs with ``--step step N``, as bench/probe.py is:
the WebAssembly port collects garbage only between top-level calls, so each stage is a step of
its own and the next step reads gc.mem_alloc() after the collection. A script of its own, and a
small one, so that the heap in use before the boot (``base``) is little more than the runtime's,
as on a Pico before main.py runs: the boot's peak then meets the same 192 KB a board has.

It boots through main.py's staged boot (cardtable.simboot.Boot with table=False: the stages a
Pico's boot shares with the virtual board's, no simulated hardware, no game, no table), the
default board's reader drivers right after the board, then the modules of the list not loaded
yet (the Pico's hal). simboot itself and its Boot object are outside every figure.

Usage: bootprobe.py MOD,MOD,...  (main.py's boot modules as bench/benchlib.py lists them)
Output: '@' followed by one JSON record ("boot", then "done"), then the port's heap summary.
"""
import gc
import json
import sys

alloc = gc.mem_alloc


def emit(obj):
    """Print a record for the host: '@' and its JSON."""
    print("@" + json.dumps(obj))


def import_each(mods, failed, sizes, base):
    """Import the modules one a step (sizes: each one's heap, failed: errors); the peak from base."""
    peak = 0
    for m in mods:
        before = alloc()
        try:
            __import__(m)
        except Exception as e:  # noqa: BLE001 - any failure is reported, not fatal
            failed[m] = "%s: %s" % (type(e).__name__, e)
        peak = max(peak, alloc() - base)
        gc.collect()
        yield
        sizes[m] = alloc() - before
    return peak


def boot_plan(mods):
    """main.py's staged boot, then the rest of mods; emits what the boot kept, its peak, each stage's share."""
    from cardtable import simboot  # loads no real module (its stages do): outside the figure

    gc.collect()
    yield
    base = alloc()
    failed = {}
    sizes = {}
    peak = sim = 0
    if "main" in mods:  # Boot reads its stage list from main.py
        peak = yield from import_each(["main"], failed, sizes, base)
    if "main" in sys.modules:
        before = alloc()
        boot = simboot.Boot(sys.modules["main"], None, "/boards", table=False)
        gc.collect()
        yield
        sim = alloc() - before  # the Boot and its plan: the simulated boot's bookkeeping
        peak = max(peak, (yield from _stages(simboot, boot, base + sim, failed, sizes, mods)))
        # what the table keeps: the storage, the config, the board
        kept = (boot.storage, getattr(boot, "cfg", None), getattr(boot, "board", None))  # noqa: F841
        boot = None
        gc.collect()
        yield
    more = [m for m in mods if m not in sys.modules]
    peak = max(peak, (yield from import_each(more, failed, sizes, base)))
    used = alloc()
    emit({"k": "boot", "base": base, "peak": peak, "retained": used - base, "used": used,
          "modules": sizes, "failed": failed, "simboot": sim})
    import micropython

    micropython.mem_info()  # the host reads 'GC: total: N' from it


def _stages(simboot, boot, base, failed, sizes, mods):
    """Run the staged boot a stage a step, mods' drivers after the board; the peak from base."""
    peak = 0
    st = simboot.MORE
    while st == simboot.MORE:
        before = alloc()
        try:
            st = boot.step()
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            failed[boot.last] = "%s: %s" % (type(e).__name__, e)
            st = simboot.MORE if boot.i < len(boot.plan) else simboot.DONE
        peak = max(peak, alloc() - base)
        gc.collect()
        yield
        sizes[_stage_name(boot)] = alloc() - before
        if boot.last == "board":
            boot.then([m for m in mods if m.startswith("cardtable.drivers.") and m not in sys.modules])
    if st == simboot.STOPPED:
        failed["boot"] = boot.note
    return peak


def _stage_name(boot):
    """A stage's name in the figures: the module it imports, or what it loads."""
    if boot.last.startswith("import "):
        return boot.last[7:]
    if boot.last == "board" and getattr(boot, "board", None) is not None:
        return "board %s (checked, kept)" % boot.board.name
    return boot.last


PLAN = boot_plan([m for m in sys.argv[1].split(",") if m] if len(sys.argv) > 1 else [])


def step(i):
    """One step of the plan (called from JavaScript); ends the run when the plan is done."""
    try:
        next(PLAN)
    except StopIteration:
        emit({"k": "done", "steps": i})
        sys.exit(0)
