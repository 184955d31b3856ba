"""Cheerio in Discord: /cheerio new|rules|leaderboard and the game message."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.ai.cheerio_players import exact_tables
from bot.ai.dice_optimal import DiceTables
from bot.answers import send
from bot.boards import Rendered, Row, names, plain_names, status
from bot.components import GameButton, GameSelect
from bot.dailies import Dailies
from bot.games.cheerio import (
    CATEGORIES,
    ROLLS_PER_TURN,
    CheerioState,
    open_categories,
    score,
    total,
)
from bot.model import GameStatus
from bot.runner import Refusal, Snapshot
from bot.specs import CHEERIO, title
from bot.wording import plural
from cogs.game import GameCog, left_note, score_table

if TYPE_CHECKING:
    from bot.app import OrchardBot

RULES = """\
**Cheerio** (1 to 6 players): score in each of seven categories once; highest total wins.
• Your turn starts with five dice rolled. Keep the dice you like and roll the rest, up to two \
more times, then score. You may score after any roll.
• **Ones to sixes**: the face times how many dice show it. Ones are wild for a face that shows \
at least once (1,1,1,2,3 is 8 in twos). Five of one face without wild ones scores double \
(five sixes: 60; five ones: 10); with a wild one it does not (3,3,3,3,1 is 15 in threes).
• **Cheerio**: 1-2-3-4-5 or 2-3-4-5-6 is 50; the same run made with wild ones is 25.
• A category that does not fit scores 0, and you may have to take one."""


HEADS = ("1", "2", "3", "4", "5", "6", "Ch", "Tot")
"""The scorecard's columns: the faces, Cheerio, and the total (not "Sum", which is a category
of Apple Jack's)."""


def scorecard(state: CheerioState, players: list[str]) -> str:
    """A row per player (full names, as typed), a column per category: readable on a phone."""
    rows = [(name, [*card, total(card)]) for name, card in zip(players, state.cards, strict=True)]
    return score_table(HEADS, rows)


def last_move(state: CheerioState, players: list[str]) -> str:
    if state.last_score is None:
        return ""
    seat, category, points = state.last_score
    return f"{players[seat]} scored {plural(points, 'point')} in {category.title()}."


NO_DAILY_HINTS = (
    "Hints are not given in the Daily Orchard: everyone plays the same dice on their own."
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
            named = choice.category.title()  # as the board's menu names it
            what = f"score {named} now ({plural(choice.points, 'point')})"
        elif choice.keep:
            what = f"keep {', '.join(map(str, choice.keep))} and roll the rest"
        else:
            what = "roll all five dice again"
        lines.append(f"{i}. {what}: expected final score {choice.expected:.1f}")
    marked = "(only you see these; its final board and /history will show 💡 hinted)"
    return f"**Best moves now** {marked}\n" + "\n".join(lines)


def dice_text(state: CheerioState) -> str:
    """The dice in words, naming those kept: the buttons show them too, but a screen reader
    may skip disabled buttons (no rolls left), and "Release 5" only implies the 5 is kept."""
    faces = " ".join(str(d) for d in state.dice)
    kept = [str(d) for d, held in zip(state.dice, state.held, strict=True) if held]
    return f"{faces} (keeping {' '.join(kept)})" if kept else faces


class CheerioCog(GameCog, group_name="cheerio", group_description="Cheerio: five dice, ones wild"):
    spec = CHEERIO
    rules_text = RULES
    accent = 0xF9A825  # sunny yellow

    @app_commands.command(
        name="hint",
        description="The best move for your dice now (only you see it; the game is marked hinted)",
    )
    async def hint(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise Refusal("Hints are for games in a server channel.")
        if not (await self.bot.orchard.settings.get(interaction.guild_id)).hints:
            raise Refusal("Hints are turned off on this server.")
        games = await self.bot.orchard.store.open_games(
            interaction.guild_id, interaction.channel_id, self.kind
        )
        mine = [g for g in games if g.status is GameStatus.ACTIVE and g.plays(interaction.user.id)]
        if not mine:
            raise Refusal(await self._no_game_to_hint(interaction.user.id))
        # A server may allow several games a channel: the hint is for the one on your turn.
        snapshots = await self.bot.orchard.runner.load_many([g.id for g in mine])
        yours = [s for s in snapshots if s.row.seat_of(interaction.user.id) == s.state.turn]
        if not yours:
            raise Refusal("Hints are for your own turn: wait until it is your go.")
        snapshot = yours[0]
        state: CheerioState = snapshot.state
        tables = await asyncio.to_thread(exact_tables)
        await self.bot.orchard.runner.mark_hinted(snapshot.id)
        which = f"Cheerio game {snapshot.id} · " if len(mine) > 1 else ""
        await send(interaction, which + hint_text(state, tables))

    async def _no_game_to_hint(self, user_id: int) -> str:
        """Why there is no hint: a daily game is not a game of this channel, and gets none."""
        dailies = getattr(self.bot.get_cog("DailyCog"), "dailies", None)
        if isinstance(dailies, Dailies) and await dailies.in_play(self.kind, user_id):
            return NO_DAILY_HINTS
        return "You have no Cheerio game in play in this channel."

    def render(self, snapshot: Snapshot) -> Rendered:
        state: CheerioState = snapshot.state
        players = names(snapshot)
        card = scorecard(state, plain_names(snapshot))
        happened = last_move(state, players)
        gone = left_note(players, state.active)
        if snapshot.row.status is not GameStatus.ACTIVE:
            return Rendered(self.finished(snapshot, happened, [card, *gone]))
        turn = snapshot.row.players[state.turn]
        left = ROLLS_PER_TURN - state.rolls
        dice = f"**{players[state.turn]}'s dice**: {dice_text(state)} · {plural(left, 'roll')} left"
        board = self.layout(
            snapshot,
            title(snapshot.row.kind),
            status(snapshot, [turn], happened),
            [card, *gone, dice],
            self._controls(snapshot, state),
        )
        return Rendered(board)

    def _controls(self, snapshot: Snapshot, state: CheerioState) -> list[Row]:
        """The dice themselves are the Keep / Release buttons: each die is shown once."""
        gid, ver = snapshot.id, snapshot.row.version
        no_rolls = state.rolls >= ROLLS_PER_TURN
        holds = [
            GameButton(
                gid,
                ver,
                "hold",
                str(i),
                label=f"Release {d}" if held else f"Keep {d}",
                emoji=self.bot.dice.emoji(d, held) or ("🔒" if held else None),
                style=discord.ButtonStyle.success if held else discord.ButtonStyle.secondary,
                disabled=no_rolls,
            )
            for i, (d, held) in enumerate(zip(state.dice, state.held, strict=True))
        ]
        free = state.held.count(False)
        label = (
            "No rolls left: score below"
            if no_rolls
            else "Keep fewer dice to roll"
            if not free
            else f"Roll {'all ' if free == len(state.dice) else ''}{plural(free, 'die', 'dice')}"
        )
        roll = GameButton(
            gid,
            ver,
            "roll",
            label=label,
            style=discord.ButtonStyle.primary,
            disabled=no_rolls or not free,
        )
        options = [
            discord.SelectOption(
                label=f"Score {plural(score(c, state.dice), 'point')} in {c.title()}", value=c
            )
            for c in open_categories(state.cards[state.turn])
        ]
        select = GameSelect(gid, ver, "score", options, placeholder="Score these dice in…")
        return [holds, [roll], [select]]


async def setup(bot: OrchardBot) -> None:
    await bot.add_cog(CheerioCog(bot))
