"""Hot Score's review: the chance of winning the round each decision gave up.

A player decides twice at most in a round: stick on two dice or throw the Bonus Die, then the
Bonus Die's sign. Hard's exact values (:func:`bot.ai.hotscore_players.option_values`, the
"win" objective: a challenge counts as half a win) give each option's chance of winning the
round; a decision's cost is the best option's chance minus the chosen one's. The starter's
chances assume the answer replies as well as it can (Hard's own assumption). A move the clock
made for a late player is no decision of theirs: it is counted apart. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.ai.hotscore_players import option_values
from bot.games.hotscore import ENGINE, Bonus, Sign, Stick, current_throw, throw_to_beat
from bot.model import FORFEIT_VERB, Move, MoveSource

COSTLESS = 1e-12  # float noise: a decision this close to the best one gave nothing up
WORDS = {
    "stick": "stick",
    "bonus": "throw the Bonus Die",
    "+": "add the Bonus Die",
    "-": "take the Bonus Die away",
}


@dataclass(frozen=True)
class RoundDecision:
    round: int
    dice: tuple[int, ...]
    chose: str
    best: str
    chance: float  # of winning the round after the chosen option
    cost: float  # the chance of winning the round given up (0 for a best option)
    clock: bool = False  # made by the clock when the player's time ran out, not by them


def review(
    seed: int, players: int, options: Mapping[str, Any], moves: Sequence[Move], seat: int
) -> list[RoundDecision]:
    """Every decision of ``seat``'s in the game these moves played, in order."""
    state = ENGINE.new(seed, players, options)
    found: list[RoundDecision] = []
    for move in moves:
        if move.verb == FORFEIT_VERB:
            state = ENGINE.forfeit(state, move.seat)
            continue
        action = ENGINE.parse(move.seat, move.verb, move.arg)
        own = current_throw(state)
        if move.seat == seat and isinstance(action, Stick | Bonus | Sign) and own is not None:
            values = option_values(throw_to_beat(state), own.dice)
            chosen = action.sign if isinstance(action, Sign) else action.verb
            best = max(values, key=lambda k: values[k])
            cost = max(values[best] - values[chosen], 0.0)
            clock = move.source is MoveSource.TIMEOUT
            found.append(
                RoundDecision(state.round, own.dice, chosen, best, values[chosen], cost, clock)
            )
        state = ENGINE.apply(state, action)
    return found


def review_text(
    kind: str, seed: int, players: int, options: Mapping[str, Any], moves: Sequence[Move], seat: int
) -> str:
    """The three costliest decisions, then every one that gave something up, in order; the
    clock's moves for the player are only counted, as they chose none of them."""
    reviewed = review(seed, players, options, moves, seat)
    decisions = [d for d in reviewed if not d.clock]
    clock = clock_note(len(reviewed) - len(decisions))
    if not decisions:
        why = "" if clock else ": it ended before you had to stick or throw the Bonus Die"
        return "\n".join([f"You made no decision in this game{why}.", *clock])
    costly = [d for d in decisions if d.cost > COSTLESS]
    lines = [f"**Your review** · {summary(len(decisions), costly)}", *clock]
    worst = sorted(costly, key=lambda d: -d.cost)[:3]
    lines += [costliest_line(d) for d in worst]
    if len(costly) > len(worst):
        lines.append(
            f"Every decision that gave something up ({len(costly)}, in order; each one's "
            "chance of winning the round, chosen → best):"
        )
        lines += [listed_line(d) for d in costly]
    return "\n".join(lines)


def summary(total: int, costly: Sequence[RoundDecision]) -> str:
    """How many decisions were best and what the others gave up, in plain words (no "1 of 1
    decisions were", no "the rest" when there is none)."""
    best, lost = total - len(costly), given_up(sum(d.cost for d in costly))
    if total == 1:
        if costly:
            return f"Your one decision gave up {lost}."
        return "Your one decision was the best there was."
    if not costly:
        return f"All {total} of your decisions were the best there was."
    were = "was" if best == 1 else "were"
    rest, in_all = ("the other one", "") if len(costly) == 1 else ("the rest", " in all")
    return f"{best} of {total} decisions {were} the best there was; {rest} gave up {lost}{in_all}."


def given_up(cost: float) -> str:
    """A chance given up, in words: ``8 percentage points of round-win chance``."""
    return f"{points_text(cost, 'percentage ')} of round-win chance"


def points_text(cost: float, kind: str = "") -> str:
    """``8 points``, ``1 point`` or ``0.4 points`` (``kind`` goes before the noun)."""
    number = percentage_points(cost)
    return f"{number} {kind}{'point' if number == '1' else 'points'}"


def clock_note(late: int) -> list[str]:
    """A line counting the moves the clock made for the player (none when there were none)."""
    if not late:
        return []
    moves = "move" if late == 1 else "moves"
    return [f"Not reviewed: {late} {moves} the clock made for you when your time ran out."]


def costliest_line(d: RoundDecision) -> str:
    dice = " ".join(map(str, d.dice))
    return (
        f"• Round {d.round}, dice {dice}: you chose to {WORDS[d.chose]} "
        f"({d.chance:.0%} to win the round); {WORDS[d.best]} gave {d.chance + d.cost:.0%}."
    )


def listed_line(d: RoundDecision) -> str:
    """One costly decision, compact: chances of winning the round, chosen → best, and the
    gap in percentage points (plain "points" would read as the game's)."""
    dice = " ".join(map(str, d.dice))
    return (
        f"Round {d.round} · {dice} · {WORDS[d.chose]} {d.chance:.0%} → "
        f"{WORDS[d.best]} {d.chance + d.cost:.0%} · −{points_text(d.cost, 'percentage ')}"
    )


def percentage_points(cost: float) -> str:
    """A chance given up, in percentage points: whole ones, or one digit when smaller (so
    never "0" for a decision that did give something up)."""
    points = 100 * cost
    return f"{points:.0f}" if points >= 0.95 or points == 0 else f"{points:.1g}"
