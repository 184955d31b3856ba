"""Apple Jack's review: one seat's game replayed against Apple Jack's exact solitaire optimum.

See :mod:`bot.ai.dice_review` for what the numbers mean. Each round is a game of its own on the
tables (this round's called categories as the used set), so the optimum is the tables' value
of a fresh card once per round. A seat's decisions are its rerolls and holds (the picked dice
when it committed) and its calls when it is the caller; it is judged on its own score, as if
it alone chose the category, so another caller's category counts under ``others``, and so
does getting a second reroll step after holding because others rerolled. A call meant to keep
a rival down shows as a cost: the review weighs your score, not the margin.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from bot.ai.applejack_players import exact_tables
from bot.ai.dice_optimal import Choice, DiceTables
from bot.ai.dice_review import (
    DiceReview,
    Ledger,
    best_option,
    dice_text,
    exact,
    score_value,
)
from bot.games.applejack import (
    ENGINE,
    REROLLS,
    ApplejackAction,
    ApplejackState,
    Call,
    Hold,
    Reroll,
    open_categories,
    rerolls_left,
    score,
    totals,
)
from bot.games.cheerio import DICE
from bot.model import FORFEIT_VERB, Move, MoveSource


def expected(tables: DiceTables, state: ApplejackState, seat: int) -> Fraction:
    """The seat's expected final score from ``state`` on, as if it played on alone optimally."""
    banked = Fraction(totals(state)[seat])
    if state.phase == "over" or not state.active[seat]:
        return banked
    used, dice = state.called, state.dice[seat]
    if state.phase == "call":
        return banked + best_option(tables, used, dice, 0)[0]
    if state.phase == "solo":
        if state.decided[seat]:
            return banked + score(open_categories(state)[0], dice)
        return banked + best_option(tables, used, dice, rerolls_left(state, seat))[0]
    left = rerolls_left(state, seat)
    if not state.decided[seat]:
        return banked + best_option(tables, used, dice, left)[0]
    if any(state.picked[seat]):
        return banked + exact(tables.keep_value(used, _kept(dice, state.picked[seat]), left))
    return banked + best_option(tables, used, dice, 0)[0]


def _kept(dice: Sequence[int], picked: Sequence[bool]) -> tuple[int, ...]:
    return tuple(sorted(d for d, p in zip(dice, picked, strict=True) if not p))


def describe(choice: Choice, calling: bool) -> str:
    """A choice in a few words, its category named as the call menu names it."""
    if choice.kind == "score":
        return f"call {choice.category.title()} ({choice.points})" if calling else "hold"
    if not choice.keep:
        return "reroll all five"
    return f"keep {' '.join(map(str, choice.keep))} and reroll"


def review(
    seed: int,
    players: int,
    options: Mapping[str, Any],
    moves: Sequence[Move],
    seat: int,
    tables: DiceTables | None = None,
) -> DiceReview | None:
    """``seat``'s review of the game these moves played (None if the seat left before the end)."""
    tables = tables if tables is not None else exact_tables()
    state = ENGINE.new(seed, players, options)
    ledger = Ledger()
    ledger.start(exact(tables.value(())))
    ledger.chance(expected(tables, state, seat))
    for move in moves:
        before = state
        if move.verb == FORFEIT_VERB:
            if move.seat == seat:
                return None
            state = ENGINE.forfeit(state, move.seat)
            action: ApplejackAction | None = None
        else:
            action = ENGINE.parse(move.seat, move.verb, move.arg)
            if move.seat == seat and isinstance(action, Reroll | Hold | Call):
                _decide(tables, ledger, state, action, move.source == MoveSource.TIMEOUT)
            state = ENGINE.apply(state, action)
        _follow(tables, ledger, before, state, seat, own_roll=isinstance(action, Reroll))
    if state.phase != "over" or not state.active[seat]:
        return None
    return ledger.review(seat, totals(state)[seat])


def _follow(
    tables: DiceTables,
    ledger: Ledger,
    before: ApplejackState,
    state: ApplejackState,
    seat: int,
    own_roll: bool,
) -> None:
    """Book what a move did to the seat's expectation beyond its own decision."""
    turn_over = state.phase == "over" or (state.round, state.called) != (
        before.round,
        before.called,
    )
    if not turn_over:
        if state.dice[seat] != before.dice[seat]:
            ledger.chance(expected(tables, state, seat))
        else:
            ledger.other(expected(tables, state, seat))
        return
    banked = Fraction(totals(state)[seat])
    if before.phase == "solo" and own_roll and state.dice[seat] != before.dice[seat]:
        ledger.chance(banked)  # the last reroll of the round, scored at once
    same_round = state.phase != "over" and state.round == before.round
    ledger.other(banked + (exact(tables.value(state.called)) if same_round else 0))
    if state.phase == "over":
        return
    if not same_round:
        ledger.start(exact(tables.value(())))
    ledger.chance(expected(tables, state, seat))


def _decide(
    tables: DiceTables,
    ledger: Ledger,
    state: ApplejackState,
    action: Reroll | Hold | Call,
    late: bool,
) -> None:
    seat = action.seat
    used, dice = state.called, state.dice[seat]
    banked = Fraction(totals(state)[seat])
    calling = isinstance(action, Call)
    left = 0 if calling else rerolls_left(state, seat)
    _, best = best_option(tables, used, dice, left)
    if isinstance(action, Call):
        points = score(action.category, dice)
        value = score_value(tables, used, action.category, points)
        chose = describe(Choice("score", 0.0, category=action.category, points=points), True)
    elif isinstance(action, Hold):
        value = best_option(tables, used, dice, 0)[0]  # in a round's last turn: its one category
        chose = "hold"
    else:
        picks = tuple(i in action.dice for i in range(DICE)) if action.dice else state.picked[seat]
        keep = _kept(dice, picks)
        value = exact(tables.keep_value(used, keep, left))
        chose = describe(Choice("keep", 0.0, keep=keep), False)
    step = REROLLS - left + 1 if not calling else REROLLS + 1
    where = f"round {state.round + 1}, turn {len(used) + 1}"
    where += ", the call" if calling else f", roll {step}"
    ledger.decide(banked + value, where, dice, chose, describe(best, calling), late=late)


def review_text(
    kind: str, seed: int, players: int, options: Mapping[str, Any], moves: Sequence[Move], seat: int
) -> str:
    """The seat's review as text (see :data:`bot.ai.dice_review` for the numbers)."""
    return dice_text(review(seed, players, options, moves, seat))


def accuracy(seed: int, options: Mapping[str, Any], moves: Sequence[Move]) -> int | None:
    """The accuracy of a finished one-player game (a daily one), for its share line."""
    found = review(seed, 1, options, moves, 0)
    return None if found is None else found.accuracy
