"""Power cuts on the rp2 board's real flash path, replayed (sim/cutreplay.py), part 2 of 4:
a play with many new games (the journal's files made and the oldest dropped); every kind of cut placed on it (see tests/host/cutsupport.py).
"""
from __future__ import annotations

from pathlib import Path

from cutsupport import replayed_cuts


def test_replayed_power_cuts_lose_or_double_no_accepted_action_and_the_game_resumes_exactly(tmp_path: Path) -> None:
    replayed_cuts(tmp_path, seed=12, actions=30, news=5)
