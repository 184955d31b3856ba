"""Orchard's Apple Jack players: Hard (optimal rerolls, margin calls), Normal and Easy.

Rerolls: Hard plays Apple Jack's own optimal solitaire tables (:mod:`bot.ai.dice_optimal`),
with this round's called categories as the used set and the engine's rerolls left. A seat
only holds or rerolls (the caller scores for everybody), so the table's best option decides:
a hold (keep) means reroll the other dice as one "reroll" action, a category means "hold".

Calls: the caller takes the open category with the highest margin over the opponents given
everyone's dice: its own points minus the best opponent's points in it (card order on a tie).
Those points are certain once the rerolls are over. The rest of the round is not, but the
call closes the category for everybody alike, so with every player modelled as playing the
same tables each one's expected future is the same value and the future margin is 0. An
earlier version added 0.1 times the caller's own future value: one side of a margin only.

Normal plays Hard's move except now and then (``SLIP``) the second best when close
(``SLIP_POINTS``). Its dice come from the game's seed, draw counter, seat, phase and round
progress, never from the runner's ``seed`` (it changes with every click), so a decision is
replayable. Easy keeps its most common face (the higher on a tie) and calls the category
worth most to itself now. Pure: no discord, no I/O besides the tables' cache file.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from bot.ai.dice_optimal import DiceTables, tables_for
from bot.games.applejack import (
    CATEGORIES,
    ApplejackAction,
    ApplejackState,
    Call,
    Hold,
    Reroll,
    decision_order,
    open_categories,
    rerolls_left,
    score,
)

SLIP = 0.15
SLIP_POINTS = 3.0

# Decisions on plain values, shared by the strategies and the benchmark.


def reroll_options(
    tables: DiceTables, used: frozenset[str], dice: Sequence[int], left: int
) -> list[tuple[float, tuple[int, ...] | None]]:
    """The two best options as ``(expected, keep)``; ``keep`` None means hold everything."""
    top = tables.ranked_choices(used, dice, left, n=2)
    return [(c.expected, c.keep if c.kind == "keep" else None) for c in top]


def call_margins(
    used: frozenset[str],
    mine: Sequence[int],
    rivals: Sequence[Sequence[int]],
) -> list[tuple[int, str]]:
    """Each open category with the caller's margin, own points - the best rival's points,
    best first (card order on a tie): what the call is worth against the closest opponent."""
    out = []
    for c in (c for c in CATEGORIES if c not in used):
        best_rival = max((score(c, d) for d in rivals), default=0)
        out.append((score(c, mine) - best_rival, c))
    order = {c: i for i, c in enumerate(CATEGORIES)}
    return sorted(out, key=lambda mc: (-mc[0], order[mc[1]]))


def pick(options: Sequence[tuple[float, object]], slip: random.Random | None) -> int:
    """Index of the option to take: the best, or with ``slip`` sometimes a close second."""
    if (
        slip is not None
        and len(options) >= 2
        and options[0][0] - options[1][0] <= SLIP_POINTS
        and slip.random() < SLIP
    ):
        return 1
    return 0


def easy_keep(dice: Sequence[int]) -> tuple[int, ...] | None:
    """Every die of the most common face (the higher on a tie); None once all five match."""
    face, count = max(Counter(dice).items(), key=lambda fc: (fc[1], fc[0]))
    return None if count == len(dice) else (face,) * count


def easy_call(used: frozenset[str], categories: Sequence[str], dice: Sequence[int]) -> str:
    """The open category worth most to itself now (the earliest on a tie)."""
    return max((c for c in categories if c not in used), key=lambda c: score(c, dice))


# From a decision to one engine action.


def reroll_dice(dice: Sequence[int], keep: Sequence[int]) -> frozenset[int]:
    """The positions of the dice to reroll so that the others show ``keep`` (leftmost kept)."""
    need = Counter(keep)
    out = set()
    for i, d in enumerate(dice):
        if need[d] > 0:
            need[d] -= 1
        else:
            out.add(i)
    return frozenset(out)


def _keep_action(state: ApplejackState, seat: int, keep: Sequence[int] | None) -> ApplejackAction:
    if keep is None or len(keep) >= len(state.dice[seat]):
        return Hold(seat)
    return Reroll(seat, reroll_dice(state.dice[seat], keep))


def slip_rng(state: ApplejackState, seat: int) -> random.Random:
    """Normal's dice for one decision, fixed by the game's state (never the runner's seed)."""
    key = f"applejack-normal:{state.seed}:{state.draws}:{seat}:{state.phase}:{len(state.called)}"
    return random.Random(key)


def _used(state: ApplejackState) -> frozenset[str]:
    return frozenset(state.called)


def _tabled(state: ApplejackState, seat: int, slip: random.Random | None) -> ApplejackAction:
    """Hard's move (Normal's with ``slip``)."""
    tables = exact_tables()
    if state.phase == "call":
        rivals = [state.dice[s] for s in decision_order(state) if s != seat]
        margins = call_margins(_used(state), state.dice[seat], rivals)
        return Call(seat, margins[pick(margins, slip)][1])
    options = reroll_options(tables, _used(state), state.dice[seat], rerolls_left(state, seat))
    return _keep_action(state, seat, options[pick(options, slip)][1])


def hard(state: ApplejackState, seat: int) -> ApplejackAction:
    return _tabled(state, seat, None)


def normal(state: ApplejackState, seat: int) -> ApplejackAction:
    return _tabled(state, seat, slip_rng(state, seat))


def easy(state: ApplejackState, seat: int) -> ApplejackAction:
    if state.phase == "call":
        return Call(seat, easy_call(_used(state), open_categories(state), state.dice[seat]))
    return _keep_action(state, seat, easy_keep(state.dice[seat]))


def choose(state: ApplejackState, seat: int, level: str, seed: int) -> ApplejackAction:
    """Orchard's strategy for this game (a :data:`bot.specs.Strategy`); ``seed`` is unused."""
    if level == "hard":
        return hard(state, seat)
    if level == "normal":
        return normal(state, seat)
    if level == "easy":
        return easy(state, seat)
    raise ValueError(f"unknown level {level!r}")


def exact_tables(cache_dir: Path | None = None) -> DiceTables:
    """Orchard's exact tables for this game, read once from the file the package ships (the
    cache folder, then building, only if that file is for other rules), then kept. Cheap
    from the first call: a first move costs a few milliseconds, and nothing needs warming."""
    return tables_for("applejack", CATEGORIES, score, cache_dir)
