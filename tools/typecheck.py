"""Type checks that hold: pyright (the pinned npm package, `make setup` installs it) on the
firmware (firmware/pyrightconfig.json: MicroPython's stubs) and on the host (pyrightconfig.json,
which finds .venv), against the committed baseline tools/pyright-baseline.json.

The baseline lists, per project, file and pyright rule, how many errors are accepted and why
(each entry has its reason). A new error (a count above its entry, or a file or rule not in
it) fails with pyright's own message for each; fewer errors than an entry says are reported so
the baseline is tightened (`--update` rewrites the counts, keeping the reasons; a new entry
needs a reason written by hand).

usage:  python3 tools/typecheck.py            # exit 0 when no error beyond the baseline
        python3 tools/typecheck.py --update   # write the counts found now into the baseline
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BASELINE = REPO / "tools" / "pyright-baseline.json"
PYRIGHT = REPO / "node_modules" / ".bin" / "pyright"
PROJECTS = {"firmware": ["-p", "firmware"], "host": ["-p", ".", "host"]}
NEEDS_REASON = "REASON NEEDED"


def diagnostics(project: str) -> list[dict]:
    """pyright's errors for one project, each with its file relative to the repository."""
    if not PYRIGHT.exists():
        raise SystemExit("typecheck: %s is missing: run `make setup` (npm ci installs pyright)" % PYRIGHT)
    r = subprocess.run([str(PYRIGHT), "--outputjson", *PROJECTS[project]], cwd=REPO,
                       capture_output=True, text=True)
    try:
        out = json.loads(r.stdout)
    except ValueError:
        raise SystemExit("typecheck: pyright said no JSON (exit %d):\n%s" % (r.returncode, r.stderr[-2000:]))
    found = []
    for d in out.get("generalDiagnostics", []):
        if d.get("severity") != "error":
            continue
        d["file"] = Path(d["file"]).resolve().relative_to(REPO).as_posix()
        found.append(d)
    return found


def key(d: dict) -> str:
    return "%s %s" % (d["file"], d.get("rule") or "error")


def check(baseline: dict, found: dict[str, list[dict]]) -> tuple[list[str], list[str]]:
    """(new errors, entries that could be tightened)."""
    new, fewer = [], []
    for project, diags in found.items():
        counts = Counter(map(key, diags))
        accepted = baseline.get(project, {})
        for k, n in sorted(counts.items()):
            allowed = accepted.get(k, {}).get("count", 0)
            if n > allowed:
                for d in (d for d in diags if key(d) == k):
                    new.append("%s:%d: %s (%s; the baseline accepts %d of these)" % (
                        d["file"], d["range"]["start"]["line"] + 1, d["message"].splitlines()[0],
                        d.get("rule"), allowed))
        for k, entry in sorted(accepted.items()):
            if counts.get(k, 0) < entry["count"]:
                fewer.append("%s: %s: %d errors, the baseline accepts %d: run tools/typecheck.py --update"
                             % (project, k, counts.get(k, 0), entry["count"]))
    return new, fewer


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--update", action="store_true", help="write the counts found now into the baseline")
    args = ap.parse_args(argv)
    baseline = json.loads(BASELINE.read_text()) if BASELINE.exists() else {}
    found = {p: diagnostics(p) for p in PROJECTS}
    if args.update:
        out: dict[str, dict] = {}
        for project, diags in found.items():
            old = baseline.get(project, {})
            out[project] = {k: {"count": n, "reason": old.get(k, {}).get("reason", NEEDS_REASON)}
                            for k, n in sorted(Counter(map(key, diags)).items())}
        BASELINE.write_text(json.dumps(out, indent=1) + "\n")
        print("typecheck: wrote %s" % BASELINE.relative_to(REPO))
        return 0
    new, fewer = check(baseline, found)
    for line in fewer:
        print("typecheck: fewer errors: " + line)
    for line in new:
        print("typecheck: new error: " + line)
    total = {p: len(d) for p, d in found.items()}
    print("typecheck: %s; %d beyond the baseline" % (", ".join("%s %d errors" % kv for kv in total.items()), len(new)))
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
