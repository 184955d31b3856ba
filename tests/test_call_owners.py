"""The benches' call counter (``bench/call_owners.py``) charges each call to the nearest frame
of the bot's own code, and sorts the owners into the parts its report names."""

from __future__ import annotations

import json
from pathlib import Path

from bench.call_owners import LOOP, Counting, part_of, read
from bot.games.base import daily_day


def test_calls_go_to_the_nearest_own_frame_and_its_part(tmp_path: Path) -> None:
    out = tmp_path / "calls.json"
    counting = Counting(out)
    counting.start()
    daily_day({"daily": 3})  # its own call, and its two C calls (dict.get, isinstance)
    sorted([3, 1, 2])  # no own frame on the stack: the test's, which is not the bot's
    counting.stop()
    counted = json.loads(out.read_text())
    assert counted["bot/games/base.py:daily_day"] == 4, counted
    assert counted["(the loop)"] >= 1, counted
    parts = read(out)
    assert parts["the engines"] == 4
    assert parts[LOOP] == sum(n for owner, n in counted.items() if owner == "(the loop)")


def test_every_part_is_named_by_its_owner() -> None:
    assert part_of("bot/answers.py:update") == "the click's answer"
    assert part_of("bench/floor_bot.py:FloorBot.on_interaction") == "the click's answer"
    assert part_of("cogs/cheerio.py:CheerioCog.render") == "drawing the board"
    assert part_of("db/sqlite.py:SqliteDatabase.transaction") == "the store"
    assert part_of("bot/scheduler.py:Scheduler.run") == "the rest"
