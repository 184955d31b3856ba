"""A dice game's review: a player's decisions weighed against the exact optimum.

The exact tables (:mod:`bot.ai.dice_optimal`) give, at every point of a game, the expected
final score from there on with optimal play, ``E``. A game walks ``E`` from the optimum at the
start to the final score, and every step is one of:

* a **choice** (a hold, a reroll, a category): it can only lower ``E``; what it lowered it by,
  against the best option then, is what the choice *cost*;
* a **roll**: ``E`` after the dice minus ``E`` before them is the roll's *luck* (zero on
  average, by definition of an expectation);
* in Apple Jack, **others' decisions** (another caller's category, or others carrying on the
  rerolls after you held);
* **the clock's** moves: a turn whose time ran out is played for the player, and what that
  gave up is no choice of theirs.

So ``final = optimum + luck + others - choices - clock``, exactly: the sum telescopes. Every
value is the tables' float64 number taken exactly as a :class:`~fractions.Fraction`, so the
identity holds to the last digit, not to a tolerance.

**Accuracy** is the share of the optimum's expected score a player's choices kept:
``100 * (1 - choices / optimum)``, floored, so 100% means not one choice was worse than the
best option (losing 1 expected point in a 190-point game costs about half a percent).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from bot.ai.dice_optimal import Choice, DiceTables

NEAR_TIE = 1e-9  # float options this close to the best are compared exactly


@dataclass(frozen=True)
class Decision:
    """One choice of the player's: where, on which dice, what was done and the best option."""

    where: str  # "turn 3, roll 2"
    dice: tuple[int, ...]
    chose: str
    best: str
    cost: Fraction  # the expected final score given up (0 for a best option)


@dataclass(frozen=True)
class DiceReview:
    """One seat's game, split exactly: ``final = optimum + luck + others - choices - clock``."""

    seat: int
    final: int
    optimum: Fraction
    luck: Fraction
    others: Fraction
    decisions: tuple[Decision, ...]
    rolls: tuple[Fraction, ...] = ()  # each roll's luck, in order (their sum is ``luck``)
    clock: Fraction = Fraction(0)  # given up by moves made when the player's time ran out
    late: int = 0  # how many such moves

    @property
    def choices(self) -> Fraction:
        return sum((d.cost for d in self.decisions), Fraction(0))

    @property
    def accuracy(self) -> int:
        """See the module's docstring: 100 only when every choice was a best one."""
        if self.optimum <= 0:
            return 100
        return max(0, math.floor(100 * (1 - self.choices / self.optimum)))

    @property
    def best_choices(self) -> int:
        return sum(1 for d in self.decisions if d.cost == 0)

    def costliest(self, n: int = 3) -> list[Decision]:
        """The ``n`` choices that gave up the most (earliest first on a tie), if they cost."""
        costly = [d for d in self.decisions if d.cost > 0]
        return sorted(costly, key=lambda d: -d.cost)[:n]


@dataclass
class Ledger:
    """``E`` as a game walks it, and where each change of it came from."""

    value: Fraction = Fraction(0)
    optimum: Fraction = Fraction(0)
    luck: Fraction = Fraction(0)
    others: Fraction = Fraction(0)
    decisions: list[Decision] = field(default_factory=list)
    rolls: list[Fraction] = field(default_factory=list)
    clock: Fraction = Fraction(0)
    late: int = 0

    def start(self, expected: Fraction) -> None:
        """A (round of the) game begins: its optimum is expected on top of what is banked."""
        self.optimum += expected
        self.value += expected

    def chance(self, value: Fraction) -> None:
        if value != self.value:
            self.rolls.append(value - self.value)
        self.luck += value - self.value
        self.value = value

    def other(self, value: Fraction) -> None:
        self.others += value - self.value
        self.value = value

    def decide(
        self,
        value: Fraction,
        where: str,
        dice: Sequence[int],
        chose: str,
        best: str,
        *,
        late: bool = False,
    ) -> None:
        """A move of the seat's; ``late``: made for it when its time ran out, which is booked
        to the clock, not weighed as the player's choice."""
        cost = self.value - value
        if late:
            self.clock += cost
            self.late += 1
        else:
            self.decisions.append(Decision(where, tuple(sorted(dice)), chose, best, cost))
        self.value = value

    def review(self, seat: int, final: int) -> DiceReview:
        return DiceReview(
            seat,
            final,
            self.optimum,
            self.luck,
            self.others,
            tuple(self.decisions),
            tuple(self.rolls),
            self.clock,
            self.late,
        )


def exact(value: float) -> Fraction:
    return Fraction(value)


def score_value(tables: DiceTables, used: Iterable[str], category: str, points: int) -> Fraction:
    """Scoring ``points`` in ``category`` now: the points plus the rest's expectation."""
    return Fraction(points) + exact(tables.value({*used, category}))


def choice_value(
    tables: DiceTables, used: Iterable[str], choice: Choice, rolls_left: int
) -> Fraction:
    if choice.kind == "score":
        return score_value(tables, used, choice.category, choice.points)
    return exact(tables.keep_value(used, choice.keep, rolls_left))


def best_option(
    tables: DiceTables, used: Iterable[str], dice: Sequence[int], rolls_left: int
) -> tuple[Fraction, Choice]:
    """The best option for ``dice`` now and its exact value (expected points still to come).

    Options are ranked in floats; those within :data:`NEAR_TIE` of the top are compared exactly.
    """
    used = tuple(used)
    top = tables.ranked_choices(used, dice, rolls_left, n=4)
    near = [c for c in top if top[0].expected - c.expected <= NEAR_TIE]
    valued = [(choice_value(tables, used, c, rolls_left), -i, c) for i, c in enumerate(near)]
    value, _, choice = max(valued, key=lambda v: (v[0], v[1]))
    return value, choice


def points(value: Fraction) -> str:
    """A signed share of the split, with a minus sign as :func:`given_up` writes costs."""
    return f"{float(value):+.1f}".replace("-", "−")


def best_share(best: int, total: int) -> str:
    """How many of ``total`` choices were best, worded right for one, none or all."""
    if total == 0:
        return "no choice of yours to weigh"
    if total == 1:
        return f"your one choice {'was' if best else 'was not'} the best there was"
    if best == total:
        return f"all {total} of your choices were the best there was"
    return f"{best} of {total} choices {'was' if best == 1 else 'were'} the best there was"


def dice_text(review: DiceReview | None) -> str:
    """A review as the player reads it: the split, the three costliest choices, then every
    choice that gave something up (the issue asks for each one's cost, not only the worst).
    It may run past one message: :func:`bot.reviews.pages` splits it."""
    if review is None:
        return "You left this game before its end: there is nothing to review."
    lines = [
        f"**Your review** · final score {review.final} · accuracy {review.accuracy}% "
        f"({best_share(review.best_choices, len(review.decisions))})",
        f"Optimum {float(review.optimum):.1f} · luck {points(review.luck)}"
        + (f" · others' calls {points(review.others)}" if review.others else "")
        + f" · your choices {points(-review.choices)}"
        + (f" · the clock {points(-review.clock)}" if review.late else "")
        + f" = **{review.final}**",
    ]
    if review.late:
        moves = "move" if review.late == 1 else "moves"
        lines.append(
            f"Not weighed as your choices: {review.late} {moves} made for you when your time"
            " ran out (counted as the clock's)."
        )
    worst = review.costliest()
    if worst:
        lines.append("Costliest choices (expected final score given up):")
    lines += [costliest_line(d) for d in worst]
    costly = [d for d in review.decisions if d.cost > 0]
    if len(costly) > len(worst):
        lines.append(f"Every choice that gave something up ({len(costly)}, in order):")
        lines += [listed_line(d) for d in costly]
    return "\n".join(lines)


def costliest_line(d: Decision) -> str:
    dice = " ".join(map(str, d.dice))
    return (
        f"• {d.where.capitalize()}, dice {dice}: you chose to {d.chose}; "
        f"better: {d.best} ({given_up(d.cost)})"
    )


def listed_line(d: Decision) -> str:
    """One costly choice, compact: a long game can list a hundred of them."""
    dice = " ".join(map(str, d.dice))
    chose, best = (text.removesuffix(" and reroll") for text in (d.chose, d.best))
    return f"{d.where.capitalize()} · {dice} · {chose} → {best} · {given_up(d.cost)}"


def given_up(cost: Fraction) -> str:
    """A cost in expected points: one decimal, or one digit when smaller (never "−0.0")."""
    value = float(cost)
    return f"−{value:.1f}" if value >= 0.095 else f"−{value:.1g}"
