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
    logging.basicConfig(
        level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    bot = OrchardBot(config, force_sync=bool(args) and args[0] == "sync")
    try:
        asyncio.run(_run(bot, config.token))
    except discord.LoginFailure:
        print(
            "Discord rejected the token in DISCORD_TOKEN: reset it in the Developer Portal "
            "and update .env.",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        pass
    return 0


async def _run(bot: OrchardBot, token: str) -> None:
    async with bot:
        await bot.start(token)


if __name__ == "__main__":
    sys.exit(main())
