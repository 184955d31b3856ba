"""The Discord client: wires the store, runner, lobby and scheduler to the cogs.

Everything long-lived is created in ``setup_hook`` (inside the event loop); buttons are
registered as dynamic items, so messages posted before a restart keep working.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
from typing import Any

import discord
from discord.ext import commands

from bot.ai.registry import warm
from bot.config import Config
from bot.games.registry import ENGINES
from bot.interface import (
    OURS,
    GameButton,
    GameSelect,
    GameUI,
    Rendered,
    component_arg,
    data_of,
    dispatch,
    refuse,
    render,
    shown_as,
)
from bot.lobby import Lobby
from bot.model import MoveSource, Player
from bot.opponents import Opponents
from bot.runner import Live, Refusal, Runner
from bot.scheduler import Scheduler
from bot.settings import Settings
from db.store import Store

log = logging.getLogger(__name__)

WARM_AFTER = 5.0  # seconds
UNKNOWN_CHANNEL = 10003  # Discord's error code for a deleted (or never seen) channel

EXTENSIONS = (
    "cogs.core",
    "cogs.servers",
    "cogs.cheerio",
    "cogs.applejack",
    "cogs.hotscore",
    "cogs.appletters",
)


def intents() -> discord.Intents:
    """Slash commands and components need no privileged intent; guilds keeps the channel cache."""
    chosen = discord.Intents.none()
    chosen.guilds = True
    return chosen


async def _unseen(live: Live) -> None:
    """Show nothing: the caller is about to post the game's first message itself."""


def timeout_notice(live: Live) -> str:
    """One line for the channel when the clock, not a player, moved the game."""
    lines = []
    for move in live.moves:
        name = live.row.players[move.seat].name
        if move.source is MoveSource.TIMEOUT:
            lines.append(f"⏰ {name} ran out of time, so Orchard played for them.")
        elif move.source is MoveSource.FORFEIT and move.user_id is None:
            lines.append(f"👋 {name} timed out three turns in a row and has left the game.")
    return "\n".join(dict.fromkeys(lines))


def command_hash_key(guild: discord.abc.Snowflake | None) -> str:
    """The meta key of the commands last synced to ``guild`` (None: to every server)."""
    return f"command_hash:{guild.id if guild else 'global'}"


class OrchardBot(commands.AutoShardedBot):
    store: Store
    settings: Settings
    runner: Runner
    lobby: Lobby
    scheduler: Scheduler
    opponents: Opponents

    def __init__(self, config: Config, *, force_sync: bool = False, **options: Any) -> None:
        options.setdefault("guild_ready_timeout", 2.0)
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents(),
            help_command=None,
            **options,
        )
        self.config = config
        self.force_sync = force_sync
        self.uis: dict[str, GameUI] = {}
        self.templates: list[re.Pattern[str]] = []
        self.forms: list[re.Pattern[str]] = []  # modal ids a cog answers in its own listener
        self.redraw_delay = 2.0  # seconds before a board Discord failed to show is tried again
        self._redraws: set[asyncio.Task[None]] = set()

    def add_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        """Register persistent components and remember their ids, for :meth:`on_interaction`."""
        super().add_dynamic_items(*items)
        self.templates += [item.__discord_ui_compiled_template__ for item in items]

    async def setup_hook(self) -> None:
        self.store = await Store.open(self.config.db_path)
        self.settings = Settings(self.store)
        self.runner = Runner(self.store, ENGINES, self.settings, publish=self.publish)
        self.lobby = Lobby(self.runner)
        self.scheduler = Scheduler(self.runner, self.lobby)
        self.opponents = Opponents(self.runner)
        self.add_dynamic_items(GameButton, GameSelect)
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        await self.sync_commands()
        self._warm = asyncio.create_task(self._warm_up())
        self.scheduler.start()
        await self.opponents.resume()

    async def _warm_up(self) -> None:
        """Build Orchard's tables a little after start-up: the thread holds the interpreter
        for a second or so, and the first clicks after a restart should not wait for it."""
        await asyncio.sleep(WARM_AFTER)
        await asyncio.to_thread(warm)

    async def close(self) -> None:
        if hasattr(self, "_warm"):
            self._warm.cancel()
        for task in list(self._redraws):
            task.cancel()
        if hasattr(self, "scheduler"):
            await self.scheduler.stop()
            await self.opponents.stop()
        await super().close()
        if hasattr(self, "store"):
            await self.store.close()

    async def sync_commands(self) -> bool:
        """Sync slash commands only when they changed since the last sync (or when forced)."""
        guild = discord.Object(self.config.dev_guild_id) if self.config.dev_guild_id else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        payload = [c.to_dict(self.tree) for c in self.tree.get_commands(guild=guild)]
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        key = command_hash_key(guild)
        if not self.force_sync and await self.store.get_meta(key) == digest:
            log.info("slash commands unchanged; not syncing")
            return False
        await self.tree.sync(guild=guild)
        await self.store.set_meta(key, digest)
        log.info("slash commands synced (%s)", key)
        return True

    async def publish(self, live: Live) -> None:
        """Edit a game's message, or post it anew if it was deleted (the move is already safe).

        Discord's own failures (a 503, which discord.py does not retry) get one more try
        shortly, so a board does not wait for the next click to catch up.
        """
        try:
            await self._edit_or_post(live)
        except discord.DiscordServerError:
            task = asyncio.create_task(self._redraw(live.id))
            self._redraws.add(task)
            task.add_done_callback(self._redraws.discard)
            raise
        notice = timeout_notice(live)
        if notice:
            channel = self.get_partial_messageable(live.row.channel_id)
            await channel.send(notice, allowed_mentions=discord.AllowedMentions.none())

    async def _edit_or_post(self, live: Live) -> None:
        payload = await render(self, live)
        channel = self.get_partial_messageable(live.row.channel_id, guild_id=live.row.guild_id)
        try:
            if live.row.message_id is not None:
                try:
                    message = channel.get_partial_message(live.row.message_id)
                    await message.edit(**payload.edit_kwargs())
                    return
                except discord.NotFound as err:
                    if err.code == UNKNOWN_CHANNEL:
                        raise
                    log.info("game %s: message gone, posting it again", live.id)
            await self.post(live, payload)
        except discord.NotFound as err:
            if err.code != UNKNOWN_CHANNEL:
                raise
            await self._channel_gone(live)

    async def _redraw(self, game_id: int) -> None:
        await asyncio.sleep(self.redraw_delay)
        async with self.runner.lock(game_id):
            live = await self.runner.load(game_id)
            try:
                await self._edit_or_post(live)
            except discord.HTTPException:
                log.warning("game %s: board still not shown; the next click redraws it", game_id)

    async def _channel_gone(self, live: Live) -> None:
        """Nobody can see or play a game whose channel was deleted: end it, without results."""
        if await self.store.close_game(live.id, "abandoned", from_status=live.row.status):
            log.warning("game %s: its channel %s is gone; abandoned", live.id, live.row.channel_id)

    async def post(self, live: Live, payload: Rendered | None = None) -> discord.Message:
        payload = payload or await render(self, live)
        channel = self.get_partial_messageable(live.row.channel_id, guild_id=live.row.guild_id)
        message = await channel.send(**payload.send_kwargs())
        await self.store.set_message(live.id, message.id)
        return message

    async def open_lobby(
        self,
        interaction: discord.Interaction[Any],
        kind: str,
        options: dict[str, Any] | None = None,
        variant: str = "",
        players: tuple[Player, ...] = (),
        *,
        start: bool = False,
    ) -> Live:
        """Post a new lobby for ``kind`` in the interaction's channel (the caller hosts)."""
        if interaction.guild_id is None or interaction.channel_id is None:
            raise Refusal("Games are played in a server channel, not in direct messages.")
        user = interaction.user
        host = Player(0, user.id, user.display_name)
        live = await self.lobby.open(
            kind, interaction.guild_id, interaction.channel_id, host, options, variant
        )
        for player in players:  # seated before the message exists: nothing to show yet
            if player.is_bot:
                live = await self.lobby.add_seat(live.id, user.id, player, _unseen)
            else:
                live = await self.lobby.join(live.id, player, _unseen)

        async def announce(fresh: Live) -> None:
            await interaction.response.send_message(**(await render(self, fresh)).send_kwargs())
            message = await interaction.original_response()
            await self.store.set_message(fresh.id, message.id)

        if start:  # announced inside the start's lock: Orchard may move first, onto this message
            return await self.lobby.start(live.id, user.id, announce)
        await announce(live)
        return live

    def orchard_seat(self, level: str) -> Player:
        """A seat for Orchard itself at ``level`` (easy, normal or hard)."""
        user_id = self.user.id if self.user else 0
        return Player(0, user_id, f"Orchard ({level})", is_bot=True, level=level)

    async def rematch(self, interaction: discord.Interaction[Any], live: Live) -> None:
        """A finished game's player opens a new lobby with the same seats already joined."""
        if live.row.status not in ("finished", "abandoned"):
            raise Refusal("This game is still being played.")
        if live.row.seat_of(interaction.user.id) is None:
            raise Refusal("Only the players of this game can start a rematch.")
        others = tuple(p for p in live.row.players if p.user_id != interaction.user.id)
        await self.open_lobby(
            interaction, live.row.kind, live.row.options, live.row.variant, others
        )

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Answer the clicks discord.py's view store drops without a word.

        discord.py runs one of our components only when its id matches a registered template
        and a component of that id and type is on the message. Anything else gets a private
        answer here instead of "This interaction failed": a game control no longer on its
        message (a board that moved on since the client drew it) goes to the runner, which
        says why it is refused; every other id, forged or from another bot, is refused here.
        """
        data = data_of(interaction)
        custom = str(data.get("custom_id", ""))
        if interaction.type is discord.InteractionType.modal_submit:
            if not any(form.fullmatch(custom) for form in self.forms):
                await refuse(interaction, "That form is not one Orchard knows. Nothing changed.")
            return
        if interaction.type is not discord.InteractionType.component:
            return
        shown = shown_as(interaction.message, custom)
        ours = any(template.fullmatch(custom) for template in self.templates)
        if ours and shown is not None and shown == data.get("component_type"):
            return  # discord.py runs the component's own callback
        match = OURS.fullmatch(custom)
        if match is None or shown is not None:
            await refuse(
                interaction, "That button is not one Orchard knows. Use /games to find your game."
            )
            return
        await dispatch(
            interaction,
            int(match["game"]),
            int(match["version"]),
            match["kind"],
            component_arg(interaction, match),
        )
