"""Ordinary bad input gets one clear line and a documented exit status, never a traceback."""
from __future__ import annotations

import ast
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostsupport import cardtable

from cardtable_host.board import boardfind
from cardtable_host import cli

ROOT = Path(__file__).resolve().parents[2]


def readme_record() -> str:
    """The example record in the README's section "The game record"."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## The game record", 1)[1]
    m = re.search(r"```json\n(.*?)```", section, re.S)
    assert m, "the README's game record section has no json example"
    return m.group(1)


def one_line_error(r: subprocess.CompletedProcess[str], command: str) -> str:
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardtable %s: " % command), r.stderr
    return lines[0]


def test_the_readmes_example_record_is_legal(tmp_path: Path) -> None:
    path = tmp_path / "readme.jsonl"
    path.write_text(readme_record(), encoding="utf-8")
    r = cardtable("referee", str(path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "california-jacks: all legal" in r.stdout


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig"])
def test_referee_reads_utf16_and_a_utf8_bom(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "record.jsonl"
    path.write_bytes(readme_record().encode(encoding))
    r = cardtable("referee", str(path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "california-jacks: all legal" in r.stdout


def test_referee_on_bytes_that_are_not_text_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "record.jsonl"
    path.write_bytes(readme_record().encode() + b'{"seat": 1, "act": "play", "card": "\xff\xfe"}\n')
    r = cardtable("referee", str(path))
    assert r.returncode == 2
    assert "line 5: byte" in one_line_error(r, "referee") and "not UTF-8" in r.stderr


def test_pull_into_a_file_or_a_folder_that_cannot_be_made(tmp_path: Path) -> None:
    afile = tmp_path / "README.md"
    afile.write_text("not a folder")
    r = cardtable("pull", "-o", str(afile))
    assert r.returncode == 2
    assert "that is a file, not a folder" in one_line_error(r, "pull")
    r = cardtable("pull", "-o", str(afile / "games"))
    assert r.returncode == 2
    assert "cannot make the folder" in one_line_error(r, "pull")


@pytest.mark.parametrize("args, said", [
    (("demo", "nexus", "--seats", "7"), "nexus is for 2 players, not 7"),
    (("demo", "nexus", "--delay", "-1"), "--delay -1: the seconds between moves cannot be negative"),
    (("sim", "nexus", "--delay", "-1"), "--delay -1: the seconds between bot actions cannot be negative"),
    (("doctor", "--sample", "0"), "--sample 0: the seconds between the two readings must be more than 0"),
])
def test_bad_numbers_are_refused(args: tuple[str, ...], said: str) -> None:
    r = cardtable(*args)
    assert r.returncode == 2
    assert said in one_line_error(r, args[0])


def test_every_command_documents_its_exit_status() -> None:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():  # type: ignore[union-attr]
        text = p.format_help()
        assert re.search(r"[Ee]xit status: 0 ", text), name
        assert "130" in text or "Ctrl-C" in text, name  # what Ctrl-C ends with
    assert "exit status" in parser.format_help()


def test_version() -> None:
    r = cardtable("--version")
    assert r.returncode == 0 and re.fullmatch(r"cardtable \d+\.\d+\.\d+\n", r.stdout), r.stdout + r.stderr


# What the `cardtable` script does, with a Ctrl-C after DELAY seconds from a timer. (Ctrl-C
# while Python itself starts, before any of cardtable's code runs, is Python's to report.)
CONSOLE_SCRIPT = """
import os, signal, sys, threading
import cardtable_host
sys.argv = [os.path.join(os.path.dirname(sys.executable), "cardtable"), "rules", "nexus"]
threading.Timer(float(os.environ["DELAY"]), os.kill, (os.getpid(), signal.SIGINT)).start()
from cardtable_host.cli import main
sys.exit(main())
"""


def test_ctrl_c_while_starting_ends_quietly() -> None:
    """Ctrl-C in the first tenth of a second (while the commands are imported)."""
    for k in range(1, 11):
        env = dict(os.environ, NO_COLOR="1", DELAY=str(0.01 * k))
        proc = subprocess.run([sys.executable, "-c", CONSOLE_SCRIPT], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, env=env, timeout=60)
        assert "Traceback" not in proc.stderr and "KeyboardInterrupt" not in proc.stderr, (k, proc.stderr)
        assert proc.returncode in (0, 130), (k, proc.returncode, proc.stderr)


def no_board_env() -> dict[str, str]:
    if boardfind.picos():
        pytest.skip("a real Pico is plugged in")
    return {k: v for k, v in os.environ.items() if k != boardfind.ENV}


@pytest.mark.parametrize("command", ["doctor", "pull"])
def test_json_says_no_board_as_json(command: str) -> None:
    import json

    r = cardtable(command, "--json", env=no_board_env())
    assert r.returncode == 2
    out = json.loads(r.stdout)
    assert out["ok"] is False and out["error"].startswith("no board found")


def test_run_on_a_named_port_that_is_not_there_does_not_simulate() -> None:
    r = cardtable("run", "--port", "/dev/ttyNOPE", env=no_board_env())
    assert r.returncode == 2
    assert "no serial port /dev/ttyNOPE" in one_line_error(r, "run")
    assert "simulation" not in r.stdout


# -- one error path: a command raises a CardtableError; cli.fail alone prints it -------------

PACKAGE = ROOT / "host" / "cardtable_host"
# (file, function) that may write to stderr themselves, and why
STDERR_WRITERS = {
    ("cli.py", "fail"): "the one error line",
    ("errors.py", "warn"): "a warning that does not stop the command",
    ("sim/board.py", "_stderr_reader"): "the virtual board's own stderr, under --verbose",
    ("sim/board.py", "_request"): "the control channel trace, with CARDTABLE_VB_TRACE set",
}


def _is_stderr(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "stderr"
            and isinstance(node.value, ast.Name) and node.value.id == "sys")


def _hand_made_errors(path: Path) -> list[str]:
    """What in a module prints to stderr, exits or returns a usage or Ctrl-C status by hand."""
    rel = path.relative_to(PACKAGE).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"), rel)
    found = []

    def visit(node: ast.AST, func: str, main_guard: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            func = node.name
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            main_guard = True
        where = "%s:%d (%s)" % (rel, getattr(node, "lineno", 0), func)
        allowed = (rel, func) in STDERR_WRITERS
        if isinstance(node, ast.Call) and not allowed:
            f = node.func
            if isinstance(f, ast.Name) and f.id == "print" and any(
                    k.arg == "file" and _is_stderr(k.value) for k in node.keywords):
                found.append(where + ": print(..., file=sys.stderr)")
            if isinstance(f, ast.Attribute) and f.attr == "write" and _is_stderr(f.value):
                found.append(where + ": sys.stderr.write")
            if isinstance(f, ast.Attribute) and f.attr == "exit" and isinstance(f.value, ast.Name) \
                    and f.value.id == "sys" and not main_guard:
                found.append(where + ": sys.exit")
        if isinstance(node, ast.Raise) and node.exc is not None and "SystemExit" in ast.unparse(node.exc) \
                and (rel, func) != ("errors.py", "term"):
            found.append(where + ": raise SystemExit")
        if rel.startswith("commands/") and isinstance(node, ast.Return) \
                and isinstance(node.value, ast.Constant) and node.value.value in (2, 130):
            found.append(where + ": return %r (raise UsageError, or let Ctrl-C through)" % node.value.value)
        for child in ast.iter_child_nodes(node):
            visit(child, func, main_guard)

    visit(tree, "", False)
    return found


def test_no_module_prints_its_errors_by_hand() -> None:
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in _hand_made_errors(path)]
    assert not found, "raise CardtableError / UsageError instead:\n" + "\n".join(found)


def test_the_scan_finds_a_hand_printed_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "commands" / "boom.py"
    fake.parent.mkdir()
    fake.write_text("import sys\n\ndef run(args):\n    print('cardtable boom: no', file=sys.stderr)\n"
                    "    sys.exit(3)\n\ndef other():\n    return 2\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path)
    found = _hand_made_errors(fake)
    assert [h.split(": ", 1)[1] for h in found] == [
        "print(..., file=sys.stderr)", "sys.exit", "return 2 (raise UsageError, or let Ctrl-C through)"]


def test_referee_json_on_a_malformed_record_names_the_line_once(tmp_path: Path) -> None:
    import json

    path = tmp_path / "bad.jsonl"
    path.write_text(readme_record().splitlines()[0] + "\n{not json\n", encoding="utf-8")
    r = cardtable("referee", "--json", str(path))
    assert r.returncode == 2
    assert one_line_error(r, "referee").startswith("cardtable referee: %s: line 2" % path)
    out = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(out) == 1 and out[0]["ok"] is False and out[0]["line"] == 2


def test_flash_json_reports_an_error_once() -> None:
    import json

    r = cardtable("flash", "--json", "--port", "/dev/ttyNOPE", env=no_board_env())
    assert r.returncode == 2
    assert "no serial port /dev/ttyNOPE" in one_line_error(r, "flash")
    out = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(out) == 1 and out[0]["ok"] is False and "/dev/ttyNOPE" in out[0]["error"]


@pytest.mark.parametrize("args, said", [
    (("rules", "nosuch"), "unknown game"),
    (("sim", "nosuch"), "unknown game"),
    (("enroll", "--game", "fortyfives", "--owner", "1", "--port", "/dev/ttyNOPE"), "--owner is for nerts decks only"),
    (("enroll", "--game", "nerts", "--owner", "9", "--port", "/dev/ttyNOPE"), "--owner is a seat number, 0 to"),
    (("enroll", "--game", "nexus", "--zone", "s0", "--port", "/dev/ttyNOPE"), "--zone is for --board-port"),
])
def test_refusals_are_one_line_and_status_2(args: tuple[str, ...], said: str) -> None:
    r = cardtable(*args)
    assert r.returncode == 2
    assert said in one_line_error(r, args[0])
