"""Where the firmware's boot file (main.py) and board files are: a checkout's firmware/, else
the copy installed with cardtable (package `cardtable_firmware`)."""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[3] / "firmware"


def firmware_dir() -> Path:
    """The folder holding main.py and boards/*.json ($CARDTABLE_FIRMWARE overrides)."""
    env = os.environ.get("CARDTABLE_FIRMWARE")
    if env:
        return Path(env)
    if (CHECKOUT / "main.py").is_file():
        return CHECKOUT
    spec = importlib.util.find_spec("cardtable_firmware")
    if spec is not None and spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0])
    return CHECKOUT


def device_lib() -> Path:
    """The folder holding the device package `cardtable` (firmware/lib in a checkout)."""
    import cardtable

    return Path(cardtable.__file__).resolve().parents[1]
