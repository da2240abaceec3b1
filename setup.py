"""The packages, beyond what pyproject.toml says: three source roots, and the firmware's boot
file and board files shipped as package data (`cardtable_firmware`) so an installed cardtable
can flash a board without a checkout; the simulators' JavaScript beside their host side."""
from setuptools import find_packages, setup

ROOTS = {"cardtable": "firmware/lib/cardtable", "cardtable_host": "host/cardtable_host"}


def packages(name: str, path: str) -> list[str]:
    """name and its subpackages, found under path."""
    return [name] + ["%s.%s" % (name, p) for p in find_packages(path)]


setup(
    packages=[p for name, path in ROOTS.items() for p in packages(name, path)] + ["cardtable_firmware"],
    package_dir=dict(ROOTS, cardtable_firmware="firmware"),
    package_data={"cardtable_firmware": ["main.py", "boards/*.json"],
                  "cardtable_host.serve": ["web/*"],
                  # the simulators' JavaScript and MicroPython glue, beside their host side
                  "cardtable_host.sim": ["*.mjs", "vboard/*.mjs", "vboard/*.py", "rp2/*.mjs", "rp2/*.md",
                                         "rp2/devices/*.mjs"]},
    exclude_package_data={"cardtable_firmware": ["manifest.py", "package.json"]},
)
