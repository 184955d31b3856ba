"""Orchard's Hot Score players: Hard (exact enumeration of the round), Normal and Easy.

Only two moves are decisions: "stick" or "bonus" after the two dice, and the Bonus Die's
sign. Everything else (the two dice, the challenge's target die and three dice) is a throw.

Hard values a round by its verdict, seen from the round's starter (zero-sum, so the answer
wants the opposite): with the default objective ``"win"`` (the rule Hard plays by) a win is 1,
a loss 0 and a challenge 0.5, so a value is the exact probability of winning the round; with
``"points"`` a win is worth the winner's bracket points (+15/+10/+5 for the starter, minus
that for the answer) and a challenge 0 (both sides are equally likely to take the stake).
They disagree only rarely (a starter's 1+1, an answer to a three-dice throw, where points
take a risk for 15 over a sure 5), and ``bench/hotscore_strategies.py`` cannot tell them
apart in games. Scores are ignored (no
bounce, no race to exactly 100), which keeps every value a function of (throw to beat, own
dice): the whole policy is a few thousand cached entries, filled in under a second.

* Second to throw, Hard knows the throw to beat and enumerates its own Bonus Die exactly.
* Starting, Hard does not know the answer: it assumes the answer plays this same
  enumeration (the best reply to each throw), i.e. it plays the round's minimax.
* Normal sticks unless its two dice lose outright to the throw to beat; then it throws the
  Bonus Die and takes the sign nearer to HOT. (The suggested "stick on HOT/NEAR, else bonus"
  loses to Easy, about 38% of games: a starter's three dice lose to any two.)
* Easy always sticks on two dice.

Pure: no discord, no I/O. Every move is deterministic, so the runner's ``seed`` is unused.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from statistics import fmean
from typing import Literal

from bot.games.hotscore import (
    Bonus,
    HotscoreAction,
    Sign,
    Stick,
    Throw,
    ThrowDice,
    Verdict,
    current_throw,
    distance_to_hot,
    judge,
    throw_to_beat,
)
from bot.games.hotscore import HotscoreState as State

Objective = Literal["points", "win"]
DEFAULT_OBJECTIVE: Objective = "win"
FACES = range(1, 7)
# Two dice as the 21 sorted pairs, each with its chance (1/36 or 2/36): order never matters.
TWO_DICE: tuple[tuple[tuple[int, int], float], ...] = tuple(
    ((a, b), (1 if a == b else 2) / 36) for a in FACES for b in FACES if a <= b
)


def verdict_value(verdict: Verdict, objective: Objective = DEFAULT_OBJECTIVE) -> float:
    """What a verdict is worth to the round's starter (the answer gets the mirror image)."""
    if verdict.winner is None:
        return 0.5 if objective == "win" else 0.0
    if objective == "win":
        return 1.0 if verdict.winner == 0 else 0.0
    return float(verdict.points if verdict.winner == 0 else -verdict.points)


def mirror(value: float, objective: Objective = DEFAULT_OBJECTIVE) -> float:
    """The same outcome's worth to the other seat (the objectives are zero-sum)."""
    return 1.0 - value if objective == "win" else -value


def signed_throws(dice: tuple[int, int, int]) -> dict[str, Throw]:
    """The throws each sign makes; three of a kind has only "+" (the engine asks for none)."""
    if len(set(dice)) == 1:
        return {"+": Throw(dice, 1)}
    return {"+": Throw(dice, 1), "-": Throw(dice, -1)}


# The answer (second to throw): it knows the throw to beat and minimises the starter's value.


@cache
def answer_sign_values(
    first: Throw, dice: tuple[int, int, int], objective: Objective = DEFAULT_OBJECTIVE
) -> dict[str, float]:
    """Starter's value of each sign the answer may give its Bonus Die."""
    return {s: verdict_value(judge(first, t), objective) for s, t in signed_throws(dice).items()}


@cache
def answer_values(
    first: Throw, dice: tuple[int, int], objective: Objective = DEFAULT_OBJECTIVE
) -> dict[str, float]:
    """Starter's value of the answer sticking on ``dice`` or throwing the Bonus Die (whose
    sign it then picks knowing the die): exact over the die's six faces."""
    stick = verdict_value(judge(first, Throw(dice)), objective)
    bonus = fmean(min(answer_sign_values(first, (*dice, c), objective).values()) for c in FACES)
    return {"stick": stick, "bonus": bonus}


@cache
def reply_value(first: Throw, objective: Objective = DEFAULT_OBJECTIVE) -> float:
    """Starter's expected value of finishing on ``first`` against the best reply to it."""
    return sum(p * min(answer_values(first, d, objective).values()) for d, p in TWO_DICE)


# The starter: it assumes the answer replies as above.


@cache
def starter_sign_values(
    dice: tuple[int, int, int], objective: Objective = DEFAULT_OBJECTIVE
) -> dict[str, float]:
    return {s: reply_value(t, objective) for s, t in signed_throws(dice).items()}


@cache
def starter_values(
    dice: tuple[int, int], objective: Objective = DEFAULT_OBJECTIVE
) -> dict[str, float]:
    stick = reply_value(Throw(dice), objective)
    bonus = fmean(max(starter_sign_values((*dice, c), objective).values()) for c in FACES)

    return {"stick": stick, "bonus": bonus}


def canonical(throw: Throw) -> Throw:
    """The same throw with its two first dice sorted (they only count by their sum)."""
    a, b = sorted(throw.dice[:2])
    return Throw((a, b, *throw.dice[2:]), throw.bonus_sign)


def option_values(
    first: Throw | None, dice: tuple[int, ...], objective: Objective = DEFAULT_OBJECTIVE
) -> dict[str, float]:
    """Each option's worth to the seat deciding (``first`` is the throw to beat, if any):
    "stick"/"bonus" for two dice, "+"/"-" for three. With ``"win"`` this is the probability
    of winning the round, a challenge counting half."""
    a, b = sorted(dice[:2])
    dice = (a, b, *dice[2:])
    if first is None:
        if len(dice) == 2:
            return starter_values((dice[0], dice[1]), objective)
        return starter_sign_values((dice[0], dice[1], dice[2]), objective)
    first = canonical(first)
    if len(dice) == 2:
        values = answer_values(first, (dice[0], dice[1]), objective)
    else:
        values = answer_sign_values(first, (dice[0], dice[1], dice[2]), objective)
    return {k: mirror(v, objective) for k, v in values.items()}


def warm(objective: Objective = DEFAULT_OBJECTIVE) -> None:
    """Fill every cache now (about a second) rather than on first need."""
    for _ in warming(objective):
        pass


def warming(objective: Objective = DEFAULT_OBJECTIVE) -> Iterator[None]:
    """:func:`warm`, one throw to beat at a time (about 3 ms each, 267 of them), for a caller
    that lets other work run in between. Cold, a Hard seat's first decisions computed these
    in its move, 60 ms at a time."""
    for (a, b), _ in TWO_DICE:
        three = (t for c in FACES for t in signed_throws((a, b, c)).values())
        for first in (Throw((a, b)), *three):
            reply_value(first, objective)
            yield
    for d, _ in TWO_DICE:
        option_values(None, d, objective)
        yield


# Decisions on plain values, shared by the strategies and the benchmark.


def hard_decision(
    first: Throw | None, dice: tuple[int, ...], objective: Objective = DEFAULT_OBJECTIVE
) -> str:
    """The best option; an exact tie goes to "stick", then to the sign nearer HOT."""
    values = option_values(first, dice, objective)
    preferred = ["stick", "bonus"] if len(dice) == 2 else [_closer(dice), _other(_closer(dice))]
    options = [k for k in preferred if k in values]
    return max(options, key=lambda k: values[k])


def normal_decision(first: Throw | None, dice: tuple[int, ...]) -> str:
    """Stick, unless the two dice lose outright to the throw to beat: then throw the Bonus
    Die (a forced challenge or three of a kind may save the round), sign nearer HOT."""
    if len(dice) == 3:
        return _closer(dice)
    if first is None or judge(first, Throw(dice)).winner != 0:
        return "stick"
    return "bonus"


def easy_decision(first: Throw | None, dice: tuple[int, ...]) -> str:
    """Always stick on two dice (a Bonus Die it never throws would still get a sensible sign)."""
    return "stick" if len(dice) == 2 else _closer(dice)


def _closer(dice: tuple[int, ...]) -> str:
    base = dice[0] + dice[1]
    return "-" if distance_to_hot(base - dice[2]) < distance_to_hot(base + dice[2]) else "+"


def _other(sign: str) -> str:
    return "-" if sign == "+" else "+"


# From a decision to one engine action.


def _act(state: State, seat: int, level: str) -> HotscoreAction:
    if state.phase not in ("choose", "sign"):
        return ThrowDice(seat)
    own = current_throw(state)
    assert own is not None
    first = throw_to_beat(state)
    if level == "hard":
        decision = hard_decision(first, own.dice)
    elif level == "normal":
        decision = normal_decision(first, own.dice)
    else:
        decision = easy_decision(first, own.dice)
    if state.phase == "sign":
        return Sign(seat, decision)
    return Stick(seat) if decision == "stick" else Bonus(seat)


def choose(state: State, seat: int, level: str, seed: int) -> HotscoreAction:
    """Orchard's strategy for this game (a :data:`bot.specs.Strategy`); ``seed`` is unused."""
    if level not in ("easy", "normal", "hard"):
        raise ValueError(f"unknown level {level!r}")
    return _act(state, seat, level)
