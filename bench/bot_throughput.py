"""How many moves a second the bot process can take: every player clicks again at once.

    python bench/bot_throughput.py [--games 100] [--seconds 20] [--runs 3]

The bot runs alone in its process (``python -m tests.bot_process``); the fake Discord and the
players run in this one, so the bot's CPU is its own (read from /proc) and the fake's and
driver's share is printed beside it. Each game is a solo Cheerio game in its own channel,
opened through Discord; each player clicks as soon as the last click is answered (no think
time), so the bot is saturated: this is its capacity, not what people see at a game night
(``bench/game_night.py`` is that). Moves are counted in the database (players' and Orchard's).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.loadkit import (  # noqa: E402
    SETTLED,
    Latencies,
    Window,
    add_run_options,
    count,
    machine,
    measure,
    ms,
    no_collection,
    quiet,
    summarise,
)
from bench.players import Night, Table, latencies, open_table, set_up  # noqa: E402
from tests.bot_process import BotProcess  # noqa: E402
from tests.fakediscord import FakeDiscord  # noqa: E402

GUILD, CHANNEL, USER = 5_001, 600_001, 700_001


async def once(folder: Path, games: int, seconds: float, n: int) -> tuple[Window, Latencies]:
    fake = FakeDiscord()
    await fake.start()
    tables = [Table("cheerio", GUILD, CHANNEL + i, (USER + i,)) for i in range(games)]
    for table in tables:
        fake.add_user(table.host, f"player{table.host}")
    fake.add_guild(GUILD, [t.channel for t in tables], [t.host for t in tables])
    db = folder / f"throughput-{n}.db"
    bot = BotProcess(fake, db, folder / f"throughput-{n}.log")
    people = Night(fake, tables, think=(0.0, 0.0))
    try:
        await bot.start()
        began = time.monotonic()
        await set_up(fake, tables, open_table)
        people.start()
        await asyncio.sleep(max(5.0, began + SETTLED - time.monotonic()))
        assert bot.proc is not None
        with no_collection():  # this process's own pauses are not the bot's
            window = await measure([bot.proc.pid], db, seconds)
            await people.pause()
    finally:
        await people.finish()
        await bot.stop()
        await fake.close()
    return window, latencies(people.log, [(window.began, window.ended)])


async def run(args: argparse.Namespace) -> None:
    print(machine())
    print(f"{args.games} solo Cheerio games, every player clicking again as soon as answered")
    results: list[tuple[Window, Latencies]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for n in range(args.runs):
            if args.quiet:
                print(await quiet(args.quiet / 100, args.quiet_wait))
            window, clicks = await once(folder, args.games, args.seconds, n)
            results.append((window, clicks))
            print(f"run {n + 1}: {window.text()}")
            print(f"  {window.usage.shares()}")
            print(f"  click to answer: {clicks.text()}")
    summarise(
        len(results),
        [
            ("moves a second", [w.per_second for w, _ in results], count),
            ("bot CPU a move", [w.cpu_per_move for w, _ in results], ms),
            ("click p99", [c.p99 for _, c in results], ms),
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0)
    add_run_options(parser)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
