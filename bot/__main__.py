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


OWN_LOGGERS = ("bot", "cogs", "db")


def configure_logging(level: str) -> None:
    """Orchard's own loggers at ``level``; every library at INFO or above. Below INFO the
    libraries echo what players' hidden tiles travel in: discord.py its request bodies and
    gateway events, aiosqlite every query's parameters (a stored game holds every hand)."""
    chosen = logging.getLevelName(level.upper())
    logging.basicConfig(
        level=max(logging.INFO, chosen),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        force=True,
    )
    for name in OWN_LOGGERS:
        logging.getLogger(name).setLevel(chosen)


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
