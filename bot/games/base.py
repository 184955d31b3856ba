"""The contract every game engine meets, and the small helpers they share.

Engines are pure: no I/O, no clock, no ``discord``. State is an immutable dataclass; every
random draw comes from the game's seed and a draw counter kept in the state, so applying a
game's move log to ``new(...)`` always reproduces the stored state.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar


class IllegalMove(Exception):
    """A move the rules forbid; ``str(err)`` is a sentence a player can read."""


@dataclass(frozen=True)
class Action:
    """One thing a seat does. ``kind`` names it; ``arg`` carries its detail as text.

    Text keeps actions small enough for a Discord custom_id and trivially JSON-serialisable
    for the move log.
    """

    seat: int
    kind: str
    arg: str = ""


@dataclass(frozen=True)
class SeatResult:
    """How one seat finished: its score, its place (1 is best, ties share) and a win flag."""

    seat: int
    score: int
    placement: int
    won: bool


Options = Mapping[str, Any]
S = TypeVar("S")


class Engine(Protocol[S]):
    """What the runner needs from a game. One module in ``bot/games`` implements it."""

    kind: str
    min_players: int
    max_players: int

    def new(self, seed: int, players: int, options: Options) -> S: ...

    def apply(self, state: S, action: Action) -> S: ...

    def to_act(self, state: S) -> frozenset[int]:
        """Seats whose move the game is waiting for (empty when the game is over).

        Several seats awaited at once act side by side: one's move never changes another's
        options, so the runner accepts a click drawn before another of them moved.
        """
        ...

    def timeout_actions(self, state: S) -> list[Action]:
        """What each awaited seat does when its turn deadline passes."""
        ...

    def forfeit(self, state: S, seat: int) -> S:
        """Remove a seat (timed out too often, or gave up); the others play on."""
        ...

    def is_over(self, state: S) -> bool: ...

    def results(self, state: S) -> list[SeatResult]: ...

    def dump(self, state: S) -> dict[str, Any]: ...

    def load(self, data: Mapping[str, Any]) -> S: ...


def rng(seed: int, draws: int) -> random.Random:
    """The generator for a game's ``draws``-th random event: replayable from two integers."""
    return random.Random(seed * 1_000_003 + draws)


def roll_dice(seed: int, draws: int, count: int) -> tuple[int, ...]:
    """``count`` fair six-sided dice for the ``draws``-th random event of a game."""
    r = rng(seed, draws)
    return tuple(r.randint(1, 6) for _ in range(count))


def placements(scores: Sequence[int], active: Sequence[bool] | None = None) -> list[SeatResult]:
    """Rank seats by score, highest first; equal scores share a place and a win.

    Seats marked inactive (forfeited) are placed after every active seat and never win.
    """
    active = list(active) if active is not None else [True] * len(scores)
    ranked = sorted(range(len(scores)), key=lambda s: (not active[s], -scores[s]))
    out: dict[int, SeatResult] = {}
    for pos, seat in enumerate(ranked):
        prev = ranked[pos - 1] if pos else None
        if prev is not None and active[prev] == active[seat] and scores[prev] == scores[seat]:
            place = out[prev].placement
        else:
            place = pos + 1
        won = active[seat] and place == 1
        out[seat] = SeatResult(seat, scores[seat], place, won)
    return [out[s] for s in range(len(scores))]
