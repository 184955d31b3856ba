"""Moves per second through the whole bot: discord.py and the fake Discord over loopback.

    python bench/bot_throughput.py [--games 100]

The fake runs in the same process and event loop as the bot, so its own cost (HTTP server,
JSON, message bookkeeping) is counted in. Each game is a solo Cheerio game in its own
channel; every player presses, waits for the answer, and presses again, all at once.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.app import OrchardBot  # noqa: E402
from tests.botharness import config  # noqa: E402
from tests.fakediscord import FakeDiscord, components_of, run_bot  # noqa: E402

GUILD, FIRST_CHANNEL, FIRST_USER = 5001, 6001, 7001


async def open_game(fake: FakeDiscord, user: int, channel: int) -> int:
    opened = await (await fake.slash(user, GUILD, channel, "cheerio new")).wait(30)
    assert opened.original is not None
    board = int(opened.original["id"])
    started = await (await fake.click(user, board, fake.find_button(board, "Start"))).wait(30)
    assert started.type == 7
    return board


async def play(fake: FakeDiscord, user: int, board: int, latencies: list[float]) -> None:
    """Roll twice then score, until the game is over."""
    while True:
        parts = components_of(fake.message(board))
        roll = next((c for c in parts if ":roll:" in (c.custom_id or "") and not c.disabled), None)
        score = next((c for c in parts if c.is_select), None)
        began = time.perf_counter()
        if roll is not None:
            record = await fake.click(user, board, roll)
        elif score is not None:
            record = await fake.select(user, board, score, [score.options[0]])
        else:
            return
        await record.wait(30)
        latencies.append(time.perf_counter() - began)
        assert record.type == 7, record.describe()


async def run(games: int) -> None:
    logging.disable(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord.running() as fake:
            users = [FIRST_USER + i for i in range(games)]
            channels = [FIRST_CHANNEL + i for i in range(games)]
            for user in users:
                fake.add_user(user)
            fake.add_guild(GUILD, channels, users)
            bot = OrchardBot(config(Path(tmp) / "o.db"), guild_ready_timeout=0.05)
            async with run_bot(bot, fake):
                began = time.perf_counter()
                boards = await asyncio.gather(
                    *(open_game(fake, u, c) for u, c in zip(users, channels, strict=True))
                )
                opened = time.perf_counter() - began
                latencies: list[float] = []
                began = time.perf_counter()
                await asyncio.gather(
                    *(play(fake, u, b, latencies) for u, b in zip(users, boards, strict=True))
                )
                took = time.perf_counter() - began
                moves = len(latencies)
    latencies.sort()
    p99 = latencies[min(moves - 1, int(0.99 * moves))]
    print(f"{games} games opened and started at once in {opened:.2f} s")
    print(f"{moves} moves in {took:.2f} s: {moves / took:.0f} moves/s with {games} games at once")
    print(
        f"click to answer: median {statistics.median(latencies) * 1e3:.1f} ms, "
        f"p99 {p99 * 1e3:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    asyncio.run(run(args.games))


if __name__ == "__main__":
    main()
