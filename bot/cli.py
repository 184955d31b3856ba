"""The ``orchard`` program's commands (``python -m bot`` too): run the bot, and the
operator's others (``--help``)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
import textwrap
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot import health
from bot.config import (
    NO_ASYNCPG,
    SETTINGS,
    Config,
    ConfigError,
    DatabaseUnavailable,
    database,
    load_env,
    opening_database,
    server_id,
    shard_plan,
)
from db.connection import is_url
from db.migrate import NewerSchema

if TYPE_CHECKING:
    from bot.app import OrchardBot

log = logging.getLogger(__name__)

USAGE = (
    "usage: orchard [run | sync | health | clear-guild [SERVER_ID] | clear-global"
    " | migrate-db --from FILE --to URL | help]"
)
MIGRATE_DB = (
    "copy a SQLite database (stop the bot first), games in play included, into an empty "
    "PostgreSQL database in one transaction, verify each table's row count and print them; "
    "then set ORCHARD_DB to the URL"
)
COMMANDS = (
    (
        "run",
        "(the default) connect to Discord and host the games; SIGTERM or Ctrl-C lets the moves "
        "in flight finish, closes the connection and exits 0",
    ),
    ("sync", "run, but send the slash commands to Discord first even if they did not change"),
    (
        "health",
        "exit 0 if the database answers and the running bot's gateway heartbeat is under "
        f"{health.STALE_AFTER:.0f} s old, else 1 with one line; needs no token (Docker's "
        "HEALTHCHECK runs it)",
    ),
    (
        "clear-guild",
        "remove the copy of the slash commands that DEV_GUILD_ID put into a server (SERVER_ID, "
        "default DEV_GUILD_ID), so that it does not list every command twice",
    ),
    (
        "clear-global",
        "remove the slash commands a run without DEV_GUILD_ID gave every server, so that "
        "DEV_GUILD_ID's server does not list every command twice",
    ),
    ("migrate-db", f"--from FILE --to postgresql://…: {MIGRATE_DB}"),
    ("help", "this text (also -h and --help)"),
)
HELP_WORDS = ("help", "-h", "--help")
OPTION_HELP = ("-h", "--help")
USAGES = {
    "run": "orchard [run]",
    "sync": "orchard sync",
    "health": "orchard health",
    "clear-guild": "orchard clear-guild [SERVER_ID]",
    "clear-global": "orchard clear-global",
}
"""Each command's usage for its own --help; migrate-db's is argparse's, help's the whole text."""


def command_help(command: str) -> str:
    """``orchard COMMAND --help``: that command's usage and what it does; the settings are
    in ``orchard --help``."""
    does = dict(COMMANDS)[command]
    return (
        f"usage: {USAGES[command]}\n\n{textwrap.fill(does, 96)}\n\n"
        "`orchard --help` lists every setting."
    )


def help_text() -> str:
    # One column as wide as the longest name and a space: a longer name ran into its text.
    width = max(len(name) for name, _ in (*COMMANDS, *SETTINGS)) + 1

    def rows(pairs: tuple[tuple[str, str], ...]) -> str:
        return "\n".join(
            textwrap.fill(
                text, 96, initial_indent=f"  {name:<{width}}", subsequent_indent=" " * (width + 2)
            )
            for name, text in pairs
        )

    return (
        f"{USAGE}\n\nOrchard hosts dice and word games in Discord servers.\n\n"
        f"commands:\n{rows(COMMANDS)}\n\n"
        f"settings, from the environment or a .env file in the current folder:\n{rows(SETTINGS)}"
    )


def main(argv: list[str] | None = None, held: Sequence[int] = ()) -> int:
    """The ``orchard`` program's commands; ``held``: signals that came while it was starting
    (:mod:`bot.launch`), acted on once the bot runs."""
    args = sys.argv[1:] if argv is None else argv
    command, rest = (args[0], args[1:]) if args else ("run", [])
    if command in HELP_WORDS:
        print(help_text())
        return 0
    known = {name for name, _ in COMMANDS}
    if command == "migrate-db":
        return migrate_db_command(rest)
    if command in known and any(arg in OPTION_HELP for arg in rest):
        print(command_help(command))
        return 0
    if command not in known or len(rest) > (1 if command == "clear-guild" else 0):
        print(f"{USAGE}\n(`orchard --help` says what each does)", file=sys.stderr)
        return 2
    if command == "health":
        load_env()
        try:
            shards = shard_plan()
        except ConfigError as err:
            print(err, file=sys.stderr)
            return 2
        return health.main(database(), shards)
    try:
        config = Config.from_env()
        guild = server_id(rest[0], "SERVER_ID") if rest else config.dev_guild_id
    except ConfigError as err:
        print(err, file=sys.stderr)
        return 2
    configure_logging(config.log_level)
    quiet_voice()
    if command == "clear-guild":
        return clear_guild_command(config, guild)
    if command == "clear-global":
        return asyncio.run(guarded(clear_commands(config, None)))
    return run(config, force_sync=command == "sync", held=held)


def run(config: Config, *, force_sync: bool, held: Sequence[int] = ()) -> int:
    from bot.app import OrchardBot  # not for `orchard health`, run every 30 s

    bot = OrchardBot(config, force_sync=force_sync)
    log.info("running %s", config.shards.describe())
    try:
        return asyncio.run(serve(bot, config.token, held))
    except KeyboardInterrupt:  # Ctrl-C where no signal handler could be installed
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


def quiet_voice() -> None:
    """Orchard plays no sound: no start-up warning that voice's PyNaCl and davey are missing."""
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False


REJECTED = (
    "Discord rejected the token in DISCORD_TOKEN: reset it in the Developer Portal and update .env."
)
SHUTDOWN_SECONDS = 9.0  # Docker's stop sends SIGKILL after 10 s
DRAIN_SECONDS = 3.0  # for the moves in flight; the cogs' DMs and the close get the rest of 10 s
RESTARTING = "Orchard is restarting, so nothing was done: try again in a few seconds."


def unreachable(err: aiohttp.ClientConnectorError) -> str:
    reason = err.os_error.strerror or str(err.os_error) or type(err.os_error).__name__
    return (
        f"Cannot reach Discord ({err.host}: {reason}): check this machine's network connection "
        "and DNS, then start Orchard again."
    )


async def guarded(work: Awaitable[int]) -> int:
    """``work``'s exit status; a rejected token, an unreachable Discord, a database that
    cannot be opened or one a newer Orchard migrated is one line and 1."""
    try:
        return await work
    except discord.LoginFailure:
        print(REJECTED, file=sys.stderr)
    except aiohttp.ClientConnectorError as err:  # refused, DNS, TLS: not an 80-line traceback
        print(unreachable(err), file=sys.stderr)
    except (NewerSchema, DatabaseUnavailable) as err:
        print(err, file=sys.stderr)
    return 1


async def serve(bot: OrchardBot, token: str, held: Sequence[int] = ()) -> int:
    """Run until closed, or until SIGTERM or SIGINT shut the bot down in order (exit status 0);
    a rejected token, an unreachable Discord, a database that cannot be opened, or one a newer
    Orchard migrated (at start or while running: see :func:`bot.health.newer_schema`) is one
    clear line and exit status 1 after the same orderly shutdown."""
    stop = asyncio.Event()
    with on_signals(stop.set, held):
        return await guarded(run_until(bot, token, stop))


@contextmanager
def on_signals(handler: Callable[[], None], held: Sequence[int] = ()) -> Iterator[None]:
    """SIGTERM and SIGINT call ``handler``, as does one ``held`` while the program started.
    As PID 1 (a container's `docker stop`) the kernel drops a signal the process installed
    no handler for, so relying on the default is not enough.
    """
    loop = asyncio.get_running_loop()
    installed = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, handler)
            installed.append(sig)
        except (NotImplementedError, RuntimeError):  # Windows, or not the main thread
            log.debug("no handler for %s here", sig.name)
    if held:
        log.info("a signal came while starting: stopping")
        handler()
    try:
        yield
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


async def run_until(bot: OrchardBot, token: str, stop: asyncio.Event) -> int:
    async with bot:
        gate = Gate(bot)
        running = asyncio.create_task(start(bot, token), name="orchard")
        beating = asyncio.create_task(health.record_heartbeats(bot), name="orchard heartbeat")
        newer = asyncio.create_task(health.newer_schema(bot), name="orchard schema")
        told = asyncio.create_task(stop.wait(), name="orchard stop")
        try:
            await asyncio.wait({running, told, newer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (told, beating, newer):
                task.cancel()
        if running.done():
            running.result()  # raises what ended it
            return 0
        await shut_down(bot, gate, running)
        if newer.done() and not newer.cancelled():
            raise newer.result()  # a newer Orchard migrated the store: this one must not run
    return 0


async def start(bot: OrchardBot, token: str) -> None:
    """The database first, then Discord: a database that cannot be opened is told before any
    login, and a signal meanwhile stops either step (:func:`shut_down` cancels this task)."""
    await bot.open_store()
    await health.after_a_crash(bot)
    await bot.start(token)


async def shut_down(bot: OrchardBot, gate: Gate, running: asyncio.Task[None]) -> None:
    """Stop taking interactions and let those in flight finish; then ``bot.close()`` waits for
    the Appletters DMs, closes the gateway with a close frame, and closes the store."""
    log.info("stopping: finishing the moves in flight, then closing the connection")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SHUTDOWN_SECONDS
    # Closed even before the bot is ready: with several shards the first ones take clicks
    # while the rest connect (5 s apart), and those clicks are finished, not cut off.
    await gate.close(DRAIN_SECONDS)
    if not bot.is_ready():
        running.cancel()  # still starting: stop where it is
    try:  # whatever hangs (a Discord that never answers the close frame), exit in time
        await asyncio.wait_for(bot.close(), timeout=max(deadline - loop.time() - 1.0, 0.5))
    except TimeoutError:
        log.warning("closing took too long; exiting anyway (every move is already committed)")
    await asyncio.wait({running}, timeout=max(deadline - loop.time(), 0.1))
    if running.done() and not running.cancelled() and running.exception():
        log.info("start-up ended by the shutdown: %r", running.exception())


class Gate:
    """The door every interaction comes in by: discord.py's INTERACTION_CREATE parser.

    Open, it hands each interaction on and keeps the tasks discord.py starts for it, so a
    shutdown can wait for them; closed, it starts nothing new and tells the player privately
    that Orchard is restarting, rather than leave them "This interaction failed".
    """

    def __init__(self, bot: discord.Client) -> None:
        self.bot = bot
        self.open = True
        self.busy: set[asyncio.Future[Any]] = set()
        parsers = bot._connection.parsers  # the gateway reads this very dict
        self._parse = parsers["INTERACTION_CREATE"]
        parsers["INTERACTION_CREATE"] = self._receive

    def _receive(self, data: Any) -> None:
        if not self.open:
            self._keep(asyncio.create_task(self._turn_away(data)))
            return
        # The handlers' tasks are started before the parser returns: the loop's task factory
        # hands each to us as it is made (all_tasks() would cost two walks over every task
        # alive, thousands after downtime, per interaction).
        loop = asyncio.get_running_loop()
        factory = loop.get_task_factory()

        def kept(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> Any:
            if factory is not None:
                task = factory(loop, coro, **kwargs)
            else:
                task = asyncio.Task(coro, loop=loop, **kwargs)
            self._keep(task)
            return task

        loop.set_task_factory(kept)
        try:
            self._parse(data)
        finally:
            loop.set_task_factory(factory)

    def _keep(self, task: asyncio.Future[Any]) -> None:
        self.busy.add(task)
        task.add_done_callback(self.busy.discard)

    async def _turn_away(self, data: Any) -> None:
        interaction: discord.Interaction[Any] = discord.Interaction(
            data=data, state=self.bot._connection
        )
        if interaction.type is discord.InteractionType.autocomplete:
            return
        try:
            await interaction.response.send_message(RESTARTING, ephemeral=True)
        except (discord.HTTPException, aiohttp.ClientError) as err:  # the connection, too
            log.info("could not say Orchard is restarting: %s", err)

    async def close(self, timeout: float) -> None:
        """Turn new interactions away; wait up to ``timeout`` s for those being handled."""
        self.open = False
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.busy and loop.time() < deadline:
            await asyncio.wait(self.busy, timeout=deadline - loop.time())
        if self.busy:
            log.warning("%d interaction(s) still running after %.0f s", len(self.busy), timeout)


def clear_guild_command(config: Config, guild: int | None) -> int:
    if guild is None:
        print("clear-guild needs a server id: orchard clear-guild SERVER_ID", file=sys.stderr)
        return 2
    return asyncio.run(guarded(clear_commands(config, guild)))


async def clear_commands(config: Config, guild_id: int | None) -> int:
    """Empty the server's list of Orchard's slash commands (None: the list every server
    has), and forget the hash of what was synced there, so that a later run syncs afresh."""
    from bot.app import command_hash_key, intents
    from db.store import Store

    client = discord.Client(intents=intents())
    guild = None if guild_id is None else discord.Object(guild_id)
    where = "every server" if guild_id is None else f"server {guild_id}"
    async with client:
        await client.login(config.token)
        try:
            await discord.app_commands.CommandTree(client).sync(guild=guild)  # an empty tree
        except discord.HTTPException as err:
            print(f"Discord refused to change {where}'s commands: {err}", file=sys.stderr)
            return 1
    if is_url(config.database) or Path(config.database).is_file():
        with opening_database(config.database):
            store = await Store.open(config.database)
        try:
            await store.set_meta(command_hash_key(guild), "")
        finally:
            await store.close()
    print(f"Removed Orchard's slash commands from {where}.")
    return 0


def migrate_db_command(args: list[str]) -> int:
    """``orchard migrate-db --from FILE --to URL``: 0 when copied and verified, else 1 (2 for
    bad arguments), with one line saying why."""
    parser = argparse.ArgumentParser(prog="orchard migrate-db", description=MIGRATE_DB)
    parser.add_argument(
        "--from",
        dest="source",
        required=True,
        type=Path,
        metavar="FILE",
        help="the SQLite database file to copy (the bot using it stopped)",
    )
    parser.add_argument(
        "--to",
        dest="target",
        required=True,
        metavar="URL",
        help="the empty PostgreSQL database: postgresql://user:password@host:port/database",
    )
    try:
        options = parser.parse_args(args)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if not options.source.is_file():
        print(f"no SQLite database at {options.source}", file=sys.stderr)
        return 2
    if not is_url(options.target):
        print("--to must be a postgresql:// (or postgres://) URL", file=sys.stderr)
        return 2
    try:
        from db.transfer import copy_database
    except ImportError:
        print(NO_ASYNCPG, file=sys.stderr)
        return 1
    try:
        counts = asyncio.run(copy_database(options.source, options.target))
    except Exception as err:  # refused, unreachable, or not verified: nothing was committed
        print(f"nothing copied: {err}", file=sys.stderr)
        return 1
    print(f"copied {options.source} into PostgreSQL; row counts verified:")
    for table, count in counts.items():
        print(f"  {table:<18}{count:>10}")
    return 0
