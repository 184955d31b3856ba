"""Resident memory and start-up time of the bot process with 10,000 open games.

    python bench/memory_startup.py [--games 10000] [--sample 50]

Open Cheerio games are written straight into the store; then the real bot runs as a
subprocess (``python -m tests.bot_process``) against an in-process fake Discord. Measured:
time from process start to connected, and until a click on a sample of games (the last one
included) has been answered; the process's VmRSS then, compared with an empty database.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.model import Player  # noqa: E402
from bot.orchard import Orchard  # noqa: E402
from bot.runner import no_display  # noqa: E402
from tests.bot_process import BotProcess as Bot  # noqa: E402
from tests.fakediscord import FakeDiscord  # noqa: E402

GUILD, CHANNEL, ALICE = 5001, 6001, 7001


async def fill(db: Path, games: int) -> list[int]:
    """``games`` solo Cheerio games in play (written without fsync: this is only set-up)."""
    orchard = await Orchard.open(db)
    await orchard.store.db.conn.execute("PRAGMA synchronous = OFF")
    ids = []
    for n in range(games):
        lobby = await orchard.runner.create(
            "cheerio",
            GUILD,
            CHANNEL,
            Player(0, ALICE, "Alice"),
            seed=n,
            options=None,
            variant="",
            deadline=None,
        )
        ids.append((await orchard.lobby.start(lobby.id, ALICE, no_display)).id)
    await orchard.close()
    return ids


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def board(fake: FakeDiscord, db: Path, game_id: int) -> int:
    """A game message with its Roll button in the fake, recorded as the game's message."""
    button = {"type": 2, "style": 1, "label": "Roll", "custom_id": f"orc:{game_id}:0:roll:"}
    body = {"content": "board", "components": [{"type": 1, "components": [button]}]}
    message_id = int(fake._create_message(CHANNEL, body, [])["id"])
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET message_id = ? WHERE id = ?", (message_id, game_id))
    return message_id


async def measure(db: Path, ids: list[int], sample: int) -> tuple[float, float, float]:
    """(seconds to connected, seconds to the last sampled click answered, RSS MiB)."""
    fake = FakeDiscord()
    await fake.start()
    fake.add_user(ALICE, "Alice")
    fake.add_guild(GUILD, [CHANNEL], [ALICE])
    chosen = sorted(random.Random(1).sample(ids, min(sample, len(ids)))) if ids else []
    if ids and ids[-1] not in chosen:
        chosen.append(ids[-1])
    boards = {game_id: board(fake, db, game_id) for game_id in chosen}
    bot = Bot(fake, db, db.with_suffix(".log"))
    try:
        began = time.monotonic()
        await bot.start()
        connected = time.monotonic() - began
        for game_id, message_id in boards.items():
            record = await fake.click(ALICE, message_id, f"orc:{game_id}:0:roll:")
            await record.wait(60)
            assert record.type == 7, record.describe()
        answered = time.monotonic() - began
        assert bot.proc is not None
        return connected, answered, rss_mib(bot.proc.pid)
    finally:
        await bot.stop()
        await fake.close()


async def run(games: int, sample: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.db"
        full = Path(tmp) / "full.db"
        await fill(empty, 0)
        began = time.monotonic()
        ids = await fill(full, games)
        print(f"{games} open games written in {time.monotonic() - began:.1f} s")
        size = sum(p.stat().st_size for p in Path(tmp).glob("full.db*"))
        print(f"database: {size / 2**20:.1f} MiB ({size / max(games, 1):.0f} bytes a game)")
        base = await measure(empty, [], 0)
        print(f"empty database: connected in {base[0]:.2f} s, RSS {base[2]:.1f} MiB")
        conn, last, rss = await measure(full, ids, sample)
        print(
            f"{games} open games: connected in {conn:.2f} s; {sample + 1} sampled games "
            f"(the last included) answered a click by {last:.2f} s after process start"
        )
        per_game = (rss - base[2]) * 1024 / max(games, 1)
        print(f"RSS {rss:.1f} MiB: {rss - base[2]:+.1f} MiB over empty, {per_game:.2f} KiB a game")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--sample", type=int, default=50)
    args = parser.parse_args()
    asyncio.run(run(args.games, args.sample))


if __name__ == "__main__":
    main()
