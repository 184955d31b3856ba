"""Apple Jack: Cheerio played side by side, a rotating caller choosing where everyone scores.

Pure rules; see seeds/applejack.md. Scoring reuses Cheerio's helpers, minus its bonuses.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal, Self, TypeVar, assert_never

from bot.games import codec
from bot.games.base import (
    Act,
    IllegalMove,
    NotYourTurn,
    Options,
    SeatResult,
    Verbs,
    Written,
    daily_day,
    daily_dice,
    placements,
    roll_dice,
)
from bot.games.cheerio import (
    DICE,
    FACE,
    OneCategory,
    OneDie,
    check_die,
    die_index,
    number_score,
    run_kind,
)

CATEGORIES = ("ones", "twos", "threes", "fours", "fives", "sixes", "cheerio", "sum")
REROLLS = 2
RUN_POINTS: Mapping[str | None, int] = {"honest": 20, "wild": 10, None: 0}
NO_PICKS = (False,) * DICE

Phase = Literal["reroll", "call", "solo", "over"]
Card = tuple[int | None, ...]
Picks = tuple[bool, ...]
T = TypeVar("T")


def score(category: str, dice: Sequence[int]) -> int:
    """Apple Jack's points for ``dice`` in ``category`` (raises ValueError for an unknown one)."""
    if category == "sum":
        return sum(dice)
    if category == "cheerio":
        return RUN_POINTS[run_kind(dice)]
    if category not in FACE:
        raise ValueError(f"unknown category {category!r}")
    return number_score(FACE[category], dice, bonus=False)


# The actions: what a seat may do, and how each is written down.


@dataclass(frozen=True)
class Pick(OneDie, verb="pick"):
    """Choose or unchoose one die for the next reroll (a toggle)."""


@dataclass(frozen=True)
class Reroll(Act, verb="reroll"):
    """Commit a reroll of ``dice`` (positions), or of the picked dice when it is empty.

    Written as one digit per die (``"024"``); repeats were always harmless."""

    dice: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        for die in self.dice:
            check_die(die)

    @classmethod
    def read(cls, seat: int, arg: str) -> Self:
        return cls(seat, frozenset(die_index(ch) for ch in arg))

    @property
    def arg(self) -> str:
        return "".join(str(die) for die in sorted(self.dice))


@dataclass(frozen=True)
class Hold(Act, verb="hold"):
    """Keep every die this step (dropping any picks)."""


@dataclass(frozen=True)
class Call(OneCategory, verb="call"):
    """The caller names the category everyone scores in."""

    categories: ClassVar[tuple[str, ...]] = CATEGORIES


ApplejackAction = Pick | Reroll | Hold | Call
VERBS = Verbs[ApplejackAction]("Apple Jack", Pick, Reroll, Hold, Call)


@dataclass(frozen=True)
class ApplejackState:
    """A whole game. Per-seat tuples are indexed by seat; ``cards[seat][round]`` is a card.

    ``phase``: "reroll" (shared steps, one decider at a time), "call" (the caller picks a
    category), "solo" (a round's last turn, everyone rerolls independently) or "over".
    ``picked[seat]`` are the dice a seat chose to reroll (shown once ``decided[seat]``);
    ``decided`` means "committed this step" in "reroll" and "done with the turn" in "solo".
    """

    seed: int
    draws: int
    active: tuple[bool, ...]
    cards: tuple[tuple[Card, ...], ...]
    round: int
    called: tuple[str, ...]
    caller: int
    phase: Phase
    step: int
    dice: tuple[tuple[int, ...], ...]
    picked: tuple[Picks, ...]
    decided: tuple[bool, ...]
    rerolls: tuple[int, ...]
    last_call: tuple[int, str, tuple[int | None, ...]] | None = None
    day: int | None = None  # a Daily Orchard game (played solo): dice from the day's streams
    drawn: tuple[int, ...] = ()  # per seat, dice drawn from this turn's daily stream so far


def _set(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*values[:index], value, *values[index + 1 :])


def open_categories(state: ApplejackState) -> list[str]:
    """The categories not yet scored in this round, in card order."""
    return [c for c in CATEGORIES if c not in state.called]


def decision_order(state: ApplejackState) -> list[int]:
    """Active seats in the order they decide a reroll step: the caller, then clockwise."""
    n = len(state.active)
    seats = ((state.caller + step) % n for step in range(n))
    return [s for s in seats if state.active[s]]


def totals(state: ApplejackState) -> tuple[int, ...]:
    """Each seat's score over all rounds so far."""
    return tuple(sum(p for card in cards for p in card if p is not None) for cards in state.cards)


def round_totals(state: ApplejackState) -> tuple[tuple[int, ...], ...]:
    """``[seat][round]`` subtotals: each round's share of a total, shown beside it."""
    return tuple(
        tuple(sum(p for p in card if p is not None) for card in cards) for cards in state.cards
    )


def rerolls_left(state: ApplejackState, seat: int) -> int:
    """How many more times ``seat`` may still reroll this turn."""
    if state.phase == "solo":
        return 0 if state.decided[seat] else REROLLS - state.rerolls[seat]
    if state.phase == "reroll":
        return REROLLS - state.step + 1
    return 0


def points_now(state: ApplejackState, category: str) -> tuple[int | None, ...]:
    """What ``category`` would give every seat for the dice on the table (None for leavers)."""
    return tuple(
        score(category, d) if a else None for a, d in zip(state.active, state.dice, strict=True)
    )


def call_preview(state: ApplejackState) -> list[tuple[str, tuple[int | None, ...]]]:
    """Each open category with what it would give every seat now: the caller's menu."""
    return [(c, points_now(state, c)) for c in open_categories(state)]


def best_call(state: ApplejackState, seat: int | None = None) -> str:
    """The open category that leaves ``seat`` (the caller by default) furthest ahead.

    The game is won on totals over all rounds, so the lead is the seat's game total after the
    call minus the best other active seat's; behind, that shrinks the gap. Ties go to the
    earliest category. This is the timeout's choice.
    """
    me = state.caller if seat is None else seat
    rivals = [s for s in decision_order(state) if s != me]
    banked = totals(state)

    def lead(category: str) -> int:
        best_rival = max(banked[s] + score(category, state.dice[s]) for s in rivals)
        return banked[me] + score(category, state.dice[me]) - best_rival

    return max(open_categories(state), key=lead)


class ApplejackEngine(Written[ApplejackAction]):
    """The runner's view of Apple Jack (see :class:`bot.games.base.Engine`)."""

    verbs = VERBS
    kind = "applejack"
    min_players = 2
    max_players = 6
    toggles = frozenset({"pick"})

    def new(self, seed: int, players: int, options: Options) -> ApplejackState:
        """A game; the Daily Orchard's (``options["daily"]``) is one player's single round."""
        day = daily_day(options)
        least = 1 if day is not None else self.min_players
        if not least <= players <= self.max_players:
            raise ValueError(f"Apple Jack needs {least} to 6 players, not {players}")
        blank: Card = (None,) * len(CATEGORIES)
        state = ApplejackState(
            seed=seed,
            draws=0,
            active=(True,) * players,
            cards=((blank,) * players,) * players,
            round=0,
            called=(),
            caller=0,
            phase="reroll",
            step=1,
            dice=((),) * players,
            picked=(NO_PICKS,) * players,
            decided=(False,) * players,
            rerolls=(0,) * players,
            day=day,
            drawn=(0,) * players,
        )
        return self._start_turn(state, 0)

    def view_for(self, state: ApplejackState, seat: int) -> ApplejackState:
        """Everything in Apple Jack is on the table (picks show once committed, to all)."""
        return state

    def apply(self, state: ApplejackState, action: ApplejackAction) -> ApplejackState:
        seat = action.seat
        if state.phase == "over":
            raise IllegalMove("This game is over.")
        if not 0 <= seat < len(state.active) or not state.active[seat]:
            raise IllegalMove("You are no longer playing in this game.")
        match action:
            case Pick(die=die):
                return self._pick(state, seat, die)
            case Reroll(dice=dice):
                return self._reroll(state, seat, dice)
            case Hold():
                return self._hold(state, seat)
            case Call(category=category):
                return self._call(state, seat, category)
            case _:
                assert_never(action)

    def to_act(self, state: ApplejackState) -> frozenset[int]:
        if state.phase == "call":
            return frozenset({state.caller})
        waiting = [s for s in decision_order(state) if not state.decided[s]]
        if state.phase == "solo":
            return frozenset(waiting)
        if state.phase == "reroll" and waiting:
            return frozenset(waiting[:1])
        return frozenset()

    def same_moves(self, before: ApplejackState, after: ApplejackState, seat: int) -> bool:
        """Never claimed: a click from before others' moves is chosen again, unless the seats
        were awaited side by side (:meth:`to_act`)."""
        return False

    def timeout_actions(self, state: ApplejackState) -> list[ApplejackAction]:
        """A late caller calls :func:`best_call`; a late roller holds (dropping any picks)."""
        if state.phase == "call":
            return [Call(state.caller, best_call(state))]
        return [Hold(seat) for seat in sorted(self.to_act(state))]

    def clock_mark(self, state: ApplejackState) -> Hashable:
        """The decision awaited: a reroll step's decider, or the call. Choosing dice decides
        nothing. A round's last turn, decided by everyone at once, is one decision with one
        clock: nobody's moves there restart it for the others."""
        turn = (state.round, len(state.called), state.phase)
        if state.phase == "solo":
            return turn
        return (*turn, state.step, tuple(sorted(self.to_act(state))))

    def forfeit(self, state: ApplejackState, seat: int) -> ApplejackState:
        """The seat leaves: a lone survivor wins; otherwise play goes on without the seat."""
        if state.phase == "over" or not state.active[seat]:
            return state
        state = replace(
            state,
            active=_set(state.active, seat, False),
            picked=_set(state.picked, seat, NO_PICKS),
            decided=_set(state.decided, seat, False),
        )
        if sum(state.active) <= 1:
            return replace(state, phase="over")
        if seat == state.caller:
            state = replace(state, caller=self._next_active(state, seat))
        return self._settle(state)

    def is_over(self, state: ApplejackState) -> bool:
        return state.phase == "over"

    def results(self, state: ApplejackState) -> list[SeatResult]:
        return placements(list(totals(state)), state.active)

    def dump(self, state: ApplejackState) -> dict[str, Any]:
        return dict(codec.dump(state))

    def load(self, data: Mapping[str, Any]) -> ApplejackState:
        return codec.load(ApplejackState, data)

    # The moves.

    def _check_decider(self, state: ApplejackState, seat: int) -> None:
        """Reroll moves belong to the awaited seat: the caller first, then seat order."""
        if state.phase == "call":
            raise IllegalMove("The rerolls are over: the caller now chooses a category.")
        if seat in self.to_act(state):
            return
        if state.phase == "solo":
            raise NotYourTurn("You are done with this turn: the others are finishing theirs.")
        if state.decided[seat]:
            raise NotYourTurn("You have already decided for this reroll.")
        raise NotYourTurn("The caller decides first, then each player in order.")

    def _pick(self, state: ApplejackState, seat: int, i: int) -> ApplejackState:
        self._check_decider(state, seat)
        picks = _set(state.picked[seat], i, not state.picked[seat][i])
        return replace(state, picked=_set(state.picked, seat, picks))

    def _reroll(self, state: ApplejackState, seat: int, dice: frozenset[int]) -> ApplejackState:
        """Commit a reroll of the picked dice, or of ``dice`` when it names any."""
        self._check_decider(state, seat)
        picks = tuple(i in dice for i in range(DICE)) if dice else state.picked[seat]
        if not any(picks):
            raise IllegalMove("Pick at least one die to reroll, or hold.")
        state = replace(state, picked=_set(state.picked, seat, picks))
        if state.phase == "solo":
            state = self._roll_picked(state, [seat])
            done = state.rerolls[seat] >= REROLLS
            return self._settle(replace(state, decided=_set(state.decided, seat, done)))
        return self._settle(replace(state, decided=_set(state.decided, seat, True)))

    def _hold(self, state: ApplejackState, seat: int) -> ApplejackState:
        self._check_decider(state, seat)
        state = replace(
            state,
            picked=_set(state.picked, seat, NO_PICKS),
            decided=_set(state.decided, seat, True),
        )
        return self._settle(state)

    def _call(self, state: ApplejackState, seat: int, category: str) -> ApplejackState:
        if state.phase == "solo":
            raise IllegalMove("Only one category is left: it is scored once everyone is done.")
        if state.phase != "call":
            raise IllegalMove("The turn is not over yet: the rerolls come first.")
        if seat != state.caller:
            raise NotYourTurn("Only the caller chooses the category.")
        if category in state.called:
            raise IllegalMove(f"{category.capitalize()} has already been scored this round.")
        return self._score(state, category)

    # What follows a move.

    def _settle(self, state: ApplejackState) -> ApplejackState:
        """Once every active seat has decided, roll the step (or score the last turn)."""
        if not all(d for a, d in zip(state.active, state.decided, strict=True) if a):
            return state
        if state.phase == "reroll":
            return self._end_step(state)
        if state.phase == "solo":
            return self._score(state, open_categories(state)[0])
        return state

    def _end_step(self, state: ApplejackState) -> ApplejackState:
        """Roll every chosen die at once; all holding, or a second step, ends the turn."""
        rerollers = [s for s in decision_order(state) if any(state.picked[s])]
        fresh = replace(state, decided=(False,) * len(state.active))
        if not rerollers:
            return replace(fresh, phase="call")
        fresh = self._roll_picked(fresh, sorted(rerollers))
        if state.step >= REROLLS:
            return replace(fresh, phase="call")
        return replace(fresh, step=state.step + 1)

    def _roll_picked(self, state: ApplejackState, seats: list[int]) -> ApplejackState:
        """One random draw rerolls the picked dice of ``seats``, in seat order."""
        count = sum(sum(state.picked[s]) for s in seats)
        fresh = iter(roll_dice(state.seed, state.draws, count))
        dice, picked, rerolls, drawn = state.dice, state.picked, state.rerolls, state.drawn
        for s in seats:
            if state.day is not None:
                fresh = iter(self._daily(state, drawn[s], sum(picked[s])))
                drawn = _set(drawn, s, drawn[s] + sum(picked[s]))
            new = tuple(next(fresh) if p else d for d, p in zip(dice[s], picked[s], strict=True))
            dice = _set(dice, s, new)
            picked = _set(picked, s, NO_PICKS)
            rerolls = _set(rerolls, s, rerolls[s] + 1)
        return replace(
            state, dice=dice, picked=picked, rerolls=rerolls, draws=state.draws + 1, drawn=drawn
        )

    def _daily(self, state: ApplejackState, offset: int, count: int) -> tuple[int, ...]:
        """Dice from the day's stream for this turn (the round's turns counted on): every
        seat draws from the same stream, at its own place in it."""
        assert state.day is not None
        turn = state.round * len(CATEGORIES) + len(state.called)
        return daily_dice("applejack", state.day, turn, offset, count)

    def _score(self, state: ApplejackState, category: str) -> ApplejackState:
        """Every active seat scores its own dice in ``category``; then the next turn."""
        index = CATEGORIES.index(category)
        points = points_now(state, category)
        cards = tuple(
            cards if p is None else _set(cards, state.round, _set(cards[state.round], index, p))
            for cards, p in zip(state.cards, points, strict=True)
        )
        state = replace(
            state,
            cards=cards,
            called=(*state.called, category),
            last_call=(state.caller, category, points),
        )
        return self._next_turn(state)

    def _next_turn(self, state: ApplejackState) -> ApplejackState:
        """The caller passes on; after eight turns a new round starts with its own seat."""
        if len(state.called) < len(CATEGORIES):
            return self._start_turn(state, self._next_active(state, state.caller))
        next_round = state.round + 1
        if next_round >= len(state.active):
            return replace(state, phase="over", decided=(False,) * len(state.active))
        state = replace(state, round=next_round, called=())
        return self._start_turn(state, self._next_active(state, next_round - 1))

    def _next_active(self, state: ApplejackState, seat: int) -> int:
        """The first active seat after ``seat``, going round the table."""
        n = len(state.active)
        return next(s for s in ((seat + k) % n for k in range(1, n + 1)) if state.active[s])

    def _start_turn(self, state: ApplejackState, caller: int) -> ApplejackState:
        """Everyone still playing rolls five dice at once; a round's last turn is solo."""
        seats = [s for s, a in enumerate(state.active) if a]
        n = len(state.active)
        rolled = roll_dice(state.seed, state.draws, DICE * len(seats))
        dice = list(state.dice)
        for k, s in enumerate(seats):
            dice[s] = rolled[k * DICE : (k + 1) * DICE]
            if state.day is not None:
                dice[s] = self._daily(state, 0, DICE)
        return replace(
            state,
            draws=state.draws + 1,
            caller=caller,
            phase="solo" if len(open_categories(state)) == 1 else "reroll",
            step=1,
            dice=tuple(d if a else () for d, a in zip(dice, state.active, strict=True)),
            picked=(NO_PICKS,) * n,
            decided=(False,) * n,
            rerolls=(0,) * n,
            drawn=(DICE,) * n if state.day is not None else state.drawn,
        )


ENGINE = ApplejackEngine()
