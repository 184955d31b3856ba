"""The slash commands every game has (/<game> new, rules, leaderboard), written once.

A game's cog subclasses :class:`GameCog` with its group name, text and ``render``; the lobby,
buttons, runner and storage are shared.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

import discord
from discord import app_commands, ui
from discord.ext import commands

from bot.answers import send
from bot.boards import Rendered, names
from bot.components import GameButton, view_of
from bot.interface import open_lobby, orchard_seat, refuse
from bot.model import Player
from bot.reviews import review_buttons
from bot.runner import Refusal, Snapshot
from bot.specs import GameSpec
from cogs.servers import send_board

if TYPE_CHECKING:
    from bot.app import OrchardBot

DIE_FACES = "⚀⚁⚂⚃⚄⚅"


def die(face: int) -> str:
    return f"{DIE_FACES[face - 1]} {face}"


def trophies(snapshot: Snapshot, seats: int) -> bool:
    """A trophy means a win: only a finished game of two or more seats has one (an abandoned
    game is nobody's loss, and a solo game is played for a high score)."""
    return snapshot.row.status == "finished" and seats > 1


def ending(snapshot: Snapshot) -> str:
    """The standings' heading, marked when someone asked for a hint during the game."""
    word = "Game over" if snapshot.row.status == "finished" else "Game abandoned"
    return word + (" · 💡 hinted" if snapshot.row.hinted else "")


def rematch(snapshot: Snapshot) -> ui.View:
    """What a finished game's message keeps: one button to play again with the same seats."""
    primary = discord.ButtonStyle.primary
    again = GameButton(snapshot.id, snapshot.row.version, "rematch", label="Rematch", style=primary)
    return view_of(again, *review_buttons(snapshot))


class GameCog(commands.GroupCog):
    """A game's UI: it draws every kind (variant) its spec declares."""

    spec: ClassVar[GameSpec]
    rules_text: ClassVar[str] = ""

    def __init__(self, bot: OrchardBot) -> None:
        self.bot = bot
        for kind in self.spec.kinds:
            bot.uis[kind] = self

    @property
    def kind(self) -> str:
        kind: str = self.spec.main.kind
        return kind

    @property
    def title(self) -> str:
        text: str = self.spec.main.title
        return text

    @app_commands.command(name="new", description="Open a lobby for a new game in this channel")
    @app_commands.describe(
        opponent="Play Orchard at once instead of opening a lobby",
        level="How well Orchard plays (default normal)",
    )
    async def new(
        self,
        interaction: discord.Interaction[Any],
        opponent: Literal["orchard"] | None = None,
        level: Literal["easy", "normal", "hard"] = "normal",
    ) -> None:
        await self.open(interaction, opponent=opponent, level=level)

    @app_commands.command(name="rules", description="The rules in brief (only you see them)")
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        await send(interaction, self.rules_text)

    @app_commands.command(name="leaderboard", description="This server's best players")
    @app_commands.describe(by="Rank by rating, wins, best or average score")
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        by: Literal["rating", "wins", "best", "average"] = "wins",
    ) -> None:
        await send_board(interaction, self.kind, by)

    async def open(
        self,
        interaction: discord.Interaction[Any],
        options: dict[str, Any] | None = None,
        variant: str = "",
        *,
        opponent: str | None = None,
        level: str = "normal",
    ) -> Snapshot | None:
        """A lobby, or with ``opponent="orchard"`` a game against Orchard started at once."""
        try:
            seats: tuple[Player, ...] = ()
            if opponent == "orchard":
                if self.spec.strategy is None:
                    raise Refusal(f"Orchard cannot play {self.title} yet.")
                seats = (orchard_seat(interaction, level),)
            if interaction.guild_id is not None:
                options = {**await self.options_for(interaction.guild_id), **(options or {})}
            return await open_lobby(
                interaction, self.kind, options, variant, seats, start=bool(seats)
            )
        except Refusal as err:
            await refuse(interaction, str(err))
            return None

    async def options_for(self, guild_id: int) -> dict[str, Any]:
        """Engine options a new game takes from this server's settings (none by default)."""
        return {}

    def render(self, snapshot: Snapshot) -> Rendered:
        raise NotImplementedError

    def finished(self, snapshot: Snapshot, embed: discord.Embed) -> Rendered:
        """Final standings and a Rematch button, for any game."""
        embed.description = self.standings(snapshot)
        return Rendered(embed=embed, view=rematch(snapshot))

    def standings(self, snapshot: Snapshot, unit: str = "") -> str:
        """The heading, then a line per seat, best first (ties share a place)."""
        results = self.bot.orchard.runner.engine(snapshot.row.kind).results(snapshot.state)
        players = names(snapshot)
        won = trophies(snapshot, len(results))
        lines = [
            f"{r.placement}. {players[r.seat]}: {r.score}{unit}" + (" 🏆" if won and r.won else "")
            for r in sorted(results, key=lambda r: r.placement)
        ]
        return f"**{ending(snapshot)}**\n" + "\n".join(lines)

    async def on_ui(
        self, interaction: discord.Interaction[Any], snapshot: Snapshot, verb: str, arg: str
    ) -> None:
        raise Refusal("That button does nothing in this game.")
