"""The commands that need no serial port start where POSIX's terminal modules do not exist
(Windows): fcntl, termios, pty and tty are made unimportable before cardtable is imported."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

# The command runs in-process after the POSIX-only modules are poisoned.
RUNNER = """\
import sys
for name in ("fcntl", "termios", "pty", "tty"):
    sys.modules[name] = None
from cardtable_host import cli
sys.exit(cli.main(sys.argv[1:]))
"""


def without_posix(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", RUNNER, *args], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, NO_COLOR="1"))


@pytest.mark.parametrize("args, says", [
    (("--help",), "referee"),
    (("referee", str(FIXTURES / "nexus" / "legal.jsonl")), "all legal"),
    (("rules", "fortyfives"), "Forty-Fives"),
    (("demo", "nexus", "--quiet"), "game over"),
    (("pull", "--help"), "journals"),
    (("doctor", "--help"), "reader"),
])
def test_starts_without_posix_terminal_modules(args: tuple[str, ...], says: str) -> None:
    r = without_posix(*args)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    assert says in r.stdout


def test_help_imports_no_command_module() -> None:
    """`cardtable --help` lists every command from the command table without importing them."""
    probe = ("import sys\nfrom cardtable_host import cli\ntry:\n    cli.main(['--help'])\n"
             "except SystemExit:\n    pass\nprint(sorted(m for m in sys.modules if m in map(cli.command_module, cli.COMMANDS)))")
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    from cardtable_host import cli

    for name in cli.COMMANDS:
        assert re.search(r"^    %s\b" % name, r.stdout, re.M), name
    assert r.stdout.strip().splitlines()[-1] == "[]", r.stdout
