"""The Discord client: Orchard's wiring, the game boards and the cogs, joined to discord.py.

Everything long-lived is created in ``setup_hook`` (inside the event loop); buttons carry
what they do in their ids, so messages posted before a restart keep working. Nothing is
warmed up before the first click: Orchard's dice tables ship in the package, so a first hint
or move after a restart costs milliseconds (see :func:`bot.ai.dice_optimal.tables_for`); the
keep values reviews use are computed in the background later (:class:`bot.orchard.Orchard`).
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.answers import release, watch
from bot.boards import Boards, GameUI
from bot.components import OURS, component_arg, data_of, read_click, shown_as
from bot.config import Config, opening_database
from bot.dice_emojis import DiceEmojis
from bot.interface import dispatch, refuse
from bot.orchard import Orchard
from bot.pacing import Pacer, traced
from bot.posting import INVITE
from bot.specs import SPECS
from bot.wording import choice_name, command_mention

log = logging.getLogger(__name__)

SHARED_EXTENSIONS = ("cogs.core", "cogs.servers")
PRESENCE = discord.Game(name="/help")
"""Shown under the bot's name in the member list ("Playing /help"): where to start."""
GC_THRESHOLDS = (3_000, 10, 10)
"""When the collector runs: after this many more container objects made than freed (Python's
default, 700, is for small programs). Each click parses and builds JSON boards of hundreds of
dicts and lists that die by reference count within milliseconds; at 700 a collection came in
the middle of most of them, walked them, and moved them to older generations to be walked
again: 6-11% of the bot's CPU in a game night, against about 3% at 3,000 (its young pass then
takes about 5 ms; at 20,000 it took 50 ms, a pause the clicks' p99 showed)."""
Form = Callable[[discord.Interaction[Any], re.Match[str]], Awaitable[None]]
"""A cog's handler of its form's submissions, given the match of the form's id."""
NOT_OURS = "That button is not one Orchard knows. Use /games to find your game."
LATE_EXTENSIONS = ("cogs.daily",)  # wraps the games' UIs, so it loads after them
SERVERS_AVAILABLE = "servers_available"
"""Orchard's own event, ``on_servers_available(guilds)``: servers whose channels have arrived.
At start-up (or a shard's new session) a shard's servers come as one list once the shard is
ready, so that a cog reads what it keeps of them in one query, not one per server (a thousand
servers would cost a thousand queries before play); a server arriving later (back from an
outage, or inviting Orchard back after removing it) comes alone. discord.py's
``on_guild_available`` still comes for each."""


def extensions() -> tuple[str, ...]:
    """The shared commands, then each game's UI as its spec names it."""
    return SHARED_EXTENSIONS + tuple(spec.ui for spec in SPECS) + LATE_EXTENSIONS


def friendly_choices(tree: app_commands.CommandTree[Any]) -> None:
    """Name every command choice for people: games and variants already carry their titles
    (bot/specs.py); a choice named by its raw value is given a readable name."""
    for command in tree.walk_commands():
        if isinstance(command, app_commands.Command):
            for parameter in command.parameters:
                for choice in parameter.choices:
                    if choice.name == str(choice.value):
                        choice.name = choice_name(choice.name)


def intents() -> discord.Intents:
    """Slash commands and components need no privileged intent; guilds keeps the channel cache."""
    chosen = discord.Intents.none()
    chosen.guilds = True
    return chosen


def drop_unlisted_channels(guild: discord.Guild | None, data: Any) -> None:
    """A server back from an outage: discord.py adds the channels its GUILD_CREATE brings to
    the server it kept, so one deleted meanwhile (no CHANNEL_DELETE is sent for a server
    unavailable) would stay, and Orchard's lists point at it until the next start. That
    GUILD_CREATE carries every channel the server has: any other is gone. (At start-up the
    server, known only by id, has none yet.)"""
    if guild is None or data.get("unavailable") is not False or "channels" not in data:
        return
    listed = {int(channel["id"]) for channel in data["channels"]}
    for channel in [c for c in guild.channels if c.id not in listed]:
        guild._remove_channel(channel)


def command_hash_key(guild: discord.abc.Snowflake | None) -> str:
    """The meta key of the commands last synced to ``guild`` (None: to every server)."""
    return f"command_hash:{guild.id if guild else 'global'}"


class OrchardBot(commands.AutoShardedBot):
    orchard: Orchard
    boards: Boards

    def __init__(self, config: Config, *, force_sync: bool = False, **options: Any) -> None:
        options.setdefault("guild_ready_timeout", 2.0)
        if config.shards.count is not None:
            options.setdefault("shard_count", config.shards.count)
        if config.shards.ids is not None:
            options.setdefault("shard_ids", list(config.shards.ids))
        # never over Discord's global limit, which would hold clicks; see also until_answered
        options.setdefault("http_trace", traced(Pacer.shared(config.shards.share)))
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents(),
            help_command=None,
            activity=PRESENCE,
            # Games and records belong to a server: a command is offered only in servers
            # unless it says otherwise (/help and /forget-me work in DMs too).
            allowed_contexts=app_commands.AppCommandContext(guild=True),
            # Installed to servers only: were the app also installable to a person's account,
            # its commands would run in servers Orchard is not in, whose boards it cannot edit.
            allowed_installs=app_commands.AppInstallationType(guild=True, user=False),
            **options,
        )
        self.config = config
        self.force_sync = force_sync
        self.uis: dict[str, GameUI] = {}
        self.templates: list[re.Pattern[str]] = []
        self.forms: dict[re.Pattern[str], Form] = {}  # modal ids, each to its cog's handler
        self._max_concurrency: int | None = None  # Discord's, read once when first needed
        self.dice = DiceEmojis()  # the dice pictures boards show (text until uploaded)
        self.command_ids: dict[str, int] = {}  # top-level command name -> Discord's id
        self._close_begun = self._close_ended = False  # see __aexit__
        self._closing: asyncio.Task[None] | None = None
        self._arriving: dict[int, list[discord.Guild]] = {}  # by shard, until it is ready
        # A click on Orchard's own control is read before discord.py parses the board it
        # came from (bot.components.read_click); the gateway reads this very dict.
        parse = self._connection.parsers["INTERACTION_CREATE"]

        def parse_click(data: Any) -> None:
            read_click(data)
            parse(data)

        self._connection.parsers["INTERACTION_CREATE"] = parse_click
        parse_guild = self._connection.parsers["GUILD_CREATE"]

        def parse_guild_create(data: Any) -> None:
            drop_unlisted_channels(self.get_guild(int(data["id"])), data)
            parse_guild(data)

        self._connection.parsers["GUILD_CREATE"] = parse_guild_create

    def add_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        """Register persistent components and remember their ids, for :meth:`on_interaction`."""
        super().add_dynamic_items(*items)
        self.templates += [item.__discord_ui_compiled_template__ for item in items]

    async def open_store(self) -> None:
        """Open (and migrate) the database, once. ``orchard run`` calls it before logging in
        to Discord, so a database that cannot be opened stops the start in one line
        (:class:`bot.config.DatabaseUnavailable`), with no Discord session made for nothing."""
        if not hasattr(self, "orchard"):
            with opening_database(self.config.database):
                self.orchard = await Orchard.open(self.config.database)

    async def setup_hook(self) -> None:
        await self.open_store()
        self.boards = Boards(self, self.orchard.runner, self.uis)
        self.orchard.runner.board = self.boards.display
        self.boards.pings.start()
        self.orchard.on_erased.append(self.draw_boards_anew)
        for extension in extensions():
            await self.load_extension(extension)
        friendly_choices(self.tree)
        self.orchard.leader.on_lead.append(self.sync_commands)
        await self.orchard.leader.start()  # the leader syncs the commands (if they changed)
        if self.force_sync and not self.orchard.leader.leading:
            await self.sync_commands()
        await self.dice.upload(self)  # before any board is drawn: games resume with pictures
        await self.orchard.start()
        self.orchard.leader.while_leading.append(self.draw_boards_anew)
        self.draw_boards_anew()  # the boards a /forget-me or the last stop queued: drawn anew
        # Everything made so far lives as long as the bot: moved out of the collector's way,
        # a full collection no longer walks it (such passes paused the loop 50-77 ms).
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)

    async def on_ready(self) -> None:
        """Tell the operator, at INFO, that the bot serves, and how to invite it (each time
        discord.py is ready again after a new session too)."""
        log.info(
            "Orchard is ready as %s in %d servers; invite it with %s",
            self.user,
            len(self.guilds),
            self.invite_url(),
        )

    def invite_url(self) -> str:
        """The link that adds the bot to a server with the permissions it needs."""
        if self.application_id is None:
            return "the Developer Portal's URL Generator"
        return discord.utils.oauth_url(
            self.application_id,
            permissions=discord.Permissions(**dict.fromkeys(INVITE, True)),
            scopes=("bot", "applications.commands"),
        )

    async def close(self) -> None:
        """Stop Orchard's loops, close the gateway, then the store. Once only: a close called
        again (a harness's, after the shutdown's) waits for the first, as discord.py's does."""
        if self._closing is None:
            self._closing = asyncio.create_task(self._close(), name="orchard-close")
        await self._closing

    async def _close(self) -> None:
        self._close_begun = True
        if hasattr(self, "boards"):
            self.boards.stop()
        if hasattr(self, "orchard"):
            await self.orchard.stop()
        if hasattr(self, "boards"):
            await self.boards.pings.stop()  # pings in flight are sent while the store is open
        await super().close()  # unloads the cogs, which finish what they have in flight
        if hasattr(self, "orchard"):
            await self.orchard.store.close()
        self._close_ended = True

    async def __aexit__(self, *exc_info: Any) -> None:
        """discord.py's exit waits for the close under way, or closes. A close the shutdown cut
        short (:func:`bot.cli.shut_down`: a gateway that never answers the close frame,
        or a part of Orchard's own stop that hangs) must not run again with no time limit,
        nor be waited for: cancelled, it would raise. The store it never reached would keep
        the process alive (its reader threads), so only the store is closed then."""
        if not self._close_begun or self._close_ended:
            await super().__aexit__(*exc_info)
            return
        if hasattr(self, "orchard"):
            try:
                await self.orchard.store.close()
            except Exception:  # cut short while closing it: its threads end with the process
                log.warning("could not close the store after a close cut short", exc_info=True)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Discord lets each ``max_concurrency`` bucket of shards (shard id modulo it) IDENTIFY
        once per 5 s, counting every process: processes running some shards each take turns
        through their shared store; alone, discord.py's own pause does (5 s between shards,
        none before the first: like a restart, which Discord then answers more slowly)."""
        if not (self.config.shards.partial and self.orchard.store.shared):
            await super().before_identify_hook(shard_id, initial=initial)
            return
        if self._max_concurrency is None:
            _, _, limits = await self.http.get_bot_gateway()
            self._max_concurrency = max(1, int(limits.get("max_concurrency", 1)))
        bucket = (shard_id or 0) % self._max_concurrency
        waited = await self.orchard.store.identify_turn(bucket)
        log.info("shard %s identifies (bucket %s, waited %.1f s)", shard_id, bucket, waited)

    def draw_boards_anew(self) -> None:
        """Draw anew the boards /forget-me or a stop queued (:meth:`Boards.draw_anew`), in the
        leader only: on a shared store one process works the queue, so no board is edited
        twice. Another process's erasure or stop, and a board whose drawing failed, wait for
        the leader's next check (:data:`bot.leader.RETRY` s at most)."""
        if self.orchard.leader.leading:
            self.boards.draw_anew()

    async def sync_commands(self) -> bool:
        """Sync slash commands only when they changed since the last sync (or when forced)."""
        guild = discord.Object(self.config.dev_guild_id) if self.config.dev_guild_id else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
            if await self.orchard.store.get_meta(command_hash_key(None)):
                log.warning(
                    "a run without DEV_GUILD_ID gave every server the slash commands, so "
                    "server %s lists each twice: `orchard clear-global` removes those",
                    guild.id,
                )
        payload = [c.to_dict(self.tree) for c in self.tree.get_commands(guild=guild)]
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        key = command_hash_key(guild)
        if not self.force_sync and await self.orchard.store.get_meta(key) == digest:
            log.info("slash commands unchanged; not syncing")
            await self._learn_command_ids(guild)
            return False
        synced = await self.tree.sync(guild=guild)
        self.command_ids = {c.name: c.id for c in synced}
        await self.orchard.store.set_meta(key, digest)
        log.info("slash commands synced (%s)", key)
        return True

    async def _learn_command_ids(self, guild: discord.abc.Snowflake | None) -> None:
        """The ids of commands synced before, for clickable mentions in /help; without them
        /help names commands as plain text."""
        try:
            self.command_ids = {c.name: c.id for c in await self.tree.fetch_commands(guild=guild)}
        except discord.HTTPException as err:
            log.warning("could not read the synced commands' ids: %s", err)

    def mention(self, command: str) -> str:
        """A clickable ``</cheerio new:id>`` for ``"cheerio new"``, or ``/cheerio new`` as
        text when its id is unknown."""
        return command_mention(command, self.command_ids)

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        """Every interaction is watched as it arrives, before any handler of it runs, so one
        still unanswered near Discord's 3 s is acknowledged (see :func:`bot.answers.watch`)."""
        if event_name == "interaction":
            watch(args[0])
        super().dispatch(event_name, *args, **kwargs)
        self._gather_arrivals(event_name, args)

    def _gather_arrivals(self, event_name: str, args: tuple[Any, ...]) -> None:
        """Hold the servers a shard's session brings until the shard is ready, then dispatch
        them together (see :data:`SERVERS_AVAILABLE`). Done here, as each event is
        dispatched, not in listeners: those run as tasks, with no order between them."""
        if event_name == "shard_connect":  # a new session: every server of it arrives again
            self._arriving[args[0]] = []
        elif event_name in ("guild_available", "guild_join"):  # a join brings every channel
            held = self._arriving.get(args[0].shard_id)
            if held is None:
                super().dispatch(SERVERS_AVAILABLE, [args[0]])
            else:
                held.append(args[0])
        elif event_name == "shard_ready":
            arrived = self._arriving.pop(args[0], [])
            if arrived:
                super().dispatch(SERVERS_AVAILABLE, arrived)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Dispatch every click on a game control, and answer those nobody else will.

        Game controls are Orchard's own to dispatch (see :class:`bot.components.GameButton`):
        a click whose control is on the message goes to the game. So does one whose control
        is no longer there (a board that moved on since the client drew it): the runner says
        why it is refused. Any other id, forged or from another bot, and any form no cog
        knows, gets a private answer instead of "This interaction failed". The other dynamic
        items (:attr:`templates`) are discord.py's to run.
        """
        data = data_of(interaction)
        custom = str(data.get("custom_id", ""))
        if interaction.type is discord.InteractionType.modal_submit:
            await self._submitted(interaction, custom)
            return
        if interaction.type is not discord.InteractionType.component:
            return
        match = OURS.fullmatch(custom)
        shown = shown_as(data)
        if match is None:
            theirs = any(template.fullmatch(custom) for template in self.templates)
            if not (theirs and shown == data.get("component_type")):
                await refuse(interaction, NOT_OURS)
            return  # else discord.py runs the component's own callback
        if shown is not None and shown != data.get("component_type"):
            await refuse(interaction, NOT_OURS)
            return
        await dispatch(
            interaction,
            int(match["game"]),
            int(match["version"]),
            match["verb"],
            component_arg(interaction, match),
        )
        release(interaction)  # Orchard's own from start to end: nothing reads it after this

    async def _submitted(self, interaction: discord.Interaction[Any], custom: str) -> None:
        """A form goes to the cog that registered its id in :attr:`forms`: one handler called
        here, rather than a listener of every interaction in each cog (a task more a click)."""
        for form, handler in self.forms.items():
            match = form.fullmatch(custom)
            if match is not None:
                await handler(interaction, match)
                return
        await refuse(interaction, "That form is not one Orchard knows. Nothing changed.")
