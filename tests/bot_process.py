"""``python -m tests.bot_process PORT DB``: the real bot, in its own process, on a fake Discord.

It points discord.py at the fake on 127.0.0.1:PORT exactly as ``FakeDiscord.install`` does,
then runs ``bot.__main__.serve`` unchanged, so the kill test can SIGKILL a real process.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

import discord.gateway
import discord.http
import yarl

from bot.__main__ import serve
from bot.app import OrchardBot
from tests.botharness import config


def point_at(port: int) -> None:
    """Send discord.py's REST calls and gateway connection to the fake on ``port``."""
    discord.http.Route.BASE = f"http://127.0.0.1:{port}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{port}/gw/")


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[0].isdigit():
        print("usage: python -m tests.bot_process PORT DB", file=sys.stderr)
        return 2
    point_at(int(argv[0]))
    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    bot = OrchardBot(config(Path(argv[1])), guild_ready_timeout=0.05)
    return asyncio.run(serve(bot, "fake-token"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
