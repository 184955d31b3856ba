"""Cheerio in Discord: /cheerio new|rules|leaderboard and the game message."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.ai.cheerio_players import exact_tables
from bot.ai.dice_optimal import DiceTables
from bot.answers import send
from bot.boards import Rendered, names, whose_turn
from bot.components import GameButton, GameSelect, view_of
from bot.games.cheerio import (
    CATEGORIES,
    ROLLS_PER_TURN,
    CheerioState,
    open_categories,
    score,
    total,
)
from bot.runner import Refusal, Snapshot
from bot.specs import CHEERIO
from cogs.game import GameCog, die

if TYPE_CHECKING:
    from bot.app import OrchardBot

RULES = """\
**Cheerio** (1 to 6 players): score in each of seven categories once; highest total wins.
• Your turn starts with five dice rolled. Hold the dice you like and roll the rest, up to two \
more times, then score. You may score after any roll.
• **Ones to sixes**: the face times how many dice show it. Ones are wild for a face that shows \
at least once (1,1,1,2,3 is 8 in twos). Five of one face with no ones scores double (five \
sixes: 60; five ones: 10).
• **Cheerio**: 1-2-3-4-5 or 2-3-4-5-6 is 50; the same run made with wild ones is 25.
• A category that does not fit scores 0, and you may have to take one."""


def scorecard(state: CheerioState, players: list[str]) -> str:
    """A fixed-width table: one column per player, readable on a phone."""
    heads = [name[:6] for name in players]
    lines = ["        " + " ".join(f"{h:>6}" for h in heads)]
    for i, category in enumerate(CATEGORIES):
        cells = [("-" if card[i] is None else str(card[i])) for card in state.cards]
        lines.append(f"{category.title():<8}" + " ".join(f"{c:>6}" for c in cells))
    lines.append("Total   " + " ".join(f"{total(card):>6}" for card in state.cards))
    return "```\n" + "\n".join(lines) + "\n```"


def dice_line(state: CheerioState) -> str:
    return "   ".join(
        f"**[{die(d)}]** 🔒" if held else die(d)
        for d, held in zip(state.dice, state.held, strict=True)
    )


def hint_text(state: CheerioState, tables: DiceTables) -> str:
    """The top three choices for the current dice, each with its expected final score."""
    card = state.cards[state.turn]
    used = [c for c, p in zip(CATEGORIES, card, strict=True) if p is not None]
    choices = tables.ranked_choices(
        used, state.dice, ROLLS_PER_TURN - state.rolls, n=3, banked=total(card)
    )
    lines = []
    for i, choice in enumerate(choices, start=1):
        if choice.kind == "score":
            what = f"score {choice.category} now ({choice.points} points)"
        elif choice.keep:
            what = f"keep {', '.join(map(str, choice.keep))} and roll the rest"
        else:
            what = "roll all five dice again"
        lines.append(f"{i}. {what}: expected final score {choice.expected:.1f}")
    return "**Best moves now** (this game is marked as hinted)\n" + "\n".join(lines)


class CheerioCog(GameCog, group_name="cheerio", group_description="Cheerio: five dice, ones wild"):
    spec = CHEERIO
    rules_text = RULES

    @app_commands.command(
        name="hint", description="The best move for your dice now (only you see it)"
    )
    async def hint(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise Refusal("Hints are for games in a server channel.")
        if not (await self.bot.orchard.settings.get(interaction.guild_id)).hints:
            raise Refusal("Hints are turned off on this server.")
        games = await self.bot.orchard.store.open_games(
            interaction.guild_id, interaction.channel_id, self.kind
        )
        mine = [
            g for g in games if g.status == "active" and g.seat_of(interaction.user.id) is not None
        ]
        if not mine:
            raise Refusal("You have no Cheerio game in play in this channel.")
        snapshot = await self.bot.orchard.runner.load(mine[0].id)
        state: CheerioState = snapshot.state
        if snapshot.row.seat_of(interaction.user.id) != state.turn:
            raise Refusal("Hints are for your own turn: wait until it is your go.")
        tables = await asyncio.to_thread(exact_tables)
        await self.bot.orchard.runner.mark_hinted(snapshot.id)
        await send(interaction, hint_text(state, tables))

    def render(self, snapshot: Snapshot) -> Rendered:
        state: CheerioState = snapshot.state
        players = names(snapshot)
        embed = discord.Embed(title=f"Cheerio · game {snapshot.id}")
        embed.add_field(name="Scorecard", value=scorecard(state, players), inline=False)
        if state.last_score is not None:
            seat, category, points = state.last_score
            embed.set_footer(text=f"{players[seat]} scored {points} in {category}.")
        if snapshot.row.status != "active":
            return self.finished(snapshot, embed)
        turn = snapshot.row.players[state.turn]
        left = ROLLS_PER_TURN - state.rolls
        embed.description = (
            f"**{turn.name}'s turn** · {left} roll{'s' * (left != 1)} left\n\n{dice_line(state)}"
        )
        return Rendered(
            embed=embed,
            view=self._controls(snapshot, state),
            content=whose_turn([turn]),
        )

    def _controls(self, snapshot: Snapshot, state: CheerioState) -> discord.ui.View:
        gid, ver = snapshot.id, snapshot.row.version
        no_rolls = state.rolls >= ROLLS_PER_TURN
        holds = [
            GameButton(
                gid,
                ver,
                "hold",
                str(i),
                label=f"{d}",
                emoji="🔒" if held else None,
                style=discord.ButtonStyle.success if held else discord.ButtonStyle.secondary,
                disabled=no_rolls,
                row=0,
            )
            for i, (d, held) in enumerate(zip(state.dice, state.held, strict=True))
        ]
        roll = GameButton(
            gid,
            ver,
            "roll",
            label=f"Roll ({ROLLS_PER_TURN - state.rolls} left)",
            style=discord.ButtonStyle.primary,
            disabled=no_rolls or all(state.held),
            row=1,
        )
        options = [
            discord.SelectOption(label=f"{c.title()}: {score(c, state.dice)} points", value=c)
            for c in open_categories(state.cards[state.turn])
        ]
        select = GameSelect(gid, ver, "score", options, placeholder="Score in…", row=2)
        return view_of(*holds, roll, select)


async def setup(bot: OrchardBot) -> None:
    await bot.add_cog(CheerioCog(bot))
