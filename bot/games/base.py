"""The contract every game engine meets, and the small helpers they share.

Engines are pure: no I/O, no clock, no ``discord``. State is an immutable dataclass; every
random draw comes from the game's seed and a draw counter kept in the state, so applying a
game's move log to ``new(...)`` always reproduces the stored state.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar


class MoveError(Exception):
    """A move turned away, nothing changed; ``str(err)`` is a sentence a player can read."""


class BadInput(MoveError):
    """Text that is no move of this game: an unknown verb or a malformed argument."""


class IllegalMove(MoveError):
    """A well-formed move the rules forbid now."""


class NotYourTurn(IllegalMove):
    """A move from a seat the game is not waiting for. Every game says it in the same words,
    naming whom it waits for (the runner knows the names; an engine knows only seats), then
    ``more``: why the seat waits, or what it may do instead, if the game has more to say (a
    sentence, or empty)."""

    def __init__(self, more: str = "") -> None:
        super().__init__(f"It is not your turn. {more}".rstrip())
        self.more = more


@dataclass(frozen=True)
class Option:
    """One way to make an ambiguous move: a button's ``label`` (at most 80 characters) and
    the formatted action (``verb``, ``arg``) that picks exactly this way."""

    label: str
    verb: str
    arg: str


class Ambiguous(MoveError):
    """The move fits several ways: the player picks one of ``options``."""

    def __init__(self, message: str, options: Sequence[Option]) -> None:
        super().__init__(message)
        self.options: tuple[Option, ...] = tuple(options)


@dataclass(frozen=True)
class Act:
    """One thing a seat does. Each game subclasses it once per ``verb`` with typed fields.

    ``read`` and ``arg`` are the text form a move log and a Discord custom_id carry: the verb
    strings and the stored arguments never change, or old games would no longer replay.
    """

    seat: int
    verb: ClassVar[str] = ""

    def __init_subclass__(cls, verb: str = "", **kwargs: Any) -> None:
        """``class Roll(Act, verb="roll")`` names the verb where the action is declared."""
        super().__init_subclass__(**kwargs)
        if verb:
            cls.verb = verb

    @classmethod
    def read(cls, seat: int, arg: str) -> Self:
        """The action from its argument text. A verb that takes none ignores any it is given,
        as the engines always did: a stored log may hold one."""
        return cls(seat)

    @property
    def arg(self) -> str:
        """The argument text :meth:`read` turns back into this action."""
        return ""


AnyAct = TypeVar("AnyAct", bound=Act)


class Verbs(Generic[AnyAct]):
    """A game's actions by verb: how :meth:`Engine.parse` finds the one a text names."""

    def __init__(self, game: str, *actions: type[AnyAct]) -> None:
        self.game = game
        self.actions: Mapping[str, type[AnyAct]] = {a.verb: a for a in actions}

    def parse(self, seat: int, verb: str, arg: str) -> AnyAct:
        action = self.actions.get(verb)
        if action is None:
            raise BadInput(f"{self.game} has no move called {verb!r}.")
        return action.read(seat, arg)


class Written(Generic[AnyAct]):
    """An engine's :meth:`Engine.parse` and :meth:`Engine.format`, by its ``verbs``."""

    verbs: Verbs[AnyAct]

    def parse(self, seat: int, verb: str, arg: str) -> AnyAct:
        return self.verbs.parse(seat, verb, arg)

    def format(self, action: AnyAct) -> tuple[str, str]:
        return action.verb, action.arg


@dataclass(frozen=True)
class SeatResult:
    """How one seat finished: its score, its place (1 is best, ties share) and a win flag."""

    seat: int
    score: int
    placement: int
    won: bool


Options = Mapping[str, Any]
S = TypeVar("S")
A = TypeVar("A")


class Engine(Protocol[S, A]):
    """What the runner needs from a game. One module in ``bot/games`` implements it.

    ``A`` is the game's union of typed actions; text only exists at the edge, in
    :meth:`parse` and :meth:`format`.
    """

    kind: str
    min_players: int
    max_players: int
    # Verbs that flip one thing of the seat's own, named by their arg, and decide nothing (a
    # die held or picked): a click of one, drawn before the seat's own flips of other things,
    # still means what it meant (quick taps on several dice from one board).
    toggles: frozenset[str]

    def new(self, seed: int, players: int, options: Options) -> S: ...

    def parse(self, seat: int, verb: str, arg: str) -> A:
        """The action a button, a command or a move log names; raises :class:`BadInput`."""
        ...

    def format(self, action: A) -> tuple[str, str]:
        """``(verb, arg)`` for :meth:`parse`; ``arg`` fits a custom_id (``[A-Za-z0-9_+-]``)."""
        ...

    def apply(self, state: S, action: A) -> S:
        """The state after ``action``; raises :class:`IllegalMove` or :class:`Ambiguous`."""
        ...

    def view_for(self, state: S, seat: int) -> Any:
        """What ``seat`` may see: all a strategy is ever given (the state, where all is public)."""
        ...

    def to_act(self, state: S) -> frozenset[int]:
        """Seats whose move the game is waiting for (empty when the game is over).

        Several seats awaited at once act side by side: one's move never changes another's
        options, so the runner accepts a click drawn before another of them moved.
        """
        ...

    def same_moves(self, before: S, after: S, seat: int) -> bool:
        """Whether every move of ``seat`` does on ``after`` just what it did on ``before``
        (others moved in between, ``seat`` awaited in both): then a choice it was offered on
        ``before`` still stands. False when unsure: the player is asked to choose again."""
        ...

    def timeout_actions(self, state: S) -> list[A]:
        """What each awaited seat does when its turn deadline passes."""
        ...

    def clock_mark(self, state: S) -> Hashable | None:
        """Which decision the turn clock times in ``state``: moves that leave the mark as it
        was keep the deadline, so a move that decides nothing (a die's toggle, pressed as
        often as one likes) never stretches the clock. None: every move restarts it."""
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


def daily_dice(stream: str, day: int, turn: int, offset: int, count: int) -> tuple[int, ...]:
    """Dice ``offset`` to ``offset + count`` of the Daily Orchard's fixed stream for one turn.

    Each (game, day, turn) has one stream of dice; a turn's first roll takes its first five and
    every reroll the next ones in order, so what a player sees depends only on the day, the
    turn and how many dice they have rerolled in it, never on anyone else's choices.
    """
    r = random.Random(f"orchard-daily:{stream}:{day}:{turn}")
    dice = [r.randint(1, 6) for _ in range(offset + count)]
    return tuple(dice[offset:])


def daily_day(options: Options) -> int | None:
    """The Daily Orchard day a game's options name (``{"daily": day}``), if it is one."""
    day = options.get("daily")
    return day if isinstance(day, int) and not isinstance(day, bool) else None


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
