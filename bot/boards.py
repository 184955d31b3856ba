"""Game boards in Discord: what a game's message shows, and keeping that message up to date.

A game's UI (its cog) turns a snapshot into a :class:`Rendered` message; :class:`Boards` is
the runner's display of a game on its own message: edit it, post it again if it was deleted,
try once more after Discord's own failures, and tell the runner when the channel is gone.
A board names whose turn it is but mentions nobody: it is edited on every move, and an edit
notifies no one, so its :class:`~bot.pings.TurnPings` tell people in messages of their own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import discord
from discord import ui

from bot.components import GameButton, GameSelect, view_of
from bot.model import NOBODY, GameStatus, MoveSource, Player
from bot.pings import TurnPings, joined
from bot.runner import Gone, Runner, Snapshot
from bot.specs import SPEC_OF, VARIANTS, orchard_plays

log = logging.getLogger(__name__)

UNKNOWN_CHANNEL = 10003  # Discord's error code for a deleted (or never seen) channel
LOBBY_VERBS = ("lobby_join", "lobby_leave", "lobby_start", "lobby_cancel", "lobby_addbot")

Draw = Callable[[], list[discord.File]]


@dataclass
class Rendered:
    """A game message: what to send the first time and what to edit in later."""

    embed: discord.Embed
    view: ui.View | None = None
    content: str | None = None
    files: list[discord.File] = field(default_factory=list)
    draw: Draw | None = None  # slow files, made off the event loop by Boards.render()

    def send_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "content": self.content,
            "embed": self.embed,
            "files": self.files,
            "allowed_mentions": discord.AllowedMentions.none(),  # turn messages ping, never this
        }
        if self.view is not None:
            kwargs["view"] = self.view
        return kwargs

    def edit_kwargs(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "embed": self.embed,
            "view": self.view,
            "attachments": self.files,
            "allowed_mentions": discord.AllowedMentions.none(),
        }


class GameUI(Protocol):
    """What a game's cog provides to the shared machinery, for each kind it draws."""

    def render(self, snapshot: Snapshot) -> Rendered: ...

    async def on_ui(
        self, interaction: discord.Interaction[Any], snapshot: Snapshot, verb: str, arg: str
    ) -> None:
        """A button that only shows something (e.g. "My tiles") and is not a game move."""
        ...


def names(snapshot: Snapshot) -> list[str]:
    return [p.name for p in snapshot.row.players]


def whose_turn(players: list[Player]) -> str | None:
    """A board's line naming, not mentioning, whom the game waits for."""
    shown = [p.name for p in players]
    if len(shown) < 2:
        return f"{shown[0]}'s turn." if shown else None
    return f"Waiting for {joined(shown)}."


def lobby_render(snapshot: Snapshot) -> Rendered:
    """The shared lobby message, and what is left of it once cancelled or expired."""
    row = snapshot.row
    variant = VARIANTS[row.kind]
    seats = "\n".join(
        f"{p.seat + 1}. {p.name}" + (" (host)" if p.user_id == row.host_id != NOBODY else "")
        for p in row.players
    )
    if row.status is not GameStatus.LOBBY:
        embed = discord.Embed(title=f"{variant.title}: lobby closed", description=seats)
        return Rendered(embed=embed, view=ui.View(timeout=None))
    embed = discord.Embed(title=f"{variant.title}: who is playing?", description=variant.blurb)
    embed.add_field(name=f"Players ({len(row.players)})", value=seats or "nobody yet")
    embed.set_footer(
        text="The host presses Start when everyone is in. "
        "An unstarted lobby closes 15 minutes after the last join."
    )
    buttons: list[ui.Item[Any]] = [
        GameButton(row.id, 0, "lobby_join", label="Join", style=discord.ButtonStyle.primary),
        GameButton(row.id, 0, "lobby_leave", label="Leave"),
        GameButton(row.id, 0, "lobby_start", label="Start", style=discord.ButtonStyle.success),
        GameButton(row.id, 0, "lobby_cancel", label="Cancel", style=discord.ButtonStyle.danger),
    ]
    if orchard_plays(row.kind):
        levels = [
            discord.SelectOption(label=f"Orchard ({level})", value=level)
            for level in SPEC_OF[row.kind].levels
        ]
        buttons.append(
            GameSelect(row.id, 0, "lobby_addbot", levels, placeholder="Add Orchard…", row=1)
        )
    return Rendered(embed=embed, view=view_of(*buttons))


def timeout_notice(snapshot: Snapshot) -> str:
    """One line for the channel when the clock, not a player, moved the game."""
    lines = []
    for move in snapshot.moves:
        name = snapshot.row.players[move.seat].name
        if move.source is MoveSource.TIMEOUT:
            lines.append(f"⏰ {name} ran out of time, so Orchard played for them.")
        elif move.source is MoveSource.FORFEIT and move.user_id is None:
            lines.append(f"👋 {name} timed out three turns in a row and has left the game.")
    return "\n".join(dict.fromkeys(lines))


class Boards:
    """Each game's public message, kept showing the game's latest version."""

    def __init__(self, client: discord.Client, runner: Runner, uis: Mapping[str, GameUI]) -> None:
        self.client = client
        self.runner = runner
        self.uis = uis
        self.redraw_delay = 2.0  # seconds before a board Discord failed to show is tried again
        self._redraws: set[asyncio.Task[None]] = set()
        self.pings = TurnPings(client, runner)  # started and drained by the servers cog

    async def render(self, snapshot: Snapshot) -> Rendered:
        """A game's message; a picture is drawn in a thread so other games keep moving."""
        if snapshot.state is None:
            payload = lobby_render(snapshot)
        else:
            payload = self.uis[snapshot.row.kind].render(snapshot)
        if payload.draw is not None:
            payload.files += await asyncio.to_thread(payload.draw)
            payload.draw = None
        return payload

    async def display(self, snapshot: Snapshot) -> None:
        """Edit a game's message, or post it anew if it was deleted (the move is already safe).

        Discord's own failures (a 503, which discord.py does not retry) get one more try
        shortly, so a board does not wait for the next click to catch up. A version already
        overtaken by a newer write is not drawn at all: the newer display draws the board.
        """
        try:
            if not self.runner.outdated(snapshot):
                await self._edit_or_post(snapshot)
        except discord.DiscordServerError:
            task = asyncio.create_task(self._redraw(snapshot.id))
            self._redraws.add(task)
            task.add_done_callback(self._redraws.discard)
            raise
        notice = timeout_notice(snapshot)
        if notice:
            channel = self.client.get_partial_messageable(snapshot.row.channel_id)
            await channel.send(notice, allowed_mentions=discord.AllowedMentions.none())

    async def post(self, snapshot: Snapshot, payload: Rendered | None = None) -> discord.Message:
        """Post the game's message anew and remember it as the game's own."""
        payload = payload or await self.render(snapshot)
        row = snapshot.row
        channel = self.client.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
        message = await channel.send(**payload.send_kwargs())
        await self.runner.record_message(snapshot.id, message.id)
        return message

    def stop(self) -> None:
        for task in list(self._redraws):
            task.cancel()

    async def _edit_or_post(self, snapshot: Snapshot) -> None:
        payload = await self.render(snapshot)
        row = snapshot.row
        channel = self.client.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
        try:
            if row.message_id is not None:
                try:
                    message = channel.get_partial_message(row.message_id)
                    await message.edit(**payload.edit_kwargs())
                    return
                except discord.NotFound as err:
                    if err.code == UNKNOWN_CHANNEL:
                        raise
                    log.info("game %s: message gone, posting it again", snapshot.id)
            await self.post(snapshot, payload)
        except discord.NotFound as err:
            if err.code == UNKNOWN_CHANNEL:
                raise Gone(f"channel {row.channel_id}") from err
            raise

    async def _redraw(self, game_id: int) -> None:
        await asyncio.sleep(self.redraw_delay)
        async with self.runner.showing(game_id):  # after any display in flight
            snapshot = await self.runner.load(game_id)
            try:
                await self._edit_or_post(snapshot)
            except (discord.HTTPException, Gone):
                log.warning("game %s: board still not shown; the next click redraws it", game_id)
