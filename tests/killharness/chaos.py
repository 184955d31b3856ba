"""The whole kill experiment: players at work, the bot SIGKILLed and restarted, then checks."""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from db.store import Store
from tests.bot_process import BotProcess
from tests.fakediscord import FakeDiscord
from tests.killharness.drivers import GUILD, STRANGER, Driver, Player
from tests.killharness.report import Report
from tests.killharness.tables import Table, WordTable
from tests.killharness.verify import verify

FIRST_CHANNEL, FIRST_USER = 6001, 7001


async def chaos(
    kills: int = 20,
    games: int = 8,
    seed: int = 1,
    folder: Path | None = None,
    say: Callable[[str], None] | None = None,
    tables: int = 2,
    words: int = 1,
) -> Report:
    """Run the whole experiment; returns the figures (asserting is left to the caller).

    ``games`` solo Cheerio players, ``tables`` two-player Hot Score tables and ``words``
    two-player Appletters tables, each in its own channel, play at once. ``say`` hears the
    progress, and the end of the bot's log when something was lost (silent without it).
    """
    rng = random.Random(seed)
    report = Report()
    with tempfile.TemporaryDirectory() as tmp:
        where = folder or Path(tmp)
        fake = FakeDiscord()
        await fake.start()
        seats = [[FIRST_USER + i] for i in range(games)]
        pairs = [FIRST_USER + games + 2 * i for i in range(tables + words)]
        seats += [[first, first + 1] for first in pairs]
        channels = [FIRST_CHANNEL + i for i in range(len(seats))]
        users = [user for group in seats for user in group] + [STRANGER]
        for user in users:
            fake.add_user(user, f"player{user}")
        fake.add_guild(GUILD, channels, users)
        bot = BotProcess(fake, where / "orchard.db", where / "bot.log")
        store: Store | None = None
        try:
            report.restart_seconds.append(await bot.start())
            store = await Store.open(bot.db)  # after the bot's first start: migrated by it
            stop = asyncio.Event()
            drivers: list[Driver] = [
                Player(fake, report, group, channel)
                if n < games
                else Table(fake, report, group, channel)
                if n < games + tables
                else WordTable(fake, report, group, channel, store)
                for n, (group, channel) in enumerate(zip(seats, channels, strict=True))
            ]
            tasks = [asyncio.create_task(d.run(stop)) for d in drivers]
            for n in range(kills):
                if rng.random() < 0.25:  # during start-up (migrations, sync, connect)
                    await asyncio.sleep(rng.uniform(0.0, 0.6))
                else:
                    await asyncio.sleep(rng.uniform(0.1, 1.5))
                await bot.kill()
                report.kills += 1
                if say is not None:
                    say(f"kill {n + 1}: {len(report.acked)} moves acknowledged so far")
                before = len(fake.identifies)
                began = time.monotonic()
                await bot.start(wait=False)
                if n + 1 < kills and rng.random() < 0.25:
                    continue  # the next kill may land before this start finished
                await bot.ready(before)
                report.restart_seconds.append(time.monotonic() - began)
            if not fake.connected(0):
                await bot.ready(len(fake.identifies) - 1)
            await asyncio.sleep(1.0)
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            await verify(bot, store, report, drivers)
        finally:
            await bot.stop()
            if store is not None:
                await store.close()
            await fake.close()
            if folder is None and (report.lost or report.dead or report.leaks) and say:
                say((where / "bot.log").read_text()[-4000:])
    return report
