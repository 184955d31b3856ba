"""Shards: which ones a process runs (ORCHARD_SHARDS, ORCHARD_SHARD_COUNT), the mistakes an
operator can make with them, and a bot running some shards only on the fake Discord."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path

import discord
import pytest

from bot.app import OrchardBot
from bot.health import heartbeat_key, problem
from bot.shards import ShardError, ShardPlan, parse_plan, ranges_text
from db.store import Store
from tests.botharness import ALICE, answered, config, private
from tests.fakediscord import FakeDiscord, run_bot
from tests.test_cli import run_bot as run_cli

ROOT = Path(__file__).resolve().parent.parent
ON_SHARD_0 = 5001  # (guild_id >> 22) % 2 == 0
ON_SHARD_1 = (1 << 22) + 5001  # ... == 1


def test_unset_runs_what_discord_advises_in_this_process() -> None:
    assert parse_plan("", "") == ShardPlan(None, None)
    assert not ShardPlan().partial


@pytest.mark.parametrize(
    ("shards", "count", "ids"),
    [
        ("0-7", "32", tuple(range(8))),
        (" 3 ", "4", (3,)),
        ("0-1,4,6-7", "8", (0, 1, 4, 6, 7)),
        ("8-9,0", "10", (0, 8, 9)),
    ],
)
def test_some_shards_of_a_count(shards: str, count: str, ids: tuple[int, ...]) -> None:
    plan = parse_plan(shards, count)
    assert plan == ShardPlan(ids, int(count)) and plan.partial


def test_every_shard_listed_or_only_a_count_is_all_of_them_here() -> None:
    assert parse_plan("0-3", "4") == ShardPlan(None, 4)
    assert parse_plan("", "4") == ShardPlan(None, 4)
    assert not parse_plan("", "4").partial


@pytest.mark.parametrize(
    ("shards", "count", "says"),
    [
        ("0-7", "", "needs ORCHARD_SHARD_COUNT"),
        ("0-7", "0", "from 1 to"),
        ("0-7", "many", "got 'many'"),
        ("0-8", "8", "shard 8 does not exist"),
        ("7-0", "8", "runs backwards"),
        ("0-3,2", "8", "shard 2 twice"),
        ("0..3", "8", "such as 0-7"),
        ("-1", "8", "such as 0-7"),
        ("1,,2", "8", "such as 0-7"),
    ],
)
def test_mistakes_say_what_is_wrong(shards: str, count: str, says: str) -> None:
    with pytest.raises(ShardError, match=says):
        parse_plan(shards, count)


def test_ranges_are_written_back_compactly() -> None:
    assert ranges_text((0, 1, 2, 3, 8, 10, 11)) == "0-3,8,10-11"


def test_some_shards_on_sqlite_is_refused_before_anything_starts(tmp_path: Path) -> None:
    """SQLite is one process on one machine: the other shards' processes could not share it."""
    done = run_cli(
        tmp_path,
        PYTHONPATH=str(ROOT),
        DISCORD_TOKEN="abc",
        ORCHARD_SHARDS="0-0",
        ORCHARD_SHARD_COUNT="2",
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "leaves shards 1 to other processes" in done.stderr
    assert "postgresql://" in done.stderr
    assert not (tmp_path / "data").exists(), "no database was created"


def test_a_bad_shard_setting_is_one_clear_line(tmp_path: Path) -> None:
    done = run_cli(
        tmp_path,
        PYTHONPATH=str(ROOT),
        DISCORD_TOKEN="abc",
        ORCHARD_SHARDS="0-3",
        ORCHARD_SHARD_COUNT="2",
    )
    assert done.returncode == 2
    assert done.stderr.strip().startswith("ORCHARD_SHARDS: shard 3 does not exist")


async def test_a_process_runs_only_its_shards_and_hears_only_their_servers(
    tmp_path: Path,
) -> None:
    """Shard 1 of 2: one IDENTIFY, for [1, 2]; the server on shard 1 plays, the one on shard 0
    is another process's (Discord sends its events to shard 0's connection, not here)."""
    async with FakeDiscord.running(shard_count=2) as fake:
        fake.add_user(ALICE, "Alice")
        fake.add_guild(ON_SHARD_0, [6001], [ALICE])
        fake.add_guild(ON_SHARD_1, [6002], [ALICE])
        plan = ShardPlan((1,), 2)
        bot = OrchardBot(dataclasses.replace(config(tmp_path / "o.db"), shards=plan))
        async with run_bot(bot, fake):
            assert [i["shard"] for i in fake.identifies] == [[1, 2]]
            assert sorted(bot.shards) == [1]
            assert [g.id for g in bot.guilds] == [ON_SHARD_1]
            rules = await answered(await fake.slash(ALICE, ON_SHARD_1, 6002, "cheerio rules"))
            private(rules)
            assert not fake.connected(0)


async def test_each_shard_s_servers_arrive_together_and_a_later_one_alone(
    tmp_path: Path,
) -> None:
    """At start-up a shard's servers reach the cogs as one list once it is ready, so that
    they cost one query of each kind, not one per server (see
    :data:`bot.app.SERVERS_AVAILABLE`); a server back from an outage later arrives alone."""
    async with FakeDiscord.running(shard_count=2) as fake:
        fake.add_user(ALICE, "Alice")
        zero = [ON_SHARD_0 + (2 << 22) * i for i in range(3)]
        one = [ON_SHARD_1 + (2 << 22) * i for i in range(4)]
        late = one.pop()
        for i, guild_id in enumerate([*zero, *one, late]):
            fake.add_guild(guild_id, [6001 + i], [ALICE])
        fake.outages.add(late)
        plan = ShardPlan((0, 1), 2)
        options = dataclasses.replace(config(tmp_path / "o.db"), shards=plan)
        bot = OrchardBot(options, guild_ready_timeout=0.05)
        arrivals: list[list[int]] = []

        async def arrived(guilds: list[discord.Guild]) -> None:
            arrivals.append(sorted(g.id for g in guilds))

        bot.add_listener(arrived, "on_servers_available")
        async with run_bot(bot, fake, timeout=15):  # shard 1 identifies 5 s after shard 0
            await until(lambda: len(arrivals) == 2)
            assert sorted(arrivals) == [zero, one]
            await fake.end_outage(late)
            await until(lambda: len(arrivals) == 3)
            assert arrivals[2] == [late]


async def until(done: Callable[[], bool]) -> None:
    """Wait (5 s at most) for ``done``: a listener sends Discord nothing to wake on."""
    deadline = time.monotonic() + 5
    while not done():
        assert time.monotonic() < deadline, "not done in 5 s"
        await asyncio.sleep(0.01)


async def test_each_process_s_health_reads_its_own_heartbeat(tmp_path: Path) -> None:
    """Processes beat under keys of their own: a live one's beat never hides a dead one's."""
    live, dead = ShardPlan((0,), 2), ShardPlan((1,), 2)
    assert heartbeat_key(live) == "gateway_heartbeat:0/2"
    assert heartbeat_key(ShardPlan()) == heartbeat_key(ShardPlan(None, 4)) == "gateway_heartbeat"
    store = await Store.open(tmp_path / "o.db")
    await store.set_meta(heartbeat_key(live), f"{time.time():.3f}")
    await store.set_meta(heartbeat_key(dead), f"{time.time() - 600:.3f}")
    await store.close()
    assert problem(tmp_path / "o.db", key=heartbeat_key(live))[0] is None
    wrong, _ = problem(tmp_path / "o.db", key=heartbeat_key(dead))
    assert wrong is not None and "600 s ago" in wrong
