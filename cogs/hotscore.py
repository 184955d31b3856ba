"""Hot Score in Discord: /hotscore new|rules|leaderboard and the duel's message."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord

from bot.boards import Rendered, names, status
from bot.components import Control, GameButton
from bot.games.hotscore import (
    CHALLENGE_STAKE,
    GOAL,
    SIGNS,
    HotscoreState,
    Throw,
    bracket,
    challenge_name,
    challenge_tally,
    current_throw,
    describe,
    judge,
    log_lines,
    move_towards_100,
    points_for,
    stakes,
    throw_to_beat,
    value,
)
from bot.model import GameStatus
from bot.runner import Snapshot
from bot.specs import HOTSCORE, title
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
    """The score as a bar of ten blocks (below 0, with no floor set: empty)."""
    filled = min(BAR, max(0, score) * BAR // 100)
    return "█" * filled + "░" * (BAR - filled)


class HotscoreCog(GameCog, group_name="hotscore", group_description="Hot Score: race to 100"):
    spec = HOTSCORE
    rules_text = RULES
    accent = 0xE64A19  # hot orange

    async def options_for(self, guild_id: int) -> dict[str, Any]:
        return {"floor_zero": (await self.bot.orchard.settings.get(guild_id)).hotscore_floor}

    def render(self, snapshot: Snapshot) -> Rendered:
        state: HotscoreState = snapshot.state
        players = names(snapshot)
        log = log_lines(state, players)
        happened = log[-1] if log else ""
        scores = "\n".join(  # name and score first: a screen reader reads out every block
            f"**{name}** {score}/100 `{bar(score)}`"
            for name, score in zip(players, state.scores, strict=True)
        )
        live = snapshot.row.status is GameStatus.ACTIVE
        body = [scores, *self._play(state, players, live)]
        if len(log) > 1:
            body.append("\n".join(f"-# {line}" for line in log[-3:-1]))
        if snapshot.row.status is not GameStatus.ACTIVE:
            return Rendered(self.finished(snapshot, happened, body, unit="point"))
        waiting = sorted(self.bot.orchard.runner.engine(self.kind).to_act(state))
        who = [snapshot.row.players[s] for s in waiting]
        heading = f"{title(snapshot.row.kind)} · round {state.round}"
        rows = [self._controls(snapshot, state)]
        board = self.layout(snapshot, heading, status(snapshot, who, happened), body, rows)
        return Rendered(board)

    def _throw(self, throw: Throw) -> str:
        """Dice as pictures, then what they make: ``⚄⚄⚀ 5+5-1 = 9 FAR``."""
        return f"{self.bot.dice.line(throw.dice)} {describe(throw)}"

    def _play(self, state: HotscoreState, players: list[str], live: bool) -> list[str]:
        if state.level:
            return [self._challenge(state, players, live)]
        lines = []
        beat = throw_to_beat(state)
        if beat is not None:
            lines.append(f"{players[state.starter]}'s throw to beat: {self._throw(beat)}")
        throw = current_throw(state)
        if throw is not None:
            lines.append(f"**{players[state.turn]} threw** {self._throw(throw)}")
        return ["\n".join(lines)] if lines else []

    def _challenge(self, state: HotscoreState, players: list[str], live: bool) -> str:
        """The challenge's stakes, how it is won while it is played (a first challenge is new
        to most players), and each player's three dice with how many match: on a finished
        board (a player left mid-challenge), only the dice thrown, never a "…" to wait for."""
        heading = f"**Challenge ×{state.level}** · stakes ±{stakes(state)}"
        if state.parity:
            heading += f" · **{state.parity.upper()}**"
        thrown = [
            f"{name}: {self._tally(dice, state.parity)}"
            for name, dice in zip(players, state.challenge_dice, strict=True)
            if dice or live
        ]
        how = [challenge_rule(state, players[state.starter])] if live else []
        return "\n".join([heading, *how, *thrown])

    def _tally(self, dice: tuple[int, ...], parity: str) -> str:
        """Three challenge dice and what they count for: ``⚄⚅⚀ · 2 odd, sum 6``."""
        if not dice:
            return "…"
        count, total = challenge_tally(dice, parity)
        return f"{self.bot.dice.line(dice)} · {count} {parity}, sum {total}"

    def _controls(self, snapshot: Snapshot, state: HotscoreState) -> list[Control]:
        gid, ver = snapshot.id, snapshot.row.version
        primary = discord.ButtonStyle.primary
        throw, beat = current_throw(state), throw_to_beat(state)
        score = state.scores[state.turn]
        if state.phase == "choose" and throw is not None:
            stick = f"Stick on {value(throw)} · {effect(throw, beat, score)}"
            return [
                GameButton(gid, ver, "stick", label=stick, style=primary),
                GameButton(gid, ver, "bonus", label="Throw the Bonus Die: add or subtract it"),
            ]
        if state.phase == "sign" and throw is not None:
            return [
                GameButton(
                    gid, ver, "sign", sign, label=choice(throw, sign, beat, score), style=primary
                )
                for sign in SIGNS
            ]
        label = {
            "target": "Throw the parity die (odd or even)",
            "challenge": "Throw 3 challenge dice",
        }.get(state.phase, "Throw 2 dice")
        return [GameButton(gid, ver, "throw", label=label, style=primary)]


def challenge_rule(state: HotscoreState, starter: str) -> str:
    """What the challenge's players aim for, before and after the die that sets it."""
    if not state.parity:
        return (
            f"{starter} throws one die for odd or even; then you both throw three dice, "
            "and more dice of that kind win."
        )
    return (
        f"More {state.parity} dice win; with as many, the lower sum of them wins. "
        f"Equal again: thrown again for ±{stakes(state) + CHALLENGE_STAKE}."
    )


def choice(throw: Throw, sign: str, beat: Throw | None, score: int) -> str:
    """A Bonus Die sign as a button: ``+4 → 6 · NEAR · 5 pts``."""
    signed = replace(throw, bonus_sign=SIGNS[sign])
    shown = "+" if sign == "+" else "−"
    return f"{shown}{throw.dice[2]} → {value(signed)} · {effect(signed, beat, score)}"


def effect(throw: Throw, beat: Throw | None, score: int) -> str:
    """What a finished throw brings to a player on ``score``: the starter's is worth its
    bracket's points if it wins; the answer's settles the round against the throw to beat,
    so it says how. Points that would pass 100 say where they bounce back to."""
    kind = bracket(throw)
    if beat is None:
        return f"{kind} · {gain(points_for(throw), score)}"
    verdict = judge(beat, throw)
    if verdict.winner == 1:
        return f"{kind} · you win {gain(verdict.points, score)}"
    if verdict.winner == 0:
        return f"{kind} · you lose the round"
    return f"{kind} · {challenge_name(verdict.challenge)} (±{CHALLENGE_STAKE * verdict.challenge})"


def gain(points: int, score: int) -> str:
    """``15 pts``; ``15 pts → 90`` where they pass 100 and bounce back; ``→ 100`` wins."""
    after = move_towards_100(score, points)
    return f"{points} pts" if after == score + points < GOAL else f"{points} pts → {after}"


async def setup(bot: OrchardBot) -> None:
    await bot.add_cog(HotscoreCog(bot))
