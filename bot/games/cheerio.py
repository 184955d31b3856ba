"""Cheerio: five dice, seven categories, ones wild. Pure rules; see seeds/cheerio.md."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal, Self, assert_never

from bot.games import codec
from bot.games.base import (
    Act,
    BadInput,
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

CATEGORIES = ("ones", "twos", "threes", "fours", "fives", "sixes", "cheerio")
FACE = {name: face for face, name in enumerate(CATEGORIES[:6], start=1)}
DICE = 5
ROLLS_PER_TURN = 3
RUNS = (frozenset({1, 2, 3, 4, 5}), frozenset({2, 3, 4, 5, 6}))


def number_score(face: int, dice: Sequence[int], *, bonus: bool = True) -> int:
    """Points for a number category: ones are wild once the face itself is showing.

    With ``bonus``, five natural dice of one face score double (five ones are always natural).
    """
    natural, ones = dice.count(face), dice.count(1)
    if face == 1:
        points = ones
    elif natural == 0:
        return 0
    else:
        points = face * (natural + ones)
    if bonus and natural == DICE:
        points *= 2
    return points


def run_kind(dice: Sequence[int]) -> Literal["honest", "wild"] | None:
    """Whether the dice make a run of five: honestly, with wild ones filling gaps, or not."""
    if frozenset(dice) in RUNS and len(dice) == DICE:
        return "honest"
    others = [d for d in dice if d != 1]
    if len(set(others)) == len(others) and any(set(others) <= run for run in RUNS):
        return "wild"
    return None


def score(category: str, dice: Sequence[int]) -> int:
    """Cheerio's points for ``dice`` in ``category`` (raises ValueError for an unknown one)."""
    if category == "cheerio":
        return {"honest": 50, "wild": 25, None: 0}[run_kind(dice)]
    if category not in FACE:
        raise ValueError(f"unknown category {category!r}")
    return number_score(FACE[category], dice)


Card = tuple[int | None, ...]


# The actions: what a seat may do, and how each is written down.


def die_index(text: str) -> int:
    """One of the five dice by its position, ``"0"`` to ``"4"``."""
    if not (text.isascii() and text.isdigit()):
        raise BadInput("That is not one of your five dice.")
    return check_die(int(text))


def check_die(index: int) -> int:
    if not 0 <= index < DICE:
        raise BadInput("That is not one of your five dice.")
    return index


@dataclass(frozen=True)
class OneDie(Act):
    """An action on one die, by its position 0 to 4 (Apple Jack's picks too)."""

    die: int

    def __post_init__(self) -> None:
        check_die(self.die)

    @classmethod
    def read(cls, seat: int, arg: str) -> Self:
        return cls(seat, die_index(arg))

    @property
    def arg(self) -> str:
        return str(self.die)


@dataclass(frozen=True)
class OneCategory(Act):
    """An action naming a category of the game's ``categories`` (Apple Jack's calls too)."""

    category: str
    categories: ClassVar[tuple[str, ...]] = CATEGORIES

    def __post_init__(self) -> None:
        if self.category not in self.categories:
            raise BadInput(f"There is no category called {self.category!r}.")

    @classmethod
    def read(cls, seat: int, arg: str) -> Self:
        return cls(seat, arg)

    @property
    def arg(self) -> str:
        return self.category


@dataclass(frozen=True)
class Hold(OneDie, verb="hold"):
    """Hold or release one die (a toggle)."""


@dataclass(frozen=True)
class Roll(Act, verb="roll"):
    """Roll every die not held."""


@dataclass(frozen=True)
class Score(OneCategory, verb="score"):
    """Score the dice in an open category; the turn ends."""


CheerioAction = Hold | Roll | Score
VERBS = Verbs[CheerioAction]("Cheerio", Hold, Roll, Score)


@dataclass(frozen=True)
class CheerioState:
    """A whole game: every card, the dice of the seat to play, and the seeded draw counter."""

    seed: int
    draws: int
    cards: tuple[Card, ...]
    active: tuple[bool, ...]
    turn: int
    dice: tuple[int, ...]
    held: tuple[bool, ...]
    rolls: int
    last_score: tuple[int, str, int] | None = None
    day: int | None = None  # a Daily Orchard game: dice from the day's streams (base.daily_dice)
    drawn: int = 0  # dice drawn from the turn's daily stream so far


def total(card: Card) -> int:
    return sum(points for points in card if points is not None)


def open_categories(card: Card) -> list[str]:
    return [name for name, points in zip(CATEGORIES, card, strict=True) if points is None]


class CheerioEngine(Written[CheerioAction]):
    """The runner's view of Cheerio (see :class:`bot.games.base.Engine`)."""

    verbs = VERBS
    kind = "cheerio"
    min_players = 1
    max_players = 6
    toggles = frozenset({"hold"})

    def new(self, seed: int, players: int, options: Options) -> CheerioState:
        blank: Card = (None,) * len(CATEGORIES)
        state = CheerioState(
            seed=seed,
            draws=0,
            cards=(blank,) * players,
            active=(True,) * players,
            turn=0,
            dice=(),
            held=(False,) * DICE,
            rolls=0,
            day=daily_day(options),
        )
        return self._start_turn(state, 0)

    def view_for(self, state: CheerioState, seat: int) -> CheerioState:
        """Everything in Cheerio is on the table."""
        return state

    def apply(self, state: CheerioState, action: CheerioAction) -> CheerioState:
        if self.is_over(state):
            raise IllegalMove("This game is over.")
        if not 0 <= action.seat < len(state.active) or not state.active[action.seat]:
            raise IllegalMove("You are no longer playing in this game.")
        if action.seat != state.turn:
            raise NotYourTurn()
        match action:
            case Hold(die=die):
                return self._toggle(state, die)
            case Roll():
                return self._reroll(state)
            case Score(category=category):
                return self._score(state, category)
            case _:
                assert_never(action)

    def to_act(self, state: CheerioState) -> frozenset[int]:
        return frozenset() if self.is_over(state) else frozenset({state.turn})

    def same_moves(self, before: CheerioState, after: CheerioState, seat: int) -> bool:
        """Never claimed: a click from before others' moves is chosen again, unless the seats
        were awaited side by side (:meth:`to_act`)."""
        return False

    def timeout_actions(self, state: CheerioState) -> list[CheerioAction]:
        if self.is_over(state):
            return []
        return [Score(state.turn, best_category(state.cards[state.turn], state.dice))]

    def clock_mark(self, state: CheerioState) -> Hashable:
        """The turn: its seat and how many boxes are filled. The clock times a whole turn
        (its timeout scores it), so holding dice and rolling never restart it."""
        filled = sum(points is not None for card in state.cards for points in card)
        return state.turn, filled

    def forfeit(self, state: CheerioState, seat: int) -> CheerioState:
        active = tuple(a and s != seat for s, a in enumerate(state.active))
        state = replace(state, active=active)
        if seat == state.turn and any(active):
            return self._start_turn(state, self._next_seat(state, seat))
        return state

    def is_over(self, state: CheerioState) -> bool:
        """No seat still in the game has a box left (asked several times a move: kept cheap)."""
        return not any(
            active and None in card for active, card in zip(state.active, state.cards, strict=True)
        )

    def results(self, state: CheerioState) -> list[SeatResult]:
        return placements([total(card) for card in state.cards], state.active)

    def dump(self, state: CheerioState) -> dict[str, Any]:
        return dict(codec.dump(state))

    def load(self, data: Mapping[str, Any]) -> CheerioState:
        return codec.load(CheerioState, data)

    # The moves.

    def _toggle(self, state: CheerioState, i: int) -> CheerioState:
        if state.rolls >= ROLLS_PER_TURN:
            raise IllegalMove("No rolls are left: choose a category to score in.")
        held = tuple(not h if j == i else h for j, h in enumerate(state.held))
        return replace(state, held=held)

    def _reroll(self, state: CheerioState) -> CheerioState:
        if state.rolls >= ROLLS_PER_TURN:
            raise IllegalMove("No rolls are left: choose a category to score in.")
        if all(state.held):
            raise IllegalMove("Every die is kept: release one to roll, or score now.")
        count = state.held.count(False)
        fresh = iter(self._dice(state, state.turn, count))
        dice = tuple(d if h else next(fresh) for d, h in zip(state.dice, state.held, strict=True))
        return replace(
            state,
            dice=dice,
            draws=state.draws + 1,
            rolls=state.rolls + 1,
            drawn=state.drawn + count,
        )

    def _score(self, state: CheerioState, category: str) -> CheerioState:
        card = state.cards[state.turn]
        if category not in open_categories(card):
            raise IllegalMove(f"You have already scored in {category.title()}.")
        points = score(category, state.dice)
        index = CATEGORIES.index(category)
        new_card = (*card[:index], points, *card[index + 1 :])
        cards = (*state.cards[: state.turn], new_card, *state.cards[state.turn + 1 :])
        state = replace(state, cards=cards, last_score=(state.turn, category, points))
        if self.is_over(state):
            return replace(state, held=(False,) * DICE, rolls=ROLLS_PER_TURN)
        return self._start_turn(state, self._next_seat(state, state.turn))

    def _next_seat(self, state: CheerioState, seat: int) -> int:
        n = len(state.cards)
        for step in range(1, n + 1):
            candidate = (seat + step) % n
            if state.active[candidate] and open_categories(state.cards[candidate]):
                return candidate
        return seat

    def _start_turn(self, state: CheerioState, seat: int) -> CheerioState:
        """A turn begins with all five dice rolled: the first roll is never a choice."""
        state = replace(state, drawn=0)
        dice = self._dice(state, seat, DICE)
        return replace(
            state,
            turn=seat,
            dice=dice,
            held=(False,) * DICE,
            rolls=1,
            draws=state.draws + 1,
            drawn=DICE,
        )

    def _dice(self, state: CheerioState, seat: int, count: int) -> tuple[int, ...]:
        """The next ``count`` dice for ``seat``: from the seed, or on a daily game from the
        day's stream for the seat's turn number (how many categories it has filled)."""
        if state.day is None:
            return roll_dice(state.seed, state.draws, count)
        turn = len(CATEGORIES) - len(open_categories(state.cards[seat]))
        return daily_dice("cheerio", state.day, turn, state.drawn, count)


def best_category(card: Card, dice: Sequence[int]) -> str:
    """The open category worth the most now (the earliest on a tie): the timeout's choice."""
    return max(open_categories(card), key=lambda c: score(c, dice))


ENGINE = CheerioEngine()
