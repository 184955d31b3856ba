"""SIGKILL the real bot process mid-game, three times: nothing it acknowledged is lost.

Three solo Cheerio players and one two-player Hot Score table play through it; afterwards
every open game plays on and every control on its board answers.
The long version, with figures, is ``python bench/kill.py --kills 25``.
"""

from __future__ import annotations

from pathlib import Path

from bench.kill import chaos


async def test_killed_three_times_nothing_acknowledged_is_lost(tmp_path: Path) -> None:
    report = await chaos(kills=3, games=3, tables=1, seed=7, folder=tmp_path, quiet=True)
    assert report.kills == 3
    assert report.acked, "the players made no move at all"
    table = {7004, 7005}
    assert table <= {ack.user_id for ack in report.acked}, "both Hot Score players moved"
    assert report.kinds.get("hotscore"), report.lines()
    assert report.lost == [], report.lines()
    assert report.mismatched == [], report.lines()
    assert report.continued == report.open_games, report.lines()
    assert report.open_games, "some game was still open at the end"
    assert report.pressed, report.lines()
    assert report.dead == [], report.lines() + report.dead
