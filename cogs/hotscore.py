"""Hot Score in Discord: /hotscore new|rules|leaderboard and the duel's message."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.boards import Rendered, names, whose_turn
from bot.components import GameButton, view_of
from bot.games.hotscore import (
    HotscoreState,
    current_throw,
    describe,
    log_lines,
    sign_values,
    stakes,
    throw_to_beat,
)
from bot.runner import Snapshot
from bot.specs import HOTSCORE
from cogs.game import GameCog

if TYPE_CHECKING:
    from bot.app import OrchardBot

RULES = """\
**Hot Score** (2 players): first to **exactly 100** wins.
• Throw two dice. 7 or 11 is **HOT** (15 points), 6, 8, 10 or 12 is **NEAR** (5), anything \
else is **FAR** (10). Then stick, or throw the **Bonus Die** and add or subtract it.
• The other player then tries to beat you, and the winner scores their own throw's points. \
Checked in this order:
  1. Three of a kind against a HOT or another three of a kind: a **double challenge**.
  2. Against a two-dice HOT, the other HOT on three dice forces a **challenge**.
  3. Two dice beat three.
  4. HOT (or three of a kind) beats NEAR beats FAR; between FARs the one closer to 7 or 11 wins.
  5. Anything else (same dice count and bracket, FARs equally close) is a **challenge**.
• **Challenge**: a die sets odd or even, both throw three dice, more dice of that parity \
wins (then the lower sum of them). A level-n challenge moves **10 × n**: the winner gains it, \
the loser loses it (not below 0 unless the server allows). A tie is thrown again one level \
up: ±10, then ±20, ±30…; a double challenge starts at ±20.
• Passing 100 bounces back (95 + 15 = 90). The loser (of a round or a challenge) starts the \
next round."""


BAR = 10


def bar(score: int) -> str:
    filled = min(BAR, score * BAR // 100)
    return "█" * filled + "░" * (BAR - filled) + f" {score}/100"


class HotscoreCog(GameCog, group_name="hotscore", group_description="Hot Score: race to 100"):
    spec = HOTSCORE
    rules_text = RULES

    async def options_for(self, guild_id: int) -> dict[str, Any]:
        return {"floor_zero": (await self.bot.orchard.settings.get(guild_id)).hotscore_floor}

    def render(self, snapshot: Snapshot) -> Rendered:
        state: HotscoreState = snapshot.state
        players = names(snapshot)
        embed = discord.Embed(title=f"Hot Score · game {snapshot.id} · round {state.round}")
        embed.description = "\n".join(
            f"`{bar(score)}` **{name}**" for name, score in zip(players, state.scores, strict=True)
        )
        self._add_play(embed, state, players)
        recent = log_lines(state, players)[-3:]
        if recent:
            embed.add_field(name="Lately", value="\n".join(recent), inline=False)
        if snapshot.row.status != "active":
            return self.finished(snapshot, embed)
        waiting = sorted(self.bot.orchard.runner.engine(self.kind).to_act(state))
        who = [snapshot.row.players[s] for s in waiting]
        return Rendered(embed=embed, view=self._controls(snapshot, state), content=whose_turn(who))

    def _add_play(self, embed: discord.Embed, state: HotscoreState, players: list[str]) -> None:
        if state.level:
            target = f"**{state.parity.upper()}**" if state.parity else "not thrown yet"
            thrown = "\n".join(
                f"{players[s]}: {' '.join(map(str, d)) if d else '…'}"
                for s, d in enumerate(state.challenge_dice)
            )
            embed.add_field(
                name=f"Challenge ×{state.level} · stakes ±{stakes(state)}",
                value=f"Target parity: {target}\n{thrown}",
                inline=False,
            )
            return
        throw = current_throw(state)
        if throw is not None:
            embed.add_field(name=f"{players[state.turn]} threw", value=describe(throw))
        beat = throw_to_beat(state)
        if beat is not None:
            embed.add_field(name=f"To beat ({players[state.starter]})", value=describe(beat))

    def _controls(self, snapshot: Snapshot, state: HotscoreState) -> discord.ui.View:
        gid, ver = snapshot.id, snapshot.row.version
        primary = discord.ButtonStyle.primary
        if state.phase == "choose":
            return view_of(
                GameButton(gid, ver, "stick", label="Stick", style=primary),
                GameButton(gid, ver, "bonus", label="Bonus Die"),
            )
        if state.phase == "sign":
            plus, minus = sign_values(state)
            throw = current_throw(state)
            bonus = throw.dice[2] if throw is not None else 0
            return view_of(
                GameButton(gid, ver, "sign", "+", label=f"+{bonus} → {plus}", style=primary),
                GameButton(gid, ver, "sign", "-", label=f"−{bonus} → {minus}", style=primary),
            )
        label = {"target": "Throw the parity die", "challenge": "Throw 3 dice"}.get(
            state.phase, "Throw"
        )
        return view_of(GameButton(gid, ver, "throw", label=label, style=primary))


async def setup(bot: OrchardBot) -> None:
    await bot.add_cog(HotscoreCog(bot))
