"""Power cuts on the rp2 board's real flash path, replayed (sim/cutreplay.py), part 4 of 4:
another seeded play; every kind of cut placed on it (see tests/host/cutsupport.py).
"""
from __future__ import annotations

from pathlib import Path

from cutsupport import replayed_cuts


def test_replayed_power_cuts_lose_or_double_no_accepted_action_and_the_game_resumes_exactly(tmp_path: Path) -> None:
    replayed_cuts(tmp_path, seed=14, actions=40, news=4)
