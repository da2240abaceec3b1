"""The firmware's version, and the build hash of the frozen image it runs in ("source" if none)."""
VERSION = "0.1.0"

try:
    from cardtable._build import BUILD  # type: ignore[import-not-found]  # generated: frozen only
except ImportError:
    BUILD = "source"  # .mpy or .py files copied onto a stock MicroPython, or CPython
