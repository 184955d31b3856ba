"""Hot Score: two players race to exactly 100 with two or three dice. See seeds/hotscore.md.

Pure rules: no I/O. Every throw is one action (a Throw button in the UI); only the opening
roll-off, which nobody decides anything in, happens by itself inside :meth:`new`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Self, TypeVar, assert_never

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
    placements,
    roll_dice,
)

HOT = frozenset({7, 11})
NEAR = frozenset({6, 8, 10, 12})
POINTS = {"HOT": 15, "NEAR": 5, "FAR": 10}
RANK = {"HOT": 2, "NEAR": 1, "FAR": 0}
GOAL = 100
CHALLENGE_STAKE = 10
LOG_LIMIT = 8
SIGNS = {"+": 1, "-": -1}

# Phases, each waiting for one kind of click:
# throw: the seat to play throws two dice ("throw").
# choose: it "stick"s or throws the Bonus Die ("bonus").
# sign: it picks "sign" "+" or "-" for the Bonus Die.
# target: the round's starter throws the challenge's parity die ("throw").
# challenge: each seat that has not yet done so throws three dice ("throw").
# over: nothing more.
ROUND_PHASES = frozenset({"throw", "choose", "sign"})
CHALLENGE_PHASES = frozenset({"target", "challenge"})

T = TypeVar("T")


@dataclass(frozen=True)
class Throw:
    """One player's dice for a round: two, or three where the third is the Bonus Die.

    ``bonus_sign`` is +1 or -1 once chosen; 0 means two dice, or a Bonus Die whose sign is
    still to be picked (only three of a kind, where the sign is irrelevant, may stay 0).
    """

    dice: tuple[int, ...]
    bonus_sign: int = 0

    def __post_init__(self) -> None:
        if len(self.dice) not in (2, 3) or not all(1 <= d <= 6 for d in self.dice):
            raise ValueError(f"a throw is two or three dice from 1 to 6, not {self.dice}")
        if self.bonus_sign not in (-1, 0, 1) or (len(self.dice) == 2 and self.bonus_sign):
            raise ValueError("only a third (Bonus) die takes a sign of +1 or -1")


@dataclass(frozen=True)
class Verdict:
    """A round's outcome: ``winner`` 0 (first) or 1 (second) scoring ``points``, or a
    challenge of ``challenge`` level (1 single, 2 double) with ``winner`` None."""

    winner: int | None
    points: int
    challenge: int


def is_three_of_a_kind(throw: Throw) -> bool:
    return len(throw.dice) == 3 and len(set(throw.dice)) == 1


def value(throw: Throw) -> int:
    """The two dice's sum, plus or minus the Bonus Die (a sign-less triple counts as +)."""
    base = throw.dice[0] + throw.dice[1]
    if len(throw.dice) == 2:
        return base
    if throw.bonus_sign == 0 and not is_three_of_a_kind(throw):
        raise ValueError("the Bonus Die's sign has not been chosen")
    return base + (throw.bonus_sign or 1) * throw.dice[2]


def value_bracket(number: int) -> str:
    """HOT, NEAR or FAR for a plain number (what the sign buttons preview)."""
    if number in HOT:
        return "HOT"
    return "NEAR" if number in NEAR else "FAR"


def bracket(throw: Throw) -> str:
    """A throw's bracket; three of a kind is the equal of HOT whatever it adds up to."""
    return "HOT" if is_three_of_a_kind(throw) else value_bracket(value(throw))


def distance_to_hot(number: int) -> int:
    return min(abs(number - hot) for hot in HOT)


def points_for(throw: Throw) -> int:
    """What this throw earns if it wins its round: its own bracket's points."""
    return POINTS[bracket(throw)]


def _strength(throw: Throw) -> tuple[int, int]:
    """Order within one dice count: bracket first; only FARs go on to closeness to HOT."""
    kind = bracket(throw)
    return RANK[kind], -distance_to_hot(value(throw)) if kind == "FAR" else 0


def _forces_challenge(first: Throw, second: Throw) -> bool:
    """The second player answered a two-dice HOT with the other HOT number on three dice."""
    if len(first.dice) != 2 or len(second.dice) != 3 or is_three_of_a_kind(second):
        return False
    target = value(first)
    return target in HOT and value(second) in HOT - {target}


def judge(first: Throw, second: Throw) -> Verdict:
    """Who wins a round, in the rule order of seeds/hotscore.md (first match decides)."""
    throws = (first, second)
    hot = [bracket(t) == "HOT" for t in throws]
    triple = [is_three_of_a_kind(t) for t in throws]
    if (triple[0] and hot[1]) or (triple[1] and hot[0]):
        return Verdict(None, 0, 2)
    if _forces_challenge(first, second):
        return Verdict(None, 0, 1)
    if len(first.dice) != len(second.dice):
        return _win(throws, 0 if len(first.dice) < len(second.dice) else 1)
    strengths = (_strength(first), _strength(second))
    if strengths[0] != strengths[1]:
        return _win(throws, 0 if strengths[0] > strengths[1] else 1)
    return Verdict(None, 0, 1)


def reason(first: Throw, second: Throw) -> str:
    """Why :func:`judge` decided as it did, in the same rule order, for the round's log line."""
    kinds = ["three of a kind" if is_three_of_a_kind(t) else bracket(t) for t in (first, second)]
    if "three of a kind" in kinds and all(bracket(t) == "HOT" for t in (first, second)):
        other = kinds[1] if kinds[0] == "three of a kind" else kinds[0]
        return f"three of a kind against {other}"
    if _forces_challenge(first, second):
        return "the other HOT on three dice answers a two-dice HOT"
    if len(first.dice) != len(second.dice):
        return "two dice beat three"
    strengths = (_strength(first), _strength(second))
    if strengths[0] == strengths[1]:
        return "same dice count and bracket" + (
            ", equally close to 7 or 11" if kinds[0] == "FAR" else ""
        )
    win, lose = (first, second) if strengths[0] > strengths[1] else (second, first)
    if bracket(win) == bracket(lose):
        return f"{value(win)} is closer to 7 or 11 than {value(lose)}"
    return f"{bracket(win)} beats {bracket(lose)}"


def challenge_name(level: int) -> str:
    """A challenge by its level, as the log and the buttons say it: ``a double challenge``."""
    return {1: "a challenge", 2: "a double challenge"}.get(level, f"a ×{level} challenge")


def _win(throws: tuple[Throw, Throw], winner: int) -> Verdict:
    return Verdict(winner, points_for(throws[winner]), 0)


def move_towards_100(score: int, points: int) -> int:
    """Add a gain; whatever would pass 100 bounces back down (95 + 15 is 90), never below 0."""
    if points < 0:
        raise ValueError("a gain cannot be negative")
    total = score + points
    return max(2 * GOAL - total, 0) if total > GOAL else total


def lose_points(score: int, points: int, *, floor_zero: bool = True) -> int:
    """A challenge loss; with ``floor_zero`` (the default) a score never drops below 0."""
    left = score - points
    return max(left, 0) if floor_zero else left


def describe(throw: Throw) -> str:
    """Dice, value and bracket in a few characters: ``5+5-1 = 9 FAR``."""
    if is_three_of_a_kind(throw):
        return f"{'+'.join(map(str, throw.dice))} three of a kind"
    text = f"{throw.dice[0]}+{throw.dice[1]}"
    if len(throw.dice) == 3:
        if throw.bonus_sign == 0:
            return f"{text} ±{throw.dice[2]}"
        text += f"{'+' if throw.bonus_sign > 0 else '-'}{throw.dice[2]}"
    return f"{text} = {value(throw)} {bracket(throw)}"


def challenge_tally(dice: Sequence[int], parity: str) -> tuple[int, int]:
    """How many dice match the parity, and their sum (more wins, then the lower sum)."""
    matching = [d for d in dice if d % 2 == (1 if parity == "odd" else 0)]
    return len(matching), sum(matching)


def challenge_winner(dice: Sequence[Sequence[int]], parity: str) -> int | None:
    """Seat 0 or 1 winning a challenge throw, or None when it must be thrown again."""
    (count0, sum0), (count1, sum1) = (challenge_tally(d, parity) for d in dice)
    if count0 != count1:
        return 0 if count0 > count1 else 1
    if sum0 != sum1:
        return 0 if sum0 < sum1 else 1
    return None


# The actions: what a seat may do, and how each is written down.


@dataclass(frozen=True)
class ThrowDice(Act, verb="throw"):
    """Throw the dice the phase calls for: two, the challenge's parity die, or three."""


@dataclass(frozen=True)
class Stick(Act, verb="stick"):
    """Keep the two dice thrown."""


@dataclass(frozen=True)
class Bonus(Act, verb="bonus"):
    """Throw the Bonus Die."""


@dataclass(frozen=True)
class Sign(Act, verb="sign"):
    """Add (``"+"``) or take away (``"-"``) the Bonus Die."""

    sign: str

    def __post_init__(self) -> None:
        if self.sign not in SIGNS:
            raise BadInput("Choose + or - for the Bonus Die.")

    @classmethod
    def read(cls, seat: int, arg: str) -> Self:
        return cls(seat, arg)

    @property
    def arg(self) -> str:
        return self.sign


HotscoreAction = ThrowDice | Stick | Bonus | Sign
VERBS = Verbs[HotscoreAction]("Hot Score", ThrowDice, Stick, Bonus, Sign)


@dataclass(frozen=True)
class HotscoreState:
    """A whole game. ``throws`` is per seat for the current round; ``turn`` is the seat
    throwing in round phases (the starter in ``target``). Log lines name seats as ``{0}`` and
    ``{1}``: see :func:`log_lines`."""

    seed: int
    draws: int
    scores: tuple[int, ...]
    active: tuple[bool, ...]
    phase: str
    round: int
    starter: int
    turn: int
    throws: tuple[Throw | None, ...] = (None, None)
    level: int = 0
    parity: str = ""
    target_die: int | None = None
    challenge_dice: tuple[tuple[int, ...], ...] = ((), ())
    winner: int | None = None
    floor_zero: bool = True
    opening: tuple[tuple[int, ...], ...] = ()
    log: tuple[str, ...] = ()


def _set(values: tuple[T, ...], index: int, item: T) -> tuple[T, ...]:
    return (*values[:index], item, *values[index + 1 :])


def _seat(seat: int) -> str:
    return "{" + str(seat) + "}"


def _logged(state: HotscoreState, *lines: str) -> HotscoreState:
    return replace(state, log=(*state.log, *lines)[-LOG_LIMIT:])


def _gained(seat: int, points: int, before: int, after: int) -> str:
    """A gain for the log, saying where a score that passed 100 bounced back to."""
    text = f"{_seat(seat)} +{points}"
    return text if after == before + points else f"{text} (past 100: back to {after})"


def _lost(seat: int, points: int, before: int, after: int) -> str:
    """A challenge loss for the log, saying when the floor at 0 kept some of it."""
    text = f"{_seat(seat)} -{points}"
    return text if after == before - points else f"{text} (stops at 0)"


def _only_throws(state: HotscoreState) -> str:
    """The refusal of a stick, Bonus Die or sign during a challenge, saying what to throw."""
    dice = "the die that sets odd or even" if state.phase == "target" else "your three dice"
    return f"There is no sticking and no Bonus Die in a challenge: throw {dice}."


def log_lines(state: HotscoreState, names: Sequence[str]) -> list[str]:
    """The recent events with seats replaced by ``names`` (oldest first)."""
    return [line.format(*names) for line in state.log]


def current_throw(state: HotscoreState) -> Throw | None:
    """The dice of the seat now playing its round (None before it throws)."""
    return state.throws[state.turn] if state.phase in ROUND_PHASES else None


def throw_to_beat(state: HotscoreState) -> Throw | None:
    """The starter's finished throw, while the other seat is playing to beat it."""
    if state.phase not in ROUND_PHASES or state.turn == state.starter:
        return None
    return state.throws[state.starter]


def sign_values(state: HotscoreState) -> tuple[int, int]:
    """The values that "+" and "-" would give the Bonus Die waiting for its sign."""
    throw = state.throws[state.turn]
    if state.phase != "sign" or throw is None:
        raise ValueError("no Bonus Die is waiting for a sign")
    base, bonus = throw.dice[0] + throw.dice[1], throw.dice[2]
    return base + bonus, base - bonus


def stakes(state: HotscoreState) -> int:
    """Points the challenge in progress moves each way (0 outside a challenge)."""
    return CHALLENGE_STAKE * state.level


def legal_actions(state: HotscoreState, seat: int) -> list[HotscoreAction]:
    """Every move ``seat`` may make now (for bots and property tests)."""
    if seat not in ENGINE.to_act(state):
        return []
    if state.phase == "choose":
        return [Stick(seat), Bonus(seat)]
    if state.phase == "sign":
        return [Sign(seat, "+"), Sign(seat, "-")]
    return [ThrowDice(seat)]


def closer_sign(state: HotscoreState) -> str:
    """The sign leaving the value nearer HOT ("+" on a tie): the timeout's choice."""
    plus, minus = sign_values(state)
    return "-" if distance_to_hot(minus) < distance_to_hot(plus) else "+"


class HotscoreEngine(Written[HotscoreAction]):
    """The runner's view of Hot Score (see :class:`bot.games.base.Engine`)."""

    verbs = VERBS
    kind = "hotscore"
    min_players = 2
    max_players = 2
    toggles = frozenset[str]()

    def new(self, seed: int, players: int, options: Options) -> HotscoreState:
        if players != 2:
            raise ValueError(f"Hot Score is for exactly 2 players, not {players}")
        state = HotscoreState(
            seed=seed,
            draws=0,
            scores=(0, 0),
            active=(True, True),
            phase="throw",
            round=1,
            starter=0,
            turn=0,
            floor_zero=bool(options.get("floor_zero", True)),
        )
        return self._roll_off(state)

    def view_for(self, state: HotscoreState, seat: int) -> HotscoreState:
        """Every die in Hot Score is thrown in the open."""
        return state

    def apply(self, state: HotscoreState, action: HotscoreAction) -> HotscoreState:
        if state.phase == "over":
            raise IllegalMove("This game is over.")
        if action.seat not in (0, 1):
            raise IllegalMove("You are not playing in this game.")
        if action.seat not in self.to_act(state):
            raise NotYourTurn(self._not_yours(state))
        match action:
            case ThrowDice(seat=seat):
                return self._throw(state, seat)
            case Stick():
                return self._stick(state)
            case Bonus():
                return self._bonus(state)
            case Sign(sign=sign):
                return self._sign(state, sign)
            case _:
                assert_never(action)

    def to_act(self, state: HotscoreState) -> frozenset[int]:
        if state.phase == "over":
            return frozenset()
        if state.phase == "challenge":
            return frozenset(s for s in (0, 1) if not state.challenge_dice[s])
        return frozenset({state.turn})

    def same_moves(self, before: HotscoreState, after: HotscoreState, seat: int) -> bool:
        """Never claimed: a click from before others' moves is chosen again, unless the seats
        were awaited side by side (:meth:`to_act`)."""
        return False

    def clock_mark(self, state: HotscoreState) -> Hashable:
        """The decision awaited: a seat's turn in a round, the target die, or a challenge's
        throw at its level. A turn is timed whole, as its timeout plays it whole (throwing,
        then sticking), so its throw and Bonus Die never restart the clock; both seats throw
        the challenge dice at once, so the first throw does not restart it for the other."""
        if state.phase in ROUND_PHASES:
            return "round", state.round, state.turn
        return state.phase, state.round, state.level

    def timeout_actions(self, state: HotscoreState) -> list[HotscoreAction]:
        """A late player sticks (throwing first if it must); a waiting Bonus Die takes
        :func:`closer_sign`; the challenge dice are thrown for whoever is late."""
        seat = state.turn
        if state.phase == "throw":
            return [ThrowDice(seat), Stick(seat)]
        if state.phase == "choose":
            return [Stick(seat)]
        if state.phase == "sign":
            return [Sign(seat, closer_sign(state))]
        return [ThrowDice(s) for s in sorted(self.to_act(state))]

    def forfeit(self, state: HotscoreState, seat: int) -> HotscoreState:
        """Two players only: whoever leaves hands the game to the other."""
        if state.phase == "over" or not state.active[seat]:
            return state
        other = 1 - seat
        state = replace(state, active=_set(state.active, seat, False), phase="over", winner=other)
        return _logged(state, f"{_seat(seat)} leaves the game: {_seat(other)} wins.")

    def is_over(self, state: HotscoreState) -> bool:
        return state.phase == "over"

    def results(self, state: HotscoreState) -> list[SeatResult]:
        return placements(list(state.scores), state.active)

    def dump(self, state: HotscoreState) -> dict[str, Any]:
        return dict(codec.dump(state))

    def load(self, data: Mapping[str, Any]) -> HotscoreState:
        return codec.load(HotscoreState, data)

    # The moves.

    def _not_yours(self, state: HotscoreState) -> str:
        """Why the seat waits, when more than whose turn it is says so."""
        return "You have thrown your challenge dice." if state.phase == "challenge" else ""

    def _throw(self, state: HotscoreState, seat: int) -> HotscoreState:
        if state.phase == "throw":
            dice = roll_dice(state.seed, state.draws, 2)
            throws = _set(state.throws, state.turn, Throw(dice))
            return replace(state, throws=throws, draws=state.draws + 1, phase="choose")
        if state.phase == "target":
            return self._throw_target(state)
        if state.phase == "challenge":
            return self._throw_challenge(state, seat)
        if state.phase == "choose":
            raise IllegalMove("You have thrown already: stick, or throw the Bonus Die.")
        raise IllegalMove("Choose + or - for your Bonus Die first.")

    def _stick(self, state: HotscoreState) -> HotscoreState:
        if state.phase == "choose":
            return self._finish_throw(state)
        if state.phase in CHALLENGE_PHASES:
            raise IllegalMove(_only_throws(state))
        if state.phase == "sign":
            raise IllegalMove("The Bonus Die is thrown: choose + or - for it.")
        raise IllegalMove("Throw your dice first: there is nothing to stick on yet.")

    def _bonus(self, state: HotscoreState) -> HotscoreState:
        if state.phase != "choose":
            raise IllegalMove(self._no_bonus_now(state))
        own = state.throws[state.turn]
        assert own is not None
        (die,) = roll_dice(state.seed, state.draws, 1)
        throw = Throw((*own.dice, die))
        state = replace(state, draws=state.draws + 1, throws=_set(state.throws, state.turn, throw))
        if is_three_of_a_kind(throw):
            # The sign cannot matter for three of a kind, so nobody is asked for it.
            return self._finish_throw(self._with_sign(state, 1))
        return replace(state, phase="sign")

    def _no_bonus_now(self, state: HotscoreState) -> str:
        if state.phase == "throw":
            return "Throw your two dice before the Bonus Die."
        if state.phase == "sign":
            return "You have already thrown the Bonus Die: choose + or - for it."
        return _only_throws(state)

    def _sign(self, state: HotscoreState, sign: str) -> HotscoreState:
        if state.phase in CHALLENGE_PHASES:
            raise IllegalMove(_only_throws(state))
        if state.phase != "sign":
            raise IllegalMove("Throw the Bonus Die before choosing + or - for it.")
        return self._finish_throw(self._with_sign(state, SIGNS[sign]))

    def _with_sign(self, state: HotscoreState, sign: int) -> HotscoreState:
        own = state.throws[state.turn]
        assert own is not None
        return replace(state, throws=_set(state.throws, state.turn, replace(own, bonus_sign=sign)))

    # Resolving rounds and challenges.

    def _finish_throw(self, state: HotscoreState) -> HotscoreState:
        """The starter's throw passes the dice on; the answer's throw settles the round."""
        if state.turn == state.starter:
            return replace(state, turn=1 - state.starter, phase="throw")
        first, second = state.throws[state.starter], state.throws[state.turn]
        assert first is not None and second is not None
        verdict = judge(first, second)
        if verdict.winner is None:
            return self._start_challenge(state, verdict.challenge)
        winner = state.starter if verdict.winner == 0 else state.turn
        return self._award_round(state, winner, verdict.points)

    def _round_text(self, state: HotscoreState) -> str:
        first, second = state.starter, 1 - state.starter
        a, b = state.throws[first], state.throws[second]
        assert a is not None and b is not None
        return f"Round {state.round}: {_seat(first)} {describe(a)} vs {_seat(second)} {describe(b)}"

    def _why(self, state: HotscoreState) -> str:
        first, second = state.throws[state.starter], state.throws[1 - state.starter]
        assert first is not None and second is not None
        return reason(first, second)

    def _award_round(self, state: HotscoreState, winner: int, points: int) -> HotscoreState:
        before = state.scores[winner]
        score = move_towards_100(before, points)
        state = replace(state, scores=_set(state.scores, winner, score))
        gain = _gained(winner, points, before, score)
        text = f"{self._round_text(state)}: {self._why(state)}, {gain}."
        state = _logged(state, text)
        return self._after_scoring(state, winner, loser=1 - winner)

    def _start_challenge(self, state: HotscoreState, level: int) -> HotscoreState:
        name = challenge_name(level)
        state = _logged(state, f"{self._round_text(state)}: {self._why(state)}, {name}!")
        return replace(state, phase="target", level=level, turn=state.starter)

    def _throw_target(self, state: HotscoreState) -> HotscoreState:
        (die,) = roll_dice(state.seed, state.draws, 1)
        parity = "odd" if die % 2 else "even"
        state = replace(
            state, draws=state.draws + 1, target_die=die, parity=parity, phase="challenge"
        )
        return _logged(state, f"{_seat(state.starter)} throws {die}: the challenge is {parity}.")

    def _throw_challenge(self, state: HotscoreState, seat: int) -> HotscoreState:
        dice = roll_dice(state.seed, state.draws, 3)
        state = replace(
            state, draws=state.draws + 1, challenge_dice=_set(state.challenge_dice, seat, dice)
        )
        if all(state.challenge_dice):
            return self._settle_challenge(state)
        return state

    def _challenge_text(self, state: HotscoreState) -> str:
        parts = []
        for seat in (0, 1):
            dice = state.challenge_dice[seat]
            count, total = challenge_tally(dice, state.parity)
            shown = ",".join(map(str, dice))
            parts.append(f"{_seat(seat)} {shown} ({count} {state.parity}, sum {total})")
        return f"Challenge ×{state.level}: " + " vs ".join(parts)

    def _settle_challenge(self, state: HotscoreState) -> HotscoreState:
        text = self._challenge_text(state)
        winner = challenge_winner(state.challenge_dice, state.parity)
        if winner is None:
            state = _logged(state, f"{text}: tied, thrown again at ×{state.level + 1}.")
            return replace(state, level=state.level + 1, challenge_dice=((), ()))
        loser, stake, before = 1 - winner, stakes(state), state.scores
        scores = _set(before, winner, move_towards_100(before[winner], stake))
        scores = _set(scores, loser, lose_points(before[loser], stake, floor_zero=state.floor_zero))
        state = replace(state, scores=scores)
        gain = _gained(winner, stake, before[winner], scores[winner])
        loss = _lost(loser, stake, before[loser], scores[loser])
        state = _logged(state, f"{text}: {gain}, {loss}.")
        return self._after_scoring(state, winner, loser)

    def _after_scoring(self, state: HotscoreState, winner: int, loser: int) -> HotscoreState:
        """Exactly 100 ends the game; otherwise the loser starts a fresh round."""
        if state.scores[winner] == GOAL:
            state = replace(state, phase="over", winner=winner)
            return _logged(state, f"{_seat(winner)} reaches exactly {GOAL} and wins!")
        return replace(
            state,
            phase="throw",
            round=state.round + 1,
            starter=loser,
            turn=loser,
            throws=(None, None),
            level=0,
            parity="",
            target_die=None,
            challenge_dice=((), ()),
        )

    def _roll_off(self, state: HotscoreState) -> HotscoreState:
        """One die each, lowest starts, ties throw again: automatic, nobody chooses anything."""
        rolls: list[tuple[int, ...]] = []
        while not rolls or rolls[-1][0] == rolls[-1][1]:
            rolls.append(roll_dice(state.seed, state.draws + len(rolls), 2))
        (a, b), ties = rolls[-1], len(rolls) - 1
        first = 0 if a < b else 1
        state = replace(
            state, draws=state.draws + len(rolls), opening=tuple(rolls), starter=first, turn=first
        )
        again = f" (after {ties} tied throw{'s' if ties > 1 else ''})" if ties else ""
        text = f"Opening roll: {_seat(0)} {a}, {_seat(1)} {b}{again}. {_seat(first)} starts."
        return _logged(state, text)


ENGINE = HotscoreEngine()
