"""End to end: `cardtable sim GAME --bots all --deal-pad` deals every card across the virtual
board's deal pad, the board refuses the bots' slips at once (no revoke is left to be proven
later), no hand ever crosses the link, and `cardtable referee` agrees with the pulled journal."""
from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hostsupport import SimRun, cardtable, need_node, sim_messages, sims

from cardtable import games
from cardtable.table.configcheck import facts

pytest.importorskip("termios")  # ptys are POSIX only

need_node()

# game -> seed: games of a few hundred actions at most with the pad's deals (others: seed 1)
SEEDS = {"california-jacks": 171, "fortyfives": 26}
# every registered game whose registry entry lets a deal pad read its deal
GAMES = {g: SEEDS.get(g, 1) for g in games.GAMES if facts(g)[-1]}
TIMEOUT = 300


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, SimRun]]:
    with sims(tmp_path_factory.mktemp("simpad"),
              {game: ["--deal-pad", "--seed", str(seed)] for game, seed in GAMES.items()}) as procs:
        yield procs


@pytest.mark.parametrize("game", sorted(GAMES))
def test_sim_deals_across_the_pad_and_refuses_revokes_at_once(game: str, runs: dict[str, SimRun]) -> None:
    base = runs[game][1]
    messages = sim_messages(runs[game], TIMEOUT)
    result = [m for m in messages if m.get("type") == "result"][-1]
    assert result["over"] is True
    deals = [m for m in messages if m.get("type") == "event" and m.get("action", {}).get("act") == "deal"]
    assert deals and all(m["from"] == "deal pad" for m in deals), [m.get("from") for m in deals]
    counted = [m for m in messages if m.get("type") == "dealt"]
    assert counted and all(set(m) == {"type", "n", "of", "zone"} for m in counted)
    # known hands never leave the device: no deal pile but the face-up ones, no hand in a view
    for m in deals:
        assert not {"hands", "hands2", "kitty", "stock", "deck"} & set(m["action"]), m["action"]
    for m in messages:
        if m.get("type") == "state":
            assert "hand" not in m["view"] and "hands" not in m["view"], m["view"]
    proven = [ev for m in messages if m.get("type") == "event" for ev in m["events"]
              if ev.get("ev") == "revoke"]
    assert proven == [], "a revoke was let through and proven later"
    if game != "fairies":
        refused = [m for m in messages if m.get("type") == "verdict"]
        assert refused and all(m["reason"] for m in refused)  # the bots' slips, refused at once
    ref = cardtable("referee", "--json", str(base.with_suffix(".jsonl")))
    assert ref.returncode == 0, ref.stdout + ref.stderr
    verdict = json.loads(ref.stdout)
    assert verdict["ok"] and verdict["over"] and verdict["scores"] == result["scores"]
