"""SIGKILL the real bot process mid-game, three times: nothing it acknowledged is lost.

Three solo Cheerio players, one two-player Hot Score table and one two-player Appletters table
(words typed in the Play word form, or Pick and pass) play through it; afterwards every open
game plays on, every control on its board answers, and no public message ever showed a hand.
The long version, with figures, is ``python bench/kill.py --kills 25``; the experiment itself
is ``tests/killharness``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.kill import figures
from cogs.appletters_tiles import tiles_text
from tests.fakediscord import FakeDiscord, Request
from tests.killharness import Report, chaos, check_hands_private


async def test_killed_three_times_nothing_acknowledged_is_lost(tmp_path: Path) -> None:
    report = await chaos(kills=3, games=3, tables=1, words=1, seed=7, folder=tmp_path)
    assert report.kills == 3
    assert report.acked, "the players made no move at all"
    movers = {ack.user_id for ack in report.acked}
    assert {7004, 7005} <= movers, "both Hot Score players moved"
    assert {7006, 7007} <= movers, "both Appletters players moved"
    assert report.kinds.get("hotscore"), figures(report)
    assert report.kinds.get("appletters"), figures(report)
    played = [a for a in report.acked if a.kind == "play"]
    assert report.words == len(played) > 0, figures(report)
    assert any(a.kind == "pick" for a in report.acked), figures(report)
    assert report.lost == [], figures(report)
    assert report.mismatched == [], figures(report)
    assert report.continued == report.open_games, figures(report)
    assert report.open_games, "some game was still open at the end"
    assert report.pressed, figures(report)
    assert report.dead == [], figures(report) + report.dead
    assert report.hands and report.public, figures(report)
    assert report.leaks == [], figures(report) + report.leaks


def test_the_leak_check_finds_a_dealt_or_dmed_hand_in_public_only() -> None:
    """The check :func:`chaos` runs over every request, on requests made up here: a hand in a
    channel message or a public reply is found, also inside a longer run of tiles; the same
    hand in a DM or an ephemeral reply is not. (What is looked for is a hand as the DM shows
    it: the same tiles in another order are not.)"""
    fake = FakeDiscord()  # never started: only its records are read
    fake.add_user(7001)
    dm = fake.dm_channel(7001)["id"]
    fake.versions[1] = [{"channel_id": dm, "content": f"Your tiles (3): {tiles_text('XYZ')}\n"}]

    def sent(path: str, body: dict[str, Any]) -> Request:
        return Request("POST", path, {}, body, [])

    fake.requests += [
        sent(f"/channels/{dm}/messages", {"content": f"Your tiles: {tiles_text('ABC')}"}),
        sent(
            "/interactions/1/t1/callback",
            {"type": 4, "data": {"content": "`A` `B` `C`", "flags": 64}},
        ),
        sent("/channels/6001/messages", {"embeds": [{"description": f"so {tiles_text('ABC')}!"}]}),
        sent("/interactions/2/t2/callback", {"type": 7, "data": {"content": "`Q` `X` `Y` `Z`"}}),
        sent("/interactions/3/t3/callback", {"type": 4, "data": {"content": "`Y` `X` `Z`"}}),
        sent("/webhooks/9/t4", {"content": "`X` `Y` `Z`", "flags": 64}),
    ]
    report = Report()
    check_hands_private(fake, {"ABC"}, report)
    assert report.hands == 2  # ABC held, XYZ from the DM
    assert report.public == 3  # the channel message and the two public replies
    assert report.leaks == [
        "/channels/6001/messages: `A` `B` `C`",
        "/interactions/2/t2/callback: `X` `Y` `Z`",  # inside a longer run of tiles
    ]
