"""Cheerio's review: one seat's game replayed against the exact solitaire optimum.

See :mod:`bot.ai.dice_review` for what the numbers mean. A seat's decisions are its rolls
(the dice held when it rolled) and its scores; holding and releasing dice is only the way to a
roll. Other players' moves change nothing of a seat's expectation but hand it its dice.
Pure: replays the move log from the seed with the engine.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from bot.ai.cheerio_players import exact_tables
from bot.ai.dice_optimal import Choice, DiceTables
from bot.ai.dice_review import (
    DiceReview,
    Ledger,
    best_option,
    dice_text,
    exact,
    score_value,
)
from bot.games.cheerio import (
    CATEGORIES,
    ENGINE,
    ROLLS_PER_TURN,
    CheerioState,
    Roll,
    Score,
    open_categories,
    score,
    total,
)
from bot.model import FORFEIT_VERB, Move, MoveSource


def used_of(state: CheerioState, seat: int) -> tuple[str, ...]:
    card = state.cards[seat]
    return tuple(c for c, points in zip(CATEGORIES, card, strict=True) if points is not None)


def expected(tables: DiceTables, state: CheerioState, seat: int) -> Fraction:
    """The seat's expected final score with optimal play from ``state`` on."""
    card = state.cards[seat]
    banked = Fraction(total(card))
    if not open_categories(card) or not state.active[seat]:
        return banked
    used = used_of(state, seat)
    if state.turn != seat or ENGINE.is_over(state):
        return banked + exact(tables.value(used))
    return banked + _best(tables, used, state.dice, ROLLS_PER_TURN - state.rolls)[0]


@functools.lru_cache(maxsize=1024)
def _best(
    tables: DiceTables, used: tuple[str, ...], dice: tuple[int, ...], rolls_left: int
) -> tuple[Fraction, Choice]:
    """:func:`best_option`, remembered: a review asks it of each roll twice (the roll's
    expectation, then the decision made on it)."""
    return best_option(tables, used, dice, rolls_left)


def describe(choice: Choice) -> str:
    """A choice in a few words, its category named as the board's menu names it."""
    if choice.kind == "score":
        return f"score {choice.category.title()} ({choice.points})"
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
    return review_all(seed, players, options, moves, tables)[seat]


def review_all(
    seed: int,
    players: int,
    options: Mapping[str, Any],
    moves: Sequence[Move],
    tables: DiceTables | None = None,
) -> list[DiceReview | None]:
    """Every seat's review, from one replay: a move changes the expectation of its own seat
    and of the seat it hands the dice to, and nobody else's."""
    tables = tables if tables is not None else exact_tables()
    state = ENGINE.new(seed, players, options)
    ledgers = [Ledger() for _ in range(players)]
    for seat, ledger in enumerate(ledgers):
        ledger.start(exact(tables.value(())))
        ledger.chance(expected(tables, state, seat))
    left: set[int] = set()
    for move in moves:
        if move.verb == FORFEIT_VERB:
            left.add(move.seat)
            state = ENGINE.forfeit(state, move.seat)
        else:
            action = ENGINE.parse(move.seat, move.verb, move.arg)
            if not isinstance(action, Roll | Score):
                state = ENGINE.apply(state, action)  # a hold: only the way to a roll
                continue
            late = move.source == MoveSource.TIMEOUT
            _decide(tables, ledgers[move.seat], state, action, late)
            state = ENGINE.apply(state, action)
        for seat in {move.seat, state.turn} - left:
            ledgers[seat].chance(expected(tables, state, seat))
    return [
        None
        if seat in left or open_categories(state.cards[seat])
        else ledger.review(seat, total(state.cards[seat]))
        for seat, ledger in enumerate(ledgers)
    ]


def _decide(
    tables: DiceTables, ledger: Ledger, state: CheerioState, action: Roll | Score, late: bool
) -> None:
    seat, card = state.turn, state.cards[state.turn]
    used, left = used_of(state, seat), ROLLS_PER_TURN - state.rolls
    banked = Fraction(total(card))
    _, best = _best(tables, used, state.dice, left)
    if isinstance(action, Score):
        points = score(action.category, state.dice)
        value = score_value(tables, used, action.category, points)
        chose = describe(Choice("score", 0.0, category=action.category, points=points))
    else:
        keep = tuple(sorted(d for d, h in zip(state.dice, state.held, strict=True) if h))
        value = exact(tables.keep_value(used, keep, left))
        chose = describe(Choice("keep", 0.0, keep=keep))
    where = f"turn {len(used) + 1}, roll {state.rolls}"
    ledger.decide(banked + value, where, state.dice, chose, describe(best), late=late)


def review_text(
    kind: str, seed: int, players: int, options: Mapping[str, Any], moves: Sequence[Move], seat: int
) -> str:
    """The seat's review as text (see :data:`bot.ai.dice_review` for the numbers)."""
    return dice_text(review(seed, players, options, moves, seat))


def accuracy(seed: int, options: Mapping[str, Any], moves: Sequence[Move]) -> int | None:
    """The accuracy of a finished one-player game (a daily one), for its share line."""
    found = review(seed, 1, options, moves, 0)
    return None if found is None else found.accuracy
