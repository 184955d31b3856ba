"""Apple Jack in Discord: /applejack new|rules|leaderboard and the shared game message."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from bot.boards import Rendered, names, whose_turn
from bot.components import GameButton, GameSelect, view_of
from bot.games.applejack import (
    CATEGORIES,
    ApplejackState,
    call_preview,
    open_categories,
    rerolls_left,
    round_totals,
    totals,
)
from bot.runner import Snapshot
from bot.specs import APPLEJACK
from cogs.game import GameCog, die

if TYPE_CHECKING:
    from bot.app import OrchardBot

RULES = """\
**Apple Jack** (2 to 6 players): Cheerio played together, with a **caller**.
• Everyone rolls five dice at once; all dice are public. In each of up to two reroll steps \
the caller decides first (pick dice to reroll, or "I'll hold"), then everyone else in seat \
order. If all hold, the turn ends.
• Then the caller picks a category still open this round, and **everyone** scores their own \
dice in it. The caller role passes on each turn.
• Eight categories: ones to sixes (ones wild, no five-of-a-kind bonus), Cheerio (20 honest, \
10 with wild ones) and Sum (all five dice, ones count 1).
• As many rounds as players, each opened by a different caller. On a round's last turn \
everyone rolls on their own. Highest total wins."""


def player_lines(snapshot: Snapshot, state: ApplejackState) -> str:
    lines = []
    for seat, player in enumerate(snapshot.row.players):
        if not state.active[seat]:
            lines.append(f"~~{player.name}~~ (left)")
            continue
        dice = "  ".join(
            f"**[{die(d)}]**" if state.decided[seat] and picked else die(d)
            for d, picked in zip(state.dice[seat], state.picked[seat], strict=True)
        )
        tags = " 📣 caller" if seat == state.caller and state.phase != "solo" else ""
        if state.decided[seat]:
            chose = [str(i + 1) for i, p in enumerate(state.picked[seat]) if p]
            tags += f" · rerolling {', '.join(chose)}" if chose else " · holds"
        lines.append(f"**{player.name}**{tags}\n{dice}")
    return "\n".join(lines)


def round_card(snapshot: Snapshot, state: ApplejackState) -> str:
    """This round's card, a column per player, so everyone sees what each call gave whom.

    Names are cut to 6 characters: 6 players make 50-character lines, well inside a field.
    """
    lines = ["        " + " ".join(f"{name[:6]:>6}" for name in names(snapshot))]
    for i, category in enumerate(CATEGORIES):
        cells = ("-" if p is None else str(p) for p in (c[state.round][i] for c in state.cards))
        lines.append(f"{category.title():<8}" + " ".join(f"{cell:>6}" for cell in cells))
    return "```\n" + "\n".join(lines) + "\n```"


def scoreboard(snapshot: Snapshot, state: ApplejackState) -> str:
    rounds = len(state.cards[0])
    head = "        " + " ".join(f"{'R' + str(r + 1):>4}" for r in range(rounds)) + " Total"
    lines = [head]
    for seat, name in enumerate(names(snapshot)):
        subtotals = round_totals(state)[seat]
        lines.append(
            f"{name[:7]:<8}" + " ".join(f"{t:>4}" for t in subtotals) + f" {totals(state)[seat]:>5}"
        )
    return "```\n" + "\n".join(lines) + "\n```"


class ApplejackCog(
    GameCog, group_name="applejack", group_description="Apple Jack: Cheerio with a caller"
):
    spec = APPLEJACK
    rules_text = RULES

    def render(self, snapshot: Snapshot) -> Rendered:
        state: ApplejackState = snapshot.state
        embed = discord.Embed(title=f"Apple Jack · game {snapshot.id} · round {state.round + 1}")
        embed.add_field(name="Dice", value=player_lines(snapshot, state), inline=False)
        embed.add_field(name="Open this round", value=", ".join(open_categories(state)) or "-")
        embed.add_field(
            name=f"Round {state.round + 1} card", value=round_card(snapshot, state), inline=False
        )
        embed.add_field(name="Scores", value=scoreboard(snapshot, state), inline=False)
        if state.last_call is not None:
            caller, category, points = state.last_call
            got = ", ".join(
                f"{n} {p}" for n, p in zip(names(snapshot), points, strict=True) if p is not None
            )
            embed.set_footer(text=f"{names(snapshot)[caller]} called {category}: {got}.")
        if snapshot.row.status != "active":
            return self.finished(snapshot, embed)
        return self._in_play(snapshot, state, embed)

    def _in_play(self, snapshot: Snapshot, state: ApplejackState, embed: discord.Embed) -> Rendered:
        waiting = sorted(self.bot.orchard.runner.engine(self.kind).to_act(state))
        who = [snapshot.row.players[s] for s in waiting]
        if state.phase == "call":
            embed.description = f"**{who[0].name}** calls the category."
            view = self._call_controls(snapshot, state)
        elif state.phase == "solo":
            embed.description = "Last turn of the round: everyone rerolls on their own. " + (
                "Waiting for " + ", ".join(p.name for p in who) + "."
            )
            view = self._solo_controls(snapshot)
        else:
            left = rerolls_left(state, waiting[0])
            embed.description = (
                f"Reroll step {state.step} of 2 · **{who[0].name}** decides ({left} left)."
            )
            view = self._step_controls(snapshot, state, waiting[0])
        return Rendered(embed=embed, view=view, content=whose_turn(who))

    def _step_controls(
        self, snapshot: Snapshot, state: ApplejackState, seat: int
    ) -> discord.ui.View:
        gid, ver = snapshot.id, snapshot.row.version
        picks = [
            GameButton(
                gid,
                ver,
                "pick",
                str(i),
                label=str(d),
                emoji="🎲" if picked else None,
                style=discord.ButtonStyle.danger if picked else discord.ButtonStyle.secondary,
                row=0,
            )
            for i, (d, picked) in enumerate(zip(state.dice[seat], state.picked[seat], strict=True))
        ]
        reroll = GameButton(
            gid,
            ver,
            "reroll",
            label="Reroll selected",
            style=discord.ButtonStyle.primary,
            row=1,
            disabled=not any(state.picked[seat]),
        )
        hold = GameButton(gid, ver, "hold", label="I'll hold", row=1)
        return view_of(*picks, reroll, hold)

    def _solo_controls(self, snapshot: Snapshot) -> discord.ui.View:
        """Everyone acts at once, so each choice is one whole action: no shared toggles."""
        options = [discord.SelectOption(label=f"Die {i + 1}", value=str(i)) for i in range(5)]
        select = GameSelect(
            snapshot.id,
            snapshot.row.version,
            "reroll",
            options,
            placeholder="Reroll which of your dice?",
            max_values=5,
            row=0,
        )
        done = GameButton(
            snapshot.id, snapshot.row.version, "hold", label="I'll hold (done)", row=1
        )
        return view_of(select, done)

    def _call_controls(self, snapshot: Snapshot, state: ApplejackState) -> discord.ui.View:
        players = names(snapshot)
        options = []
        for category, points in call_preview(state):
            each = " · ".join(
                f"{players[s][:10]} {p}" for s, p in enumerate(points) if p is not None
            )
            options.append(
                discord.SelectOption(label=category.title(), value=category, description=each[:100])
            )
        select = GameSelect(
            snapshot.id, snapshot.row.version, "call", options, placeholder="Call category…"
        )
        return view_of(select)


async def setup(bot: OrchardBot) -> None:
    await bot.add_cog(ApplejackCog(bot))
