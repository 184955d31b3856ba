"""Leaderboards: one game's standings in a server, a page at a time, with buttons to turn
them that still work after a restart. /leaderboard (cogs/servers.py) and each game's
/<game> leaderboard (cogs/game.py) show them alike."""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import ui

from bot.answers import answer_publicly, send, update
from bot.interface import answering
from bot.ratings import display_rating
from bot.runner import Refusal
from bot.specs import lower_is_better, title
from bot.wording import plural

if TYPE_CHECKING:
    from bot.app import OrchardBot

log = logging.getLogger(__name__)

PAGE = 10

By = Literal["rating", "wins", "best", "average"]
DEFAULT_ORDER: By = "rating"
"""How every leaderboard command ranks unless told: /leaderboard and /<game> leaderboard show
one game's board alike, by the rating /help explains."""


def value_text(by: str, value: float) -> str:
    """A board's ranked figure: a rating on its display scale, a win count with its noun."""
    if by == "rating":
        return f"rating {display_rating(value)}"
    if by == "wins":
        return plural(round(value), "win")
    return f"{by} {value:.1f}" if by == "average" else f"{by} {value:.0f}"


def board_figures(by: str, value: float, record: tuple[int, int, float, float, int] | None) -> str:
    """The ranked figure in bold, then the player's other figures: wins, games, best, average.
    Wins say of how many games with people when some games were not, as /stats does, and are
    left out when none was."""
    wins, games, best, average, people = record or (0, 0, 0.0, 0.0, 0)
    figures = {
        "wins": wins_in(wins, people, games),
        "games": plural(games, "game"),
        "best": f"best {best:.0f}",
        "average": f"average {average:.1f}",
    }
    head = value_text(by, value) if by == "rating" else figures.pop(by)
    return f"**{head}** · " + " · ".join(figure for figure in figures.values() if figure)


def rank_of(rows: list[tuple[int, float, int]], index: int, by: str) -> int:
    """The rank of a board's line ``index``: lines whose ranked figure reads the same share
    the first one's (1, 1, 3), as on the daily board; an order among them is no lead."""
    figure = value_text(by, rows[index][1])
    while index and value_text(by, rows[index - 1][1]) == figure:
        index -= 1
    return index + 1


async def board_page(
    bot: OrchardBot, guild_id: int, kind: str, by: str, page: int, asker: int | None
) -> tuple[discord.Embed, ui.View]:
    """One page of a board (10 lines that read well on a phone) and the asker's own rank.

    The board is public, so its rank line is always that of whoever ran the command (carried
    in the page buttons), never of whoever last turned the page.
    """
    lower = lower_is_better(kind)
    board = bot.orchard.store.leaderboard_with_records
    rows, records = await board(guild_id, kind, by, lower_is_better=lower)
    pages = max(1, math.ceil(len(rows) / PAGE))
    page = min(max(page, 0), pages - 1)
    lines = [
        f"**{rank_of(rows, i, by)}.** <@{user}> · " + board_figures(by, value, records.get(user))
        for i, (user, value, _) in enumerate(rows)
        if page * PAGE <= i < (page + 1) * PAGE
    ]
    mine = next((i for i, row in enumerate(rows) if row[0] == asker), None)
    if mine is not None:
        value = value_text(by, rows[mine][1])
        lines.append(f"\n<@{asker}>: rank {rank_of(rows, mine, by)} of {len(rows)} ({value})")
    embed = discord.Embed(
        title=f"{title(kind)} · by {by}", description="\n".join(lines) or empty_board(by, records)
    )
    counted = " · scores are tiles left: fewer is better" if lower else ""
    embed.set_footer(text=f"Page {page + 1} of {pages}{counted}")
    view = ui.View(timeout=None)
    view.add_item(BoardPage(kind, by, page - 1, asker, "◀ Previous", disabled=page == 0))
    view.add_item(BoardPage(kind, by, page + 1, asker, "Next ▶", disabled=page >= pages - 1))
    return embed, view


def empty_board(by: str, records: dict[int, Any]) -> str:
    """What an empty board says: a board by rating or wins counts only games between people,
    so one left empty by solo games (or Orchard's) says so, not that none were played."""
    if records and by in ("rating", "wins"):
        return "No games between people here yet: only they count for wins and ratings."
    return "No finished games here yet."


class BoardPage(
    ui.DynamicItem[ui.Button[Any]],
    template=r"orcb:(?P<kind>[a-z]{1,20}):(?P<by>[a-z]{1,10}):(?P<page>-?[0-9]{1,6})"
    r"(?::(?P<asker>[0-9]{1,20}))?",
):
    """A page button on a leaderboard; persistent like game buttons.

    ``asker`` is who ran the command (absent on buttons from before it was carried).
    """

    def __init__(
        self,
        kind: str,
        by: str,
        page: int,
        asker: int | None = None,
        label: str = "",
        *,
        disabled: bool = False,
    ) -> None:
        self.kind, self.by, self.page, self.asker = kind, by, page, asker
        custom = f"orcb:{kind}:{by}:{page}" + ("" if asker is None else f":{asker}")
        super().__init__(ui.Button(label=label or "page", disabled=disabled, custom_id=custom))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: ui.Item[Any], match: Any
    ) -> BoardPage:
        asker = int(match["asker"]) if match["asker"] else None
        return cls(match["kind"], match["by"], int(match["page"]), asker)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        async with answering(interaction, None):
            await self._turn(interaction)

    async def _turn(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.guild_id is None or self.by not in ("rating", "wins", "best", "average"):
            raise Refusal("That board is not available.")
        embed, view = await board_page(
            interaction.client, interaction.guild_id, self.kind, self.by, self.page, self.asker
        )
        if not await update(
            interaction, embed=embed, view=view, allowed_mentions=discord.AllowedMentions.none()
        ):
            log.info("a board page was turned too late for Discord to show it")


async def send_board(
    interaction: discord.Interaction[Any], kind: str, by: str = DEFAULT_ORDER
) -> None:
    answer_publicly(interaction)
    if interaction.guild_id is None:
        raise Refusal("Leaderboards belong to a server: ask me there.")
    embed, view = await board_page(
        interaction.client, interaction.guild_id, kind, by, 0, interaction.user.id
    )
    await send(
        interaction,
        ephemeral=False,
        embed=embed,
        view=view,
        allowed_mentions=discord.AllowedMentions.none(),
    )


def wins_in(wins: int, people: int, games: int) -> str:
    """Wins, which only games between people give: when the ``games`` counted beside them
    include solo ones or Orchard's, it says of how many ("2 wins in 3 games with people").
    Nothing when none was with people: "0 wins" after solo games reads as three defeats, and
    beside a game won against Orchard as a contradiction."""
    if not people:
        return ""
    if people == games:
        return plural(wins, "win")
    return f"{plural(wins, 'win')} in {plural(people, 'game')} with people"
