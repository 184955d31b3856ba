"""The floor: the least any Discord game bot does for a click, to measure Orchard against.

    python bench/floor_bot.py PORT DB     (the benches start it as a BotProcess on their fake)

A plain discord.py client, nothing of Orchard imported. ``/floor`` posts a message with one
button; each press of it writes one row with aiosqlite (WAL, synchronous=FULL, the INSERT
committed on its own: one trip to aiosqlite's thread, one fsync'd transaction) and then
answers by editing the message (callback type 7) to a new count and a new button. A game bot
must at least read a click, commit it durably and redraw the message, so it cannot beat this.

It is given what Orchard gives itself and any bot could: the collector's settings (what
start-up made frozen, thresholds 3,000/10/10), and no view kept in discord.py's store for
clicks it handles itself (a view stored per answer, its button's id changing with the count,
grew the heap by one view a click, and with it the length of every full collection).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import time
from pathlib import Path
from typing import Any

import aiosqlite
import discord
import discord.gateway
import discord.http
import yarl

BUTTON = "floor:"
GC_THRESHOLDS = (3_000, 10, 10)  # as Orchard's (bot.app), which the floor does not import


def board(count: int) -> tuple[str, discord.ui.View]:
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label="Press", custom_id=f"{BUTTON}{count}"))
    view.stop()  # its clicks are handled in on_interaction: discord.py need not keep it
    return f"{count} presses", view


class FloorBot(discord.Client):
    def __init__(self, db_path: Path) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(intents=intents, guild_ready_timeout=0.05)
        self.db_path = db_path
        self.db: aiosqlite.Connection | None = None

    async def setup_hook(self) -> None:
        self.db = await aiosqlite.connect(str(self.db_path), isolation_level=None)
        await self.db.execute("PRAGMA journal_mode = WAL")
        await self.db.execute("PRAGMA synchronous = FULL")
        await self.db.execute(
            "CREATE TABLE IF NOT EXISTS moves (id INTEGER PRIMARY KEY, board INTEGER NOT NULL,"
            " user_id INTEGER NOT NULL, seq INTEGER NOT NULL, created_at REAL NOT NULL)"
        )
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.type is discord.InteractionType.application_command:
            content, view = board(0)
            await interaction.response.send_message(content, view=view)
            return
        data: dict[str, Any] = dict(interaction.data or {})
        custom = str(data.get("custom_id", ""))
        if interaction.type is not discord.InteractionType.component or interaction.message is None:
            return
        if not custom.startswith(BUTTON) or self.db is None:
            return
        count = int(custom.removeprefix(BUTTON)) + 1
        await self.db.execute(
            "INSERT INTO moves (board, user_id, seq, created_at) VALUES (?, ?, ?, ?)",
            (interaction.message.id, interaction.user.id, count, time.time()),
        )
        content, view = board(count)
        await interaction.response.edit_message(content=content, view=view)

    async def close(self) -> None:
        if self.db is not None:
            await self.db.close()
        await super().close()


def point_at(port: int) -> None:
    """As ``tests/bot_process.py`` does, without importing Orchard into the floor's process."""
    discord.http.Route.BASE = f"http://127.0.0.1:{port}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{port}/gw/")


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[0].isdigit():
        print("usage: python bench/floor_bot.py PORT DB", file=sys.stderr)
        return 2
    point_at(int(argv[0]))
    logging.basicConfig(level=logging.WARNING)
    bot = FloorBot(Path(argv[1]))
    asyncio.run(bot.start("fake-token"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
