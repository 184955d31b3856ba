"""The slash commands every game has (/<game> new, rules, leaderboard), written once.

A game's cog subclasses :class:`GameCog` with its group name, text and ``render``; the lobby,
buttons, runner and storage are shared.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.answers import answer_publicly, send
from bot.boards import Board, Part, Rendered, Row, footer_of, names
from bot.components import Control, GameButton
from bot.interface import open_lobby, orchard_seat, refuse
from bot.model import GameStatus, Player
from bot.reviews import review_buttons
from bot.runner import Refusal, Snapshot
from bot.specs import GameSpec, title
from bot.wording import clipped, in_code, joined, plural, shown_width
from cogs.leaderboards import DEFAULT_ORDER, By, send_board

if TYPE_CHECKING:
    from bot.app import OrchardBot

NAME_WIDTH = 14  # "Orchard (Hard)" in full; "Orchard (Normal)" loses its end
Cell = int | None


@lru_cache(maxsize=4096)  # the same names, on every board of a game: cut once each
def short(name: str, width: int = NAME_WIDTH) -> str:
    """A name that fits a table column, cut with an ellipsis only beyond ``width`` cells (an
    emoji or CJK character takes two: :func:`bot.wording.shown_width`); its backticks cannot
    end the table's code block (:func:`bot.wording.in_code`). A number that tells two seats
    of one name apart (:func:`bot.boards.plain_names`: "Orchard (Hard) 2") is kept."""
    head, space, number = name.rpartition(" ")
    if space and number.isdigit() and len(number) == 1 and shown_width(name) > width:
        return in_code(f"{clipped(head, width - 2)} {number}")
    return in_code(clipped(name, width))


def padded(text: str, width: int) -> str:
    """``text`` filled with spaces to ``width`` cells: ``str.ljust`` counts characters, and a
    wide or zero-width one would shift the columns after it."""
    return text + " " * (width - shown_width(text))


def score_table(heads: Sequence[str], rows: Sequence[tuple[str, Sequence[Cell]]]) -> str:
    """A code-block table, a row per player and a column per category, narrow for phones.

    Names run down the side as typed (:func:`bot.boards.plain_names`: no Markdown in a code
    block), never cut to a stump: at most 14 cells and three per column keep a six-player
    table within 40 cells a line, measured as a monospace font shows them.
    """
    width = max([shown_width(short(name)) for name, _ in rows] + [1])
    columns = [max(3, len(h) + 1) for h in heads]
    lines = [" " * width + "".join(f"{h:>{w}}" for h, w in zip(heads, columns, strict=True))]
    for name, cells in rows:
        shown = (f"{'-' if c is None else c:>{w}}" for c, w in zip(cells, columns, strict=True))
        lines.append(padded(short(name), width) + "".join(shown))
    return "```\n" + "\n".join(lines) + "\n```"


def left_note(players: Sequence[str], active: Sequence[bool]) -> list[str]:
    """A line naming who has left, for a board whose card still shows their row (and whose
    standings place them below lower totals); none while everyone plays."""
    gone = [name for name, playing in zip(players, active, strict=True) if not playing]
    if not gone:
        return []
    has = "has" if len(gone) == 1 else "have"
    return [f"-# {joined(gone)} {has} left the game and cannot win; their scores stay on the card."]


def trophies(snapshot: Snapshot, seats: int) -> bool:
    """A trophy means a win: only a finished game of two or more seats has one (an abandoned
    game is nobody's loss, and a solo game is played for a high score)."""
    return snapshot.row.status is GameStatus.FINISHED and seats > 1


def ending(snapshot: Snapshot) -> str:
    """The standings' heading, marked when someone asked for a hint during the game."""
    word = "Game over" if snapshot.row.status is GameStatus.FINISHED else "Game abandoned"
    return word + (" · 💡 hinted" if snapshot.row.hinted else "")


def rematch(snapshot: Snapshot) -> list[Control]:
    """What a finished game's message keeps: one button to play again with the same seats."""
    primary = discord.ButtonStyle.primary
    label = "Rematch (same players)"
    again = GameButton(snapshot.id, snapshot.row.version, "rematch", label=label, style=primary)
    return [again, *review_buttons(snapshot)]


OPPONENT_HELP = "Play Orchard at once instead of opening a lobby (choosing a level does too)"
LEVEL_HELP = "How well Orchard plays (default normal); choosing one plays Orchard at once"


def opponent_chosen(opponent: str | None, level: str | None) -> tuple[str | None, str]:
    """``/x new``'s opponent and Orchard's level: a level chosen is Orchard wanted."""
    return ("orchard" if level is not None else opponent), level or "normal"


class GameCog(commands.GroupCog):
    """A game's UI: it draws every kind (variant) its spec declares."""

    spec: ClassVar[GameSpec]
    rules_text: ClassVar[str] = ""
    accent: ClassVar[int] = 0x5865F2  # the colour down the side of the game's boards

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
        opponent=OPPONENT_HELP,
        level=LEVEL_HELP,
    )
    async def new(
        self,
        interaction: discord.Interaction[Any],
        opponent: Literal["orchard"] | None = None,
        level: Literal["easy", "normal", "hard"] | None = None,
    ) -> None:
        against, chosen = opponent_chosen(opponent, level)
        await self.open(interaction, opponent=against, level=chosen)

    @app_commands.command(name="rules", description="The rules in brief (only you see them)")
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        await send(interaction, self.rules_text)

    @app_commands.command(name="leaderboard", description="This server's best players")
    @app_commands.describe(by="Rank by rating (the default), wins, best or average score")
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        by: By = DEFAULT_ORDER,
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
            answer_publicly(interaction)  # before any read: a slow one is deferred in public
            if interaction.guild_id is not None:
                options = {**await self.options_for(interaction.guild_id), **(options or {})}
            return await open_lobby(
                interaction, self.kind, options, variant, seats, start=bool(seats)
            )
        except Refusal as err:
            await refuse(interaction, err)
            return None

    async def options_for(self, guild_id: int) -> dict[str, Any]:
        """Engine options a new game takes from this server's settings (none by default)."""
        return {}

    def render(self, snapshot: Snapshot) -> Rendered:
        raise NotImplementedError

    def layout(
        self,
        snapshot: Snapshot,
        heading: str,
        status: str,
        body: Sequence[Part],
        rows: Sequence[Row] = (),
    ) -> Board:
        """The game's board in the one layout every game shares (:class:`bot.boards.Board`)."""
        return Board(self.accent, heading, status, list(body), list(rows), footer_of(snapshot))

    def finished(
        self,
        snapshot: Snapshot,
        happened: str = "",
        body: Sequence[Part] = (),
        unit: str = "",
    ) -> Board:
        """Final standings and a Rematch button, for any game."""
        heading = f"{title(snapshot.row.kind)} · {ending(snapshot)}"
        parts = [self.standings(snapshot, unit), *body]
        return self.layout(snapshot, heading, happened, parts, [rematch(snapshot)])

    def standings(self, snapshot: Snapshot, unit: str = "") -> str:
        """A line per seat, best first (ties share a place); ``unit`` names what is counted."""
        results = self.bot.orchard.runner.engine(snapshot.row.kind).results(snapshot.state)
        players = names(snapshot)
        won = trophies(snapshot, len(results))
        lines = [
            f"{r.placement}. {players[r.seat]}: {self.final_score(snapshot, r.seat, r.score, unit)}"
            + (" 🏆" if won and r.won else "")
            for r in sorted(results, key=lambda r: r.placement)
        ]
        return "\n".join(lines)

    def final_score(self, snapshot: Snapshot, seat: int, score: int, unit: str = "") -> str:
        """A seat's score in the standings; a game may add what it is made of."""
        return plural(score, unit) if unit else str(score)

    async def on_ui(
        self, interaction: discord.Interaction[Any], snapshot: Snapshot, verb: str, arg: str
    ) -> None:
        raise Refusal("That button does nothing in this game.")
