"""SIGKILL the real bot process mid-game, three times: nothing it acknowledged is lost.

The long version, with figures, is ``python bench/kill.py --kills 20``.
"""

from __future__ import annotations

from pathlib import Path

from bench.kill import chaos


async def test_killed_three_times_nothing_acknowledged_is_lost(tmp_path: Path) -> None:
    report = await chaos(kills=3, games=3, seed=7, folder=tmp_path, quiet=True)
    assert report.kills == 3
    assert report.acked, "the players made no move at all"
    assert report.lost == [], report.lines()
    assert report.mismatched == [], report.lines()
    assert report.continued == report.open_games, report.lines()
