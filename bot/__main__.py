"""``python -m bot`` / ``orchard``: run the bot, or ``orchard sync`` to force a command sync."""

from __future__ import annotations

import asyncio
import logging
import sys

import discord

from bot.app import OrchardBot
from bot.config import Config, ConfigError


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] not in ("sync", "run"):
        print("usage: orchard [run|sync]", file=sys.stderr)
        return 2
    try:
        config = Config.from_env()
    except ConfigError as err:
        print(err, file=sys.stderr)
        return 2
    configure_logging(config.log_level)
    bot = OrchardBot(config, force_sync=bool(args) and args[0] == "sync")
    try:
        return asyncio.run(serve(bot, config.token))
    except KeyboardInterrupt:
        return 0


def configure_logging(level: str) -> None:
    """Log at ``level``, except discord.py's HTTP layer: at DEBUG it echoes every request
    body, DMs with players' hidden tiles included, so it never goes below INFO."""
    logging.basicConfig(
        level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True
    )
    http = logging.getLogger("discord.http")
    http.setLevel(max(logging.INFO, logging.getLogger().getEffectiveLevel()))


REJECTED = (
    "Discord rejected the token in DISCORD_TOKEN: reset it in the Developer Portal and update .env."
)


async def serve(bot: OrchardBot, token: str) -> int:
    """Run until closed; a rejected token is one clear line and exit status 1."""
    try:
        async with bot:
            await bot.start(token)
    except discord.LoginFailure:
        print(REJECTED, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
