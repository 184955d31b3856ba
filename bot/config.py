"""Settings read from the environment (and a ``.env`` file), validated once at start-up."""

from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from dotenv import load_dotenv

from bot.shards import ShardError, ShardPlan, parse_plan, single_process_refusal
from db.connection import Target, is_url, looks_like_url, redacted
from db.migrate import NewerSchema

log = logging.getLogger(__name__)

DEFAULT_DB = Path("data") / "orchard.db"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

# Every setting Orchard reads, for ``orchard --help``: add a line here when you read a new one.
SETTINGS = (
    ("DISCORD_TOKEN", "required: the bot's token (Developer Portal > your application > Bot)"),
    (
        "ORCHARD_DB",
        f"the SQLite database file (default {DEFAULT_DB}; in Docker /data/orchard.db), or a "
        "PostgreSQL server's postgresql://user:password@host:port/database URL (needs the "
        "postgres extra: pip install -e '.[postgres]' in Orchard's folder)",
    ),
    ("LOG_LEVEL", f"{', '.join(LOG_LEVELS)} (default INFO); libraries never log below INFO"),
    (
        "DEV_GUILD_ID",
        "a server id: the slash commands are copied into that one server, where they appear at "
        "once, and not sent to every server; `orchard clear-guild` removes the copy",
    ),
    (
        "ORCHARD_SHARD_COUNT",
        "how many gateway shards all of Orchard's processes run together (the same in each); "
        "unset, Discord's advice, all in this process",
    ),
    (
        "ORCHARD_SHARDS",
        "the shards this process runs, e.g. 0-7 or 0,2,4-5 (needs ORCHARD_SHARD_COUNT); "
        "running some shards in other processes needs a postgresql:// ORCHARD_DB",
    ),
    (
        "ORCHARD_CACHE",
        "a folder for Orchard's dice tables, used only when the tables shipped with it do not "
        "fit the rules in force (a few seconds to build, then kept); default a cache folder "
        "beside the SQLite file ORCHARD_DB names, if it names one, else "
        "$XDG_CACHE_HOME/orchard (~/.cache/orchard)",
    ),
)

NO_TOKEN_HELP = """\
Orchard needs a Discord bot token, and none was found (set DISCORD_TOKEN in .env).

To get one: open the Discord Developer Portal (discord.com/developers/applications), create
an application, open its "Bot" page and press "Reset Token"; copy the token into .env as
DISCORD_TOKEN=... (see .env.example). To invite the bot, open "OAuth2" > "URL Generator",
tick the scopes "bot" and "applications.commands" and the permissions "View Channels",
"Send Messages", "Send Messages in Threads", "Embed Links", "Attach Files" and "Read Message
History", then open the generated URL and pick your server. Set DEV_GUILD_ID to that server's
id to see slash commands at once.
"""

QUOTED_TOKEN = (
    "DISCORD_TOKEN is wrapped in quotes, which `docker run --env-file` keeps as part of the "
    'value: write DISCORD_TOKEN=abc, not DISCORD_TOKEN="abc".'
)


NO_ASYNCPG = (
    "ORCHARD_DB is a PostgreSQL URL, which needs the postgres extra: "
    "pip install -e '.[postgres]' in Orchard's folder (asyncpg)."
)


class ConfigError(Exception):
    """A setting is missing or malformed; the message says which and how to fix it."""


class DatabaseUnavailable(Exception):
    """The database ORCHARD_DB names cannot be opened; the message says which (no password)
    and why, in one line."""


@contextmanager
def opening_database(target: Target) -> Iterator[None]:
    """Turn whatever opening ``target`` raises (a missing folder, a file that is not SQLite, a
    refused connection, a wrong password, a malformed URL: each library its own exception)
    into :class:`DatabaseUnavailable`, for the operator a line rather than a traceback; the
    traceback is logged at DEBUG. A newer schema keeps its own message."""
    try:
        yield
    except NewerSchema:
        raise
    except Exception as err:
        log.debug("opening the database failed", exc_info=True)
        raise DatabaseUnavailable(database_problem(target, err)) from err


def database_problem(target: Target, err: Exception) -> str:
    """One line: ORCHARD_DB's value, its password hidden, and what went wrong."""
    if isinstance(err, OSError) and err.strerror:
        reason = err.strerror + (f": {err.filename}" if err.filename else "")
    else:
        reason = str(err) or type(err).__name__
    return f"Cannot open the database ORCHARD_DB={redacted(target)}: {reason}"


@dataclass(frozen=True)
class Config:
    token: str
    database: Target
    log_level: str
    dev_guild_id: int | None
    shards: ShardPlan = field(default_factory=ShardPlan)

    @classmethod
    def from_env(cls, env_file: str | None = ".env") -> Config:
        load_env(env_file)
        token = os.environ.get("DISCORD_TOKEN", "").strip()
        if not token:
            raise ConfigError(NO_TOKEN_HELP)
        if len(token) > 1 and token[0] == token[-1] and token[0] in "\"'":
            raise ConfigError(QUOTED_TOKEN)
        target = database()
        if is_url(target) and importlib.util.find_spec("asyncpg") is None:
            raise ConfigError(NO_ASYNCPG)
        return cls(
            token=token,
            database=target,
            log_level=log_level(os.environ.get("LOG_LEVEL", "")),
            dev_guild_id=server_id(os.environ.get("DEV_GUILD_ID", ""), "DEV_GUILD_ID"),
            shards=shard_plan(),
        )


def load_env(env_file: str | None = ".env") -> None:
    """Read ``env_file`` into the environment; variables already set win."""
    if env_file:
        load_dotenv(env_file)


def database() -> Target:
    """ORCHARD_DB (a ``postgresql://`` URL or a file's path, ``~`` expanded), or the default
    file: ``orchard health`` reads it too, without a token. Any other URL is a ConfigError."""
    raw = os.environ.get("ORCHARD_DB", "").strip()
    if is_url(raw):
        return raw
    if looks_like_url(raw):
        raise ConfigError(not_a_database_url(raw))
    return Path(raw or DEFAULT_DB).expanduser()


def not_a_database_url(raw: str) -> str:
    """One line for a URL Orchard cannot use, which it once took for a SQLite file's name."""
    return (
        f"ORCHARD_DB={redacted(raw)} is not a URL Orchard can use: write "
        "postgresql://USER:PASSWORD@HOST:PORT/DATABASE (or postgres://), or a SQLite file's "
        "path (with ./ before a file name that has a colon)."
    )


def shard_plan() -> ShardPlan:
    """ORCHARD_SHARDS and ORCHARD_SHARD_COUNT; some shards only (the rest run elsewhere) is
    refused on SQLite, a file only one process on one machine may use."""
    try:
        plan = parse_plan(
            os.environ.get("ORCHARD_SHARDS", ""), os.environ.get("ORCHARD_SHARD_COUNT", "")
        )
    except ShardError as err:
        raise ConfigError(str(err)) from err
    target = database()
    if plan.partial and not is_url(target):
        raise ConfigError(single_process_refusal(plan, str(target)))
    return plan


def server_id(raw: str, name: str) -> int | None:
    """A Discord server id given as ``name`` (None if empty); anything else is a ConfigError."""
    raw = raw.strip()
    if raw and not raw.isdigit():
        raise ConfigError(f"{name} must be a server id (digits only).")
    return int(raw) if raw else None


def log_level(raw: str) -> str:
    """LOG_LEVEL as logging knows it (INFO if unset); a typo is a clear ConfigError here,
    not a traceback from logging.basicConfig later."""
    level = raw.strip().upper() or "INFO"
    if level not in LOG_LEVELS:
        raise ConfigError(
            f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)} (got {raw.strip()!r})."
        )
    return level
