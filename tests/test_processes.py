"""Several real bot processes, each with its own shards, on one PostgreSQL database and one
fake Discord: they start together, share the games, and one of them is SIGKILLed.

Each bot is ``tests.bot_process`` in a process of its own (:class:`BotProcess`); the fake runs
in this test's event loop, routing each server's events to the shard ``(guild_id >> 22) %
shard_count``, pacing IDENTIFYs per ``max_concurrency`` bucket as Discord does (op 9 if too
soon), and recording every request.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.model import MoveSource, Player
from bot.orchard import Orchard
from bot.runner import Runner, no_display
from bot.settings import Settings
from bot.shards import ShardPlan
from bot.specs import ENGINES
from db.store import Store
from tests.bot_process import BotProcess
from tests.botharness import unpaced
from tests.databases import fresh_schema
from tests.fakediscord import FakeDiscord
from tests.killharness import Report
from tests.killharness.controls import controls, is_move, named
from tests.killharness.drivers import Driver
from tests.killharness.drivers import Player as SoloPlayer
from tests.support import until

pytestmark = pytest.mark.postgres

ON_SHARD_0, ON_SHARD_1 = 5001, (1 << 22) + 5001  # (guild_id >> 22) % 2 is 0, 1
MIGRATIONS = sorted(
    int(path.name.split("_")[0])
    for path in (Path(__file__).parent.parent / "db" / "migrations" / "postgres").glob("*.sql")
)


@pytest.fixture
async def url() -> AsyncIterator[str]:
    async with fresh_schema() as fresh:
        yield fresh


@asynccontextmanager
async def discord(shard_count: int, max_concurrency: int) -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord(shard_count=shard_count)
    fake.max_concurrency = max_concurrency
    fake.identify_interval = 5.0  # Discord's: one IDENTIFY per bucket per 5 s
    await fake.start()
    try:
        yield fake
    finally:
        await fake.close()


def processes(fake: FakeDiscord, url: str, tmp_path: Path, count: int) -> list[BotProcess]:
    """One process per shard, each logging to its own file."""
    return [
        BotProcess(fake, url, tmp_path / f"bot{n}.log", shards=ShardPlan((n,), count))
        for n in range(count)
    ]


@asynccontextmanager
async def running(bots: list[BotProcess]) -> AsyncIterator[list[BotProcess]]:
    """Start every bot at once, wait for all to be connected; stop them after."""
    try:
        await asyncio.gather(*(bot.start(wait=False) for bot in bots))
        await asyncio.gather(*(bot.ready(0) for bot in bots))
        yield bots
    finally:
        await asyncio.gather(*(bot.stop() for bot in bots))


def logged_errors(bots: list[BotProcess]) -> list[str]:
    return [
        line
        for bot in bots
        for line in bot.log.read_text().splitlines()
        if " ERROR " in line or "Traceback" in line
    ]


async def test_three_processes_starting_together_migrate_once_and_one_syncs(
    url: str, tmp_path: Path
) -> None:
    """On an empty database: the schema is migrated once (under the migration lock), the
    leader alone syncs the slash commands, and the IDENTIFYs follow Discord's buckets (shards
    0 and 2 share bucket 0 of max_concurrency 2: 5 s apart; shard 1 needs no wait)."""
    async with discord(shard_count=3, max_concurrency=2) as fake:
        fake.add_guild(ON_SHARD_0, [6001], [])
        async with running(processes(fake, url, tmp_path, 3)) as bots:
            store = await Store.open(url)
            try:
                versions = await store.db.fetchall("SELECT version FROM schema_migrations")
            finally:
                await store.close()
            assert sorted(v for (v,) in versions) == MIGRATIONS, "each applied once"
            syncs = fake.requests_matching("PUT", r"/applications/\d+/commands")
            assert len(syncs) == 1, "one process, the leader, synced the commands"
            assert fake.identifies_refused == [], "no IDENTIFY came too soon in its bucket"
            assert sorted(i["shard"][0] for i in fake.identifies) == [0, 1, 2]
            assert logged_errors(bots) == []


class OrchardTable(Driver):
    """One person playing Hot Score against Orchard, game after game."""

    kind = "hotscore"
    options = {"opponent": "orchard", "level": "easy"}  # noqa: RUF012

    async def run(self, stop: asyncio.Event) -> None:
        await self.loop(self.host, stop)

    async def step(self, user: int) -> None:
        if self.board is None or self.board not in self.fake.messages:
            self.board = await self.recover()
            return
        message = self.fake.messages[self.board]
        moves = [c for c in controls(message) if is_move(c)]
        if not moves:
            self.board = None  # over: the next game
        elif user in named(self.fake, message):
            await self.move(user, self.rng.choice(moves), None)
        else:
            await asyncio.sleep(0.05)


def players(fake: FakeDiscord, report: Report, guild: int, first: int) -> list[Driver]:
    """Two solo Cheerio players and one player against Orchard, in ``guild``."""
    users = [first, first + 1, first + 2]
    channels = [first + 100, first + 101, first + 102]
    for user in users:
        fake.add_user(user, f"player{user}")
    fake.add_guild(guild, channels, users)
    drivers: list[Driver] = [
        SoloPlayer(fake, report, [users[0]], channels[0]),
        SoloPlayer(fake, report, [users[1]], channels[1]),
        OrchardTable(fake, report, [users[2]], channels[2]),
    ]
    for driver in drivers:
        driver.guild = guild
    return drivers


async def lost(store: Store, report: Report) -> list[Any]:
    """Acknowledged moves missing from their game's log (after their version, by their player)."""
    missing = []
    for ack in report.acked:
        later = (await store.moves(ack.game_id))[ack.version :]
        move = next((m for m in later if m.user_id == ack.user_id), None)
        if move is None or (move.verb, move.arg) != (ack.kind, ack.arg):
            missing.append(ack)
    return missing


async def test_two_processes_play_on_when_one_is_killed(url: str, tmp_path: Path) -> None:
    """Shard 0's and shard 1's processes play games in servers of both. Shard 0's process is
    SIGKILLed just after a move against Orchard there: shard 1's process plays Orchard's reply
    (any process takes any game), and its own server plays on. Shard 0's comes back; nothing
    acknowledged is lost, and every game's state equals the replay of its log."""
    async with discord(shard_count=2, max_concurrency=2) as fake:
        report = Report()
        drivers = players(fake, report, ON_SHARD_0, 7001) + players(fake, report, ON_SHARD_1, 7101)
        async with running(processes(fake, url, tmp_path, 2)) as (zero, one):
            stop = asyncio.Event()
            tasks = [asyncio.create_task(d.run(stop)) for d in drivers]
            store = await Store.open(url)
            try:
                await asyncio.sleep(2.0)
                game = await until_value(lambda: awaiting_orchard(store, ON_SHARD_0), 15)
                await zero.kill()  # Orchard's move there is pending (its 1 s pause)
                acked_before = len(report.acked)
                (pending,) = await store.db.fetchall(
                    "SELECT version FROM games WHERE id = ? AND orchard_since IS NOT NULL", (game,)
                )

                async def orchard_played() -> bool:
                    later = (await store.moves(game))[pending[0] :]
                    return any(m.source is MoveSource.BOT for m in later)

                async def shard_1_played_on() -> bool:
                    return any(a.user_id > 7100 for a in report.acked[acked_before:])

                await until(orchard_played, 15)  # by shard 1's process: shard 0's is dead
                await until(shard_1_played_on, 15)  # its own server too, shard 0 still down
                await zero.start()
                await asyncio.sleep(2.0)
                stop.set()
                await asyncio.gather(*tasks, return_exceptions=True)
                await one.stop()
                await zero.stop()
                assert await lost(store, report) == []
                await check_replays(store, {a.game_id for a in report.acked})
                servers = {ON_SHARD_0 if a.user_id < 7100 else ON_SHARD_1 for a in report.acked}
                assert servers == {ON_SHARD_0, ON_SHARD_1}, "moves were made in both servers"
            finally:
                await store.close()
        assert logged_errors([one]) == []
        assert fake.identifies_refused == [], "the restarted shard waited for its turn"


async def check_replays(store: Store, game_ids: set[int]) -> None:
    runner = Runner(store, ENGINES, Settings(store))
    for game_id in sorted(game_ids):
        assert await runner.replay(game_id) == (await runner.load(game_id)).state, game_id


async def awaiting_orchard(store: Store, guild: int) -> int | None:
    """A game in ``guild`` whose Orchard seat's move is pending, if any."""
    rows = await store.db.fetchall(
        "SELECT id FROM games WHERE guild_id = ? AND orchard_since IS NOT NULL", (guild,)
    )
    return int(rows[0][0]) if rows else None


async def until_value(produce: Any, timeout: float) -> Any:
    async def poll() -> Any:
        while (value := await produce()) is None:
            await asyncio.sleep(0.02)
        return value

    return await asyncio.wait_for(poll(), timeout)


DEADLINES = 2000


async def games_in_play(url: str, guild: int, count: int) -> list[int]:
    """``count`` solo Cheerio games in play in ``guild``, one a channel, started an hour ago
    and not due for a day (the test makes them due): one made by Orchard, the rest copied
    from it in SQL (fast, and the same)."""
    hour_ago = time.time() - 3600
    o = await Orchard.open(url, clock=lambda: hour_ago)
    try:
        host = Player(0, 7001, "player7001")
        lobby = await o.runner.create(
            "cheerio", guild, 1, host, seed=1, options=None, variant="", deadline=None
        )
        first = await o.lobby.start(lobby.id, host.user_id, no_display)
        await o.store.set_guild_settings(guild, {"turn_pings": "off"})
        async with o.store.db.transaction() as tx:
            await tx.execute(
                "INSERT INTO games (kind, variant, guild_id, channel_id, host_id, status, seed,"
                " options, state, version, deadline, created_at, updated_at, hinted)"
                " SELECT kind, variant, guild_id, channel_id + n, host_id, status, seed + n,"
                " options, state, version, deadline, created_at, updated_at, hinted"
                " FROM games, generate_series(1, ?) AS n WHERE id = ?",
                (count - 1, first.id),
            )
            await tx.execute(
                "INSERT INTO game_players (game_id, seat, user_id, name, is_bot, timeouts, level)"
                " SELECT g.id, p.seat, p.user_id, p.name, p.is_bot, p.timeouts, p.level"
                " FROM games g JOIN game_players p ON p.game_id = ? WHERE g.id <> ?",
                (first.id, first.id),
            )
        async with o.store.db.transaction() as tx:
            await tx.execute("UPDATE games SET deadline = ?", (time.time() + 86400,))
        rows = await o.store.db.fetchall("SELECT id FROM games ORDER BY id")
        return [int(r[0]) for r in rows]
    finally:
        await o.close()


async def test_deadlines_over_two_processes_fire_once_when_one_is_killed(
    url: str, tmp_path: Path
) -> None:
    """2,000 games come due at once while two processes run (not while they were down: then
    each turn would start afresh): they share the firing, one is SIGKILLed mid-way (its
    claims in flight roll back and return), and every game's timeout was played exactly
    once: one timeout move each, never two, none left due."""
    games = await games_in_play(url, ON_SHARD_0, DEADLINES)
    async with discord(shard_count=2, max_concurrency=2) as fake:
        unpaced(fake)
        fake.global_limit = (100_000, 1.0)  # 4,000 messages; Discord's 50/s would take 80 s
        fake.add_user(7001, "player7001")
        fake.add_guild(ON_SHARD_0, list(range(1, DEADLINES + 1)), [7001])
        store = await Store.open(url)
        try:
            async with running(processes(fake, url, tmp_path, 2)) as (zero, _):
                async with store.db.transaction() as tx:  # come due
                    await tx.execute("UPDATE games SET deadline = ?", (time.time(),))

                async def fired(at_least: int) -> Any:
                    async def check() -> bool:
                        rows = await store.db.fetchall(
                            "SELECT COUNT(*) FROM games WHERE version > 0"
                        )
                        return int(rows[0][0]) >= at_least

                    return check

                await until(await fired(DEADLINES // 4), 30)
                await zero.kill()
                await until(await fired(DEADLINES), 60)
            counts = await store.db.fetchall(
                "SELECT game_id, COUNT(*), MIN(source) FROM moves GROUP BY game_id"
            )
            assert len(counts) == len(games)
            assert {(int(n), str(source)) for _, n, source in counts} == {(1, "timeout")}
            overdue = await store.db.fetchall(
                "SELECT COUNT(*) FROM games WHERE deadline <= ?", (time.time(),)
            )
            assert overdue[0][0] == 0
        finally:
            await store.close()
