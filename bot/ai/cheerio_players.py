"""Orchard's Cheerio players: Hard (optimal), Normal (optimal with slips) and Easy.

Each strategy is pure: ``choose(state, seat, rng_seed)`` returns ONE action, so a hold is
played like a person plays it: the next die to toggle towards the chosen hold, then "roll"
once the held dice match. Asked again after each toggle, a strategy reaches the same
decision (the dice have not changed), so the toggles always converge.

Hard and Normal play the solitaire optimum (:mod:`bot.ai.dice_optimal`): they maximise their
own expected final score and ignore the other cards. Normal sometimes (``SLIP``) takes the
second-best option when it is worth at most ``SLIP_POINTS`` less. Its dice for that are drawn
from the game's seed, its draw counter and the seat, which stay fixed while the toggles of
one decision are played; ``rng_seed`` (the runner's seed + version, which changes with every
toggle) is accepted for the common signature but not used, or a decision could flip halfway.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from bot.ai.dice_optimal import Choice, DiceTables, tables_for
from bot.games.cheerio import (
    CATEGORIES,
    ROLLS_PER_TURN,
    CheerioAction,
    CheerioState,
    Hold,
    Roll,
    Score,
    best_category,
    score,
)

SLIP = 0.15
SLIP_POINTS = 3.0

# Decisions on plain values, shared by the strategies and the benchmark.


def decide(
    tables: DiceTables,
    used: frozenset[str],
    dice: Sequence[int],
    rolls_left: int,
    slip: random.Random | None = None,
) -> Choice:
    """The optimal option for ``dice`` now, or with ``slip`` sometimes the second best."""
    top = tables.ranked_choices(used, dice, rolls_left, n=2)
    if (
        slip is not None
        and len(top) == 2
        and top[0].expected - top[1].expected <= SLIP_POINTS
        and slip.random() < SLIP
    ):
        return top[1]
    return top[0]


def easy_decision(
    used: frozenset[str], dice: Sequence[int], rolls_left: int
) -> tuple[int, ...] | str:
    """Easy: hold every die of the most common face (the higher face on a tie) and reroll;
    with no reroll left (or five alike) score the open category worth most now."""
    face, count = max(Counter(dice).items(), key=lambda fc: (fc[1], fc[0]))
    if rolls_left > 0 and count < len(dice):
        return (face,) * count
    open_cats = [c for c in CATEGORIES if c not in used]
    return max(open_cats, key=lambda c: score(c, dice))


# From a decision to one engine action.


def _used(state: CheerioState, seat: int) -> frozenset[str]:
    card = state.cards[seat]
    return frozenset(c for c, points in zip(CATEGORIES, card, strict=True) if points is not None)


def hold_target(dice: Sequence[int], held: Sequence[bool], keep: Sequence[int]) -> list[bool]:
    """Which dice to hold so the held ones show ``keep``: already-held dice first, then the
    leftmost, so asking again after each toggle gives the same target."""
    need = Counter(keep)
    target = [False] * len(dice)
    order = sorted(range(len(dice)), key=lambda i: (not held[i], i))
    for i in order:
        if need[dice[i]] > 0:
            need[dice[i]] -= 1
            target[i] = True
    if +need:
        raise ValueError(f"cannot hold {tuple(keep)} from {tuple(dice)}")
    return target


def _towards(state: CheerioState, seat: int, keep: Sequence[int]) -> CheerioAction:
    target = hold_target(state.dice, state.held, keep)
    for i, (want, now) in enumerate(zip(target, state.held, strict=True)):
        if want != now:
            return Hold(seat, i)
    return Roll(seat)


def _act(state: CheerioState, seat: int, choice: Choice) -> CheerioAction:
    if choice.kind == "score":
        return Score(seat, choice.category)
    return _towards(state, seat, choice.keep)


def _rolls_left(state: CheerioState) -> int:
    return max(0, ROLLS_PER_TURN - state.rolls)


def hard(
    state: CheerioState, seat: int, rng_seed: int = 0, *, tables: DiceTables | None = None
) -> CheerioAction:
    """The move that maximises the seat's expected final score."""
    t = tables if tables is not None else exact_tables()
    return _act(state, seat, decide(t, _used(state, seat), state.dice, _rolls_left(state)))


def slip_rng(state: CheerioState, seat: int) -> random.Random:
    """Normal's dice for one decision: fixed by the game, its draw counter and the seat."""
    return random.Random(f"cheerio-normal:{state.seed}:{state.draws}:{seat}")


def normal(
    state: CheerioState, seat: int, rng_seed: int = 0, *, tables: DiceTables | None = None
) -> CheerioAction:
    """Hard's move, except now and then the second best when it is close."""
    t = tables if tables is not None else exact_tables()
    used, left = _used(state, seat), _rolls_left(state)
    return _act(state, seat, decide(t, used, state.dice, left, slip_rng(state, seat)))


def easy(state: CheerioState, seat: int, rng_seed: int = 0) -> CheerioAction:
    """Hold the most common face, reroll while it can, then score the best category now."""
    decision = easy_decision(_used(state, seat), state.dice, _rolls_left(state))
    if isinstance(decision, str):
        return Score(seat, decision)
    return _towards(state, seat, decision)


def greedy(state: CheerioState, seat: int, rng_seed: int = 0) -> CheerioAction:
    """A baseline: score the best category for the first roll, never rerolling."""
    return Score(seat, best_category(state.cards[seat], state.dice))


def choose(state: CheerioState, seat: int, level: str, seed: int) -> CheerioAction:
    """Orchard's strategy for this game (a :data:`bot.specs.Strategy`)."""
    if level == "hard":
        return hard(state, seat, seed)
    if level == "normal":
        return normal(state, seat, seed)
    if level == "easy":
        return easy(state, seat, seed)
    raise ValueError(f"unknown level {level!r}")


def exact_tables(cache_dir: Path | None = None) -> DiceTables:
    """Orchard's exact tables for this game, read once from the file the package ships (the
    cache folder, then building, only if that file is for other rules), then kept. Cheap
    from the first call: a first move costs a few milliseconds, and nothing needs warming."""
    return tables_for("cheerio", CATEGORIES, score, cache_dir)
