"""Apple Jack in Discord: /applejack new|rules|leaderboard and the shared game message."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord

from bot.boards import Rendered, Row, names, plain_names, status
from bot.components import Control, GameButton, GameSelect
from bot.games.applejack import (
    CATEGORIES,
    ApplejackState,
    call_preview,
    open_categories,
    rerolls_left,
    round_totals,
    totals,
)
from bot.games.cheerio import DICE
from bot.model import GameStatus
from bot.runner import Snapshot
from bot.specs import APPLEJACK, title
from bot.wording import joined, plural, shortened
from cogs.game import GameCog, left_note, score_table

if TYPE_CHECKING:
    from bot.app import OrchardBot

RULES = """\
**Apple Jack** (2 to 6 players): Cheerio played together, with a **caller**.
• Everyone rolls five dice at once; all dice are public. In each of up to two reroll steps \
the caller decides first (pick dice to reroll, or **Hold: keep all five**), then everyone \
else in seat order. If all hold, the turn ends.
• Then the caller picks a category still open this round, and **everyone** scores their own \
dice in it. The caller role passes on each turn.
• Eight categories: ones to sixes (ones wild, no five-of-a-kind bonus), Cheerio (20 honest, \
10 with wild ones) and Sum (all five dice, ones count 1).
• As many rounds as players, each opened by a different caller. On a round's last turn \
everyone rolls on their own. Highest total wins."""


HEADS = ("1", "2", "3", "4", "5", "6", "Ch", "Sum")
"""The round card's columns: the faces, Cheerio and Sum."""

HOW_MANY = ("a", "two", "three", "four")


def reroll_choice(faces: Sequence[int]) -> str:
    """The dice a player chose to reroll, by face, lowest first: "two 1s and a 5". Never by
    position: "die 1" beside dice showing ones reads as rerolling a one."""
    if len(faces) == DICE:
        return "all five"
    counts = Counter(faces)
    return joined(
        [f"{HOW_MANY[n - 1]} {face}" + ("s" if n > 1 else "") for face, n in sorted(counts.items())]
    )


class ApplejackCog(
    GameCog, group_name="applejack", group_description="Apple Jack: Cheerio with a caller"
):
    spec = APPLEJACK
    rules_text = RULES
    accent = 0x2E7D32  # apple green

    def render(self, snapshot: Snapshot) -> Rendered:
        state: ApplejackState = snapshot.state
        players = names(snapshot)
        rounds = len(state.cards[0])
        heading = f"{title(snapshot.row.kind)} · round {state.round + 1} of {rounds}"
        happened = self._last_call(state, players)
        card = f"**Round {state.round + 1} card**\n" + self._round_card(state, snapshot)
        if (
            snapshot.row.status is not GameStatus.ACTIVE
        ):  # the leavers' lines are gone: say who left
            gone = left_note(players, state.active)
            return Rendered(self.finished(snapshot, happened, [card, *gone]))
        waiting = sorted(self.bot.orchard.runner.engine(self.kind).to_act(state))
        who = [snapshot.row.players[s] for s in waiting]
        if state.phase == "call":
            rows: list[Row] = [self._call_controls(snapshot, state)]
            doing = f"{players[waiting[0]]} calls the category everyone scores in."
        elif state.phase == "solo":
            rows = self._solo_controls(snapshot)
            doing = "Last turn of the round: everyone rerolls on their own."
        else:
            left = rerolls_left(state, waiting[0])
            rerolls = plural(left, "reroll")
            doing = f"Reroll step {state.step} of 2 · {players[waiting[0]]} has {rerolls} left."
            rows = self._step_controls(snapshot, state, waiting[0])
        open_now = ", ".join(c.title() for c in open_categories(state)) or "-"
        body = [self._dice(state, players) + f"\n-# {doing} Open: {open_now}", card]
        board = self.layout(snapshot, heading, status(snapshot, who, happened), body, rows)
        return Rendered(board)

    def _dice(self, state: ApplejackState, players: list[str]) -> str:
        """A line per player: dice, caller, choice and total (all dice are public)."""
        lines = []
        for seat, name in enumerate(players):
            if not state.active[seat]:
                lines.append(f"~~{name}~~ (left)")
                continue
            dice = self.bot.dice.line(state.dice[seat])
            tags = " 📣 caller" if seat == state.caller and state.phase != "solo" else ""
            if state.phase == "solo":  # nothing is chosen on a last turn: done, or not yet
                left = rerolls_left(state, seat)
                tags += " · done" if state.decided[seat] else f" · {plural(left, 'reroll')} left"
            elif state.decided[seat]:
                chose = [d for d, p in zip(state.dice[seat], state.picked[seat], strict=True) if p]
                tags += f" · rerolls {reroll_choice(chose)}" if chose else " · holds"
            lines.append(f"**{name}**{tags} {dice} · {self._total(state, seat)}")
        return "\n".join(lines)

    def final_score(self, snapshot: Snapshot, seat: int, score: int, unit: str = "") -> str:
        """The standings' total with each round's share: the last board shows only the last
        round's card, so the total would not add up from what is shown."""
        return self._total(snapshot.state, seat)

    @staticmethod
    def _total(state: ApplejackState, seat: int) -> str:
        """A seat's total; from round 2 on, with each round's share, earlier rounds' cards
        being off the board: "132 (rounds 87, 45)"."""
        total = str(totals(state)[seat])
        if state.round == 0:
            return total
        shares = ", ".join(str(t) for t in round_totals(state)[seat][: state.round + 1])
        return f"{total} (rounds {shares})"

    def _round_card(self, state: ApplejackState, snapshot: Snapshot) -> str:
        """This round's card, a row per player, so everyone sees what each call gave whom."""
        players = plain_names(snapshot)  # a code block shows them as typed
        rows = [
            (name, cards[state.round]) for name, cards in zip(players, state.cards, strict=True)
        ]
        return score_table(HEADS, rows)

    def _last_call(self, state: ApplejackState, players: list[str]) -> str:
        if state.last_call is None:
            return ""
        caller, category, points = state.last_call
        got = ", ".join(f"{n} {p}" for n, p in zip(players, points, strict=True) if p is not None)
        if len(state.called) % len(CATEGORIES) == 0:  # a round's last turn scored (the next
            # round's card is empty, or the game ended on it full): nobody called it
            return f"{category.title()} scored for everyone on the round's last turn: {got}."
        return f"{players[caller]} called {category.title()}: {got}."

    def _step_controls(self, snapshot: Snapshot, state: ApplejackState, seat: int) -> list[Row]:
        gid, ver = snapshot.id, snapshot.row.version
        picks = [
            GameButton(
                gid,
                ver,
                "pick",
                str(i),
                label=f"Don't reroll {d}" if picked else f"Reroll {d}",
                emoji=self.bot.dice.emoji(d) or ("🎲" if picked else None),
                style=discord.ButtonStyle.danger if picked else discord.ButtonStyle.secondary,
            )
            for i, (d, picked) in enumerate(zip(state.dice[seat], state.picked[seat], strict=True))
        ]
        count = sum(state.picked[seat])
        reroll = GameButton(
            gid,
            ver,
            "reroll",
            label=f"Reroll {plural(count, 'die', 'dice')}" if count else "Pick dice to reroll",
            style=discord.ButtonStyle.primary,
            disabled=not count,
        )
        hold = GameButton(gid, ver, "hold", label="Hold: keep all five")
        return [picks, [reroll, hold]]

    def _solo_controls(self, snapshot: Snapshot) -> list[Row]:
        """Everyone acts at once, so each choice is one whole action: no shared toggles. One
        menu serves everyone, so its options name dice by place ("from the left"), not face."""
        ordinal = ("first", "second", "third", "fourth", "fifth")
        options = [
            discord.SelectOption(label=f"Reroll your {ordinal[i]} die from the left", value=str(i))
            for i in range(5)
        ]
        select = GameSelect(
            snapshot.id,
            snapshot.row.version,
            "reroll",
            options,
            placeholder="Reroll which of your dice?",
            max_values=5,
        )
        done = GameButton(snapshot.id, snapshot.row.version, "hold", label="Hold: keep all five")
        return [[select], [done]]

    def _call_controls(self, snapshot: Snapshot, state: ApplejackState) -> list[Control]:
        """The caller's select: each option says what the call gives everyone, the caller
        first (a phone shows only the start of a long description), names as typed (an
        option shows no Markdown), cut to Discord's 100 characters between graphemes."""
        players = plain_names(snapshot)
        order = sorted(range(len(players)), key=lambda s: s != state.caller)
        options = []
        for category, points in call_preview(state):
            each = " · ".join(f"{players[s]} {points[s]}" for s in order if points[s] is not None)
            options.append(
                discord.SelectOption(
                    label=f"Call {category.title()}",
                    value=category,
                    description=shortened(each, 100),
                )
            )
        select = GameSelect(
            snapshot.id, snapshot.row.version, "call", options, placeholder="Call a category…"
        )
        return [select]


async def setup(bot: OrchardBot) -> None:
    await bot.add_cog(ApplejackCog(bot))
