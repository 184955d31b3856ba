"""The floor: the least any Discord game bot does for a click, to measure Orchard against.

    python bench/floor_bot.py [--game] PORT DB   (the benches start it as a BotProcess)

A plain discord.py client, nothing of Orchard imported. ``/floor`` posts a message with one
button; each press of it writes one row with aiosqlite (WAL, synchronous=FULL, the INSERT
committed on its own: one trip to aiosqlite's thread, one fsync'd transaction) and then
answers by editing the message (callback type 7) to a new count and a new button. A game bot
must at least read a click, commit it durably and redraw the message, so it cannot beat this.

It is given what Orchard gives itself and any bot could: the collector's settings (what
start-up made frozen, thresholds 3,000/10/10), and no view kept in discord.py's store for
clicks it handles itself (a view stored per answer, its button's id changing with the count,
grew the heap by one view a click, and with it the length of every full collection).

``--game``: the least a bot that plays a dice game does, which the issue's floor leaves out.
Each press redraws a board of a solo Cheerio board's size and shape (a container of texts,
five dice buttons, a roll button and a select of categories: an answer of about 1.7 KB of
JSON against Orchard's 1.85 KB, written as Discord's JSON directly, as Orchard does) and
writes a game's row and its move in one transaction (the row's state, version and deadline,
its deadline indexed; the move keyed by game and number), on a thread of its own in one
trip. It spares itself the board's parsing both ways, as Orchard does and any bot could: a
click's message is read without its components, and the answer is sent without asking for
the message back. No rules, no lock, no pings, no deadlines fired: what is left of Orchard's
extra is what its features and its machinery cost.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import sqlite3
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import aiosqlite
import discord
import discord.gateway
import discord.http
import yarl
from discord.webhook.async_ import async_context, interaction_message_response_params

BUTTON = "floor:"
GC_THRESHOLDS = (3_000, 10, 10)  # as Orchard's (bot.app), which the floor does not import


def board(count: int) -> tuple[str, discord.ui.View]:
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label="Press", custom_id=f"{BUTTON}{count}"))
    view.stop()  # its clicks are handled in on_interaction: discord.py need not keep it
    return f"{count} presses", view


DEADLINE = 300.0  # seconds: a turn's deadline, written with every move as a game's must be
GAME_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS games (id INTEGER PRIMARY KEY, state TEXT NOT NULL,"
    " version INTEGER NOT NULL, deadline REAL, updated_at REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS games_deadline ON games (deadline) WHERE deadline IS NOT NULL",
    "CREATE TABLE IF NOT EXISTS moves (game_id INTEGER NOT NULL, seq INTEGER NOT NULL,"
    " user_id INTEGER NOT NULL, verb TEXT NOT NULL, arg TEXT NOT NULL,"
    " created_at REAL NOT NULL, PRIMARY KEY (game_id, seq))",
)
CATEGORIES = ("Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "Cheerio")


class Board(discord.ui.LayoutView):
    """A Components V2 message given as Discord's JSON (discord.py only carries it). As
    Orchard's ``bot.components.Drawn``, which the floor does not import: its CPU is its own."""

    def __init__(self, components: list[dict[str, Any]]) -> None:
        super().__init__(timeout=None)
        self._components = components

    def to_components(self) -> list[dict[str, Any]]:
        return self._components

    def has_components_v2(self) -> bool:
        return True


def dice_of(count: int) -> list[int]:
    """Five dice that change with every press, the same on the board and in the state."""
    return [(count * 7 + k * 3) % 6 + 1 for k in range(5)]


def game_board(count: int) -> Board:
    """A solo Cheerio board's size and shape, its dice and scores changing with ``count``."""
    dice = dice_of(count)
    scores = "  ".join(str((count + k) % 19) for k in range(6))
    buttons = [
        {
            "type": 2,
            "style": 2,
            "disabled": False,
            "label": f"Keep {d}",
            "custom_id": f"{BUTTON}{count}:{k}",
        }
        for k, d in enumerate(dice)
    ]
    options = [
        {
            "label": f"Score {dice.count(k + 1) * (k + 1)} points in {name}",
            "value": name.lower(),
            "default": False,
        }
        for k, name in enumerate(CATEGORIES[3:], 3)
    ]
    parts: list[dict[str, Any]] = [
        {
            "type": 10,
            "content": f"### Cheerio\n**Player 1's turn**\nPlayer 1 pressed {count} times.",
        },
        {"type": 14, "divider": True, "spacing": 1},
        {
            "type": 10,
            "content": f"```\n          1  2  3  4  5  6 Ch Sum\nPlayer 1  {scores}   {count}\n```",
        },
        {"type": 10, "content": f"**Player 1's dice** \u00b7 {count % 3} rolls left"},
        {"type": 14, "divider": False, "spacing": 1},
        {"type": 1, "components": buttons},
        {
            "type": 1,
            "components": [
                {
                    "type": 2,
                    "style": 1,
                    "disabled": False,
                    "label": "Roll 5 dice",
                    "custom_id": f"floor-roll:{count}",
                }
            ],
        },
        {
            "type": 1,
            "components": [
                {
                    "type": 3,
                    "custom_id": f"floor-score:{count}",
                    "min_values": 1,
                    "max_values": 1,
                    "disabled": False,
                    "required": True,
                    "placeholder": "Score these dice in\u2026",
                    "options": options,
                }
            ],
        },
        {"type": 10, "content": f"-# Cheerio \u00b7 game {count}"},
    ]
    return Board([{"type": 17, "accent_color": 16361509, "spoiler": False, "components": parts}])


def game_state(count: int, user_id: int) -> str:
    """A game's state as JSON, of a solo Cheerio state's size (about 220 bytes)."""
    dice = dice_of(count)
    card = {name.lower(): (count + k) % 19 for k, name in enumerate(CATEGORIES)}
    return json.dumps(
        {
            "seed": 42,
            "player": user_id,
            "turn": count // 3,
            "rolls": count % 3,
            "dice": dice,
            "held": [k % 2 == 0 for k in range(5)],
            "card": card,
        }
    )


def write_move(
    conn: sqlite3.Connection, game: int, count: int, user_id: int, state: str, now: float
) -> None:
    """(On the writer's thread.) The game's row and its move, in one transaction."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "INSERT INTO games (id, state, version, deadline, updated_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (id) DO UPDATE SET state = excluded.state, version = excluded.version,"
            " deadline = excluded.deadline, updated_at = excluded.updated_at",
            (game, state, count, now + DEADLINE, now),
        )
        conn.execute(
            "INSERT INTO moves (game_id, seq, user_id, verb, arg, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (game, count, user_id, "hold", str(count % 5), now),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def open_writer(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    for pragma in ("PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL", *GAME_SCHEMA):
        conn.execute(pragma)
    return conn


class FloorBot(discord.Client):
    def __init__(self, db_path: Path, game: bool = False) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(intents=intents, guild_ready_timeout=0.05)
        self.db_path = db_path
        self.game = game
        self.db: aiosqlite.Connection | None = None
        self.writer: sqlite3.Connection | None = None  # --game: on its own thread
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="floor-writer")
        if game:  # a click's message is parsed without its board, which nothing here reads
            parse = self._connection.parsers["INTERACTION_CREATE"]

            def parse_click(data: dict[str, Any]) -> None:
                message = data.get("message")
                if isinstance(message, dict):
                    message["components"] = []
                parse(data)

            self._connection.parsers["INTERACTION_CREATE"] = parse_click

    async def setup_hook(self) -> None:
        if self.game:
            loop = asyncio.get_running_loop()
            self.writer = await loop.run_in_executor(self.thread, open_writer, self.db_path)
        else:
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
            if self.game:
                await interaction.response.send_message(view=game_board(0))
                return
            content, view = board(0)
            await interaction.response.send_message(content, view=view)
            return
        data: dict[str, Any] = dict(interaction.data or {})
        custom = str(data.get("custom_id", ""))
        if interaction.type is not discord.InteractionType.component or interaction.message is None:
            return
        if not custom.startswith(BUTTON):
            return
        count = int(custom.removeprefix(BUTTON).split(":")[0]) + 1
        if self.game:
            await self.played(interaction, interaction.message.id, count)
            return
        if self.db is None:
            return
        await self.db.execute(
            "INSERT INTO moves (board, user_id, seq, created_at) VALUES (?, ?, ?, ?)",
            (interaction.message.id, interaction.user.id, count, time.time()),
        )
        content, view = board(count)
        await interaction.response.edit_message(content=content, view=view)

    async def played(self, interaction: discord.Interaction[Any], game: int, count: int) -> None:
        """``--game``: the row and the move committed, then the board redrawn."""
        if self.writer is None:
            return
        state = game_state(count, interaction.user.id)
        await asyncio.get_running_loop().run_in_executor(
            self.thread,
            write_move,
            self.writer,
            game,
            count,
            interaction.user.id,
            state,
            time.time(),
        )
        await answer_without_message(interaction, game_board(count))

    async def close(self) -> None:
        if self.db is not None:
            await self.db.close()
        if self.writer is not None:
            await asyncio.get_running_loop().run_in_executor(self.thread, self.writer.close)
        self.thread.shutdown(wait=True)
        await super().close()


async def answer_without_message(interaction: discord.Interaction[Any], view: Board) -> None:
    """``interaction.response.edit_message(view=view)``, without asking for the edited message
    back (discord.py asks, and parses it): Discord answers 204. As Orchard's answer to a click
    (``bot.answers``), written apart so that the floor runs nothing of Orchard's."""
    kind = discord.InteractionResponseType.message_update
    params = interaction_message_response_params(type=kind.value, view=view)
    route = discord.http.Route(
        "POST",
        "/interactions/{webhook_id}/{webhook_token}/callback",
        webhook_id=interaction.id,
        webhook_token=interaction.token,
    )
    http = interaction.client.http
    await async_context.get().request(
        route,
        session=interaction._session,
        proxy=http.proxy,
        proxy_auth=http.proxy_auth,
        payload=params.payload,
    )
    interaction.response._response_type = kind


def point_at(port: int) -> None:
    """As ``tests/bot_process.py`` does, without importing Orchard into the floor's process."""
    discord.http.Route.BASE = f"http://127.0.0.1:{port}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{port}/gw/")


def main(argv: list[str]) -> int:
    game = argv[:1] == ["--game"]
    argv = argv[1:] if game else argv
    if len(argv) != 2 or not argv[0].isdigit():
        print("usage: python bench/floor_bot.py [--game] PORT DB", file=sys.stderr)
        return 2
    point_at(int(argv[0]))
    logging.basicConfig(level=logging.WARNING)
    bot = FloorBot(Path(argv[1]), game)
    asyncio.run(bot.start("fake-token"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
