"""The packages, beyond what pyproject.toml says: three source roots, and the firmware's boot
file and board files shipped as package data (`cardtable_firmware`) so an installed cardtable
can flash a board without a checkout.

Every folder under a root is a package (the device package's folders have no __init__.py on
purpose: each costs a Pico RAM), and every file in a host package that is not Python (the pages,
the simulators' JavaScript and glue beside their host side) is package data, so the wheel carries what a checkout has."""
from __future__ import annotations

import os

from setuptools import find_namespace_packages, setup

ROOTS = {"cardtable": "firmware/lib/cardtable", "cardtable_host": "host/cardtable_host"}
SKIP_DIRS = {"__pycache__", "node_modules"}


def packages(name: str, path: str) -> list[str]:
    """name and every folder under path, as packages."""
    found = find_namespace_packages(path, exclude=["*%s*" % d for d in SKIP_DIRS])
    return [name] + ["%s.%s" % (name, p) for p in found if not SKIP_DIRS & set(p.split("."))]


def data_files(name: str, path: str) -> dict[str, list[str]]:
    """Each package's files that are not Python source or bytecode."""
    data: dict[str, list[str]] = {}
    for pkg in packages(name, path):
        folder = os.path.join(path, *pkg.split(".")[1:])
        files = sorted(f for f in os.listdir(folder) if os.path.isfile(os.path.join(folder, f))
                       and not f.endswith((".py", ".pyc")) and not f.startswith("."))
        if files:
            data[pkg] = files
    return data


setup(
    packages=[p for name, path in ROOTS.items() for p in packages(name, path)]
    + ["cardtable_firmware", "cardtable_firmware.boards"],
    package_dir=dict(ROOTS, cardtable_firmware="firmware"),
    package_data={"cardtable_firmware": ["main.py"], "cardtable_firmware.boards": ["*.json"],
                  **data_files("cardtable_host", ROOTS["cardtable_host"])},
    include_package_data=False,
)
