"""`cardtable completion bash`: a script bash loads, completing commands, options and values."""
from __future__ import annotations

import shutil
import subprocess

import pytest
from hostsupport import cardtable


def complete(script: str, line: str) -> list[str]:
    """What bash offers for `line` (the cursor at its end), with the script loaded."""
    words = line.split(" ")
    probe = script + (
        '\nCOMP_WORDS=(%s)\nCOMP_CWORD=%d\n_cardtable_complete\nprintf "%%s\\n" "${COMPREPLY[@]}"\n'
        % (" ".join("'%s'" % w for w in words), len(words) - 1))
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", probe], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0, r.stderr
    return [w for w in r.stdout.splitlines() if w]


@pytest.fixture(scope="module")
def script() -> str:
    if not shutil.which("bash"):
        pytest.skip("bash is not installed")
    r = cardtable("completion", "bash")
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip().endswith("complete -o filenames -F _cardtable_complete cardtable")
    return r.stdout


def test_commands_options_and_their_values_complete(script: str) -> None:
    assert complete(script, "cardtable re") == ["referee"]
    assert "tournament" in complete(script, "cardtable ")
    assert complete(script, "cardtable flash --dry") == ["--dry-run"]
    assert complete(script, "cardtable rules --") == ["--color", "--config", "--help", "--json"]
    assert complete(script, "cardtable completion z") == ["zsh"]


def test_zsh_script_loads_bash_completion() -> None:
    r = cardtable("completion", "zsh")
    assert r.returncode == 0 and r.stdout.startswith("# cardtable completion (zsh)")
    assert "bashcompinit" in r.stdout


def test_an_unknown_shell_is_refused() -> None:
    r = cardtable("completion", "fish")
    assert r.returncode == 2 and "invalid choice: 'fish'" in r.stderr
