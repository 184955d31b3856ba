"""Hot Score players: only legal moves, and Hard's exact values match a brute force."""

from __future__ import annotations

from dataclasses import replace
from statistics import fmean

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ai import hotscore_players as players
from bot.games.base import roll_dice
from bot.games.hotscore import (
    ENGINE,
    Bonus,
    HotscoreState,
    Sign,
    Stick,
    Throw,
    ThrowDice,
    judge,
    legal_actions,
)

LEVELS = st.sampled_from(["easy", "normal", "hard"])


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32), levels=st.tuples(LEVELS, LEVELS))
def test_whole_games_only_take_legal_moves(seed: int, levels: tuple[str, str]) -> None:
    state = ENGINE.new(seed, 2, {})
    for _ in range(5_000):
        if ENGINE.is_over(state):
            break
        for seat in sorted(ENGINE.to_act(state)):
            action = players.choose(state, seat, levels[seat], seed)
            assert action in legal_actions(state, seat)
            state = ENGINE.apply(state, action)
    assert ENGINE.is_over(state)


def answering(first: Throw, dice: tuple[int, int]) -> HotscoreState:
    """A round where seat 0 started on ``first`` and seat 1 has thrown ``dice``."""
    state = replace(ENGINE.new(1, 2, {}), starter=0, turn=1, phase="choose")
    return replace(state, throws=(first, Throw(dice)))


def starting(dice: tuple[int, int]) -> HotscoreState:
    """A round where seat 0 starts and has thrown ``dice``."""
    state = replace(ENGINE.new(1, 2, {}), starter=0, turn=0, phase="choose")
    return replace(state, throws=(Throw(dice), None))


def draws_for(state: HotscoreState, face: int) -> int:
    """A draw counter whose Bonus Die shows ``face`` (the engine rolls from seed and draws)."""
    return next(d for d in range(1_000) if roll_dice(state.seed, d, 1) == (face,))


def engine_round_value(state: HotscoreState) -> float:
    """Seat 1's round outcome through the engine: 1 win, 0.5 challenge, 0 loss."""
    if state.phase in ("target", "challenge"):
        return 0.5
    return 1.0 if state.scores[1] > 0 else 0.0


def brute_force_answer(first: Throw, dice: tuple[int, int]) -> dict[str, float]:
    """Stick, and the best sign after every Bonus Die face, all played by the engine."""
    state = answering(first, dice)
    stick = engine_round_value(ENGINE.apply(state, players.choose(state, 1, "easy", 0)))
    faces = []
    for face in range(1, 7):
        bonus = replace(state, draws=draws_for(state, face))
        after = ENGINE.apply(bonus, Bonus(1))
        if after.phase != "sign":
            faces.append(engine_round_value(after))
            continue
        signs = [ENGINE.apply(after, a) for a in legal_actions(after, 1)]
        faces.append(max(engine_round_value(s) for s in signs))
    return {"stick": stick, "bonus": fmean(faces)}


POSITIONS = [
    (Throw((3, 4)), (5, 5)),  # 7 to beat with 10: only 11 (forced) or 5,5,5 saves it
    (Throw((5, 6)), (2, 2)),  # 11 to beat: a three-dice 7 forces a challenge
    (Throw((2, 2)), (1, 5)),  # FAR 4 against a NEAR 6: sticking wins
    (Throw((1, 2, 3), -1), (4, 4)),  # a three-dice starter loses to any two dice
    (Throw((3, 3)), (2, 4)),  # NEAR against NEAR: a challenge
]


@pytest.mark.parametrize(("first", "dice"), POSITIONS)
def test_hard_answer_values_match_the_engine(first: Throw, dice: tuple[int, int]) -> None:
    values = players.option_values(first, dice, "win")
    expected = brute_force_answer(first, dice)
    assert values == pytest.approx(expected)


def test_hard_answer_value_by_hand() -> None:
    # 3+4 to beat with 5+5: stick loses; the Bonus Die saves half a round with a 1 (11,
    # forced challenge) or a 5 (three of a kind against HOT): (0.5 + 0.5) / 6.
    values = players.option_values(Throw((3, 4)), (5, 5), "win")
    assert values == pytest.approx({"stick": 0.0, "bonus": 1 / 6})


def brute_force_starter(dice: tuple[int, int]) -> float:
    """The starter's round value of sticking, the answer replying its best to each roll."""

    def answer(reply: tuple[int, int]) -> float:
        stick = judge(Throw(dice), Throw(reply))
        outcomes = [_win(stick)]
        bonus = []
        for c in range(1, 7):
            three = (*reply, c)
            signs = [1] if len(set(three)) == 1 else [1, -1]
            bonus.append(min(_win(judge(Throw(dice), Throw(three, s))) for s in signs))
        outcomes.append(fmean(bonus))
        return min(outcomes)

    return fmean(answer((a, b)) for a in range(1, 7) for b in range(1, 7))


def _win(verdict: object) -> float:
    winner = getattr(verdict, "winner", None)
    return 0.5 if winner is None else 1.0 - winner


@pytest.mark.parametrize("dice", [(3, 4), (1, 1), (2, 6), (4, 5)])
def test_hard_starter_stick_value_matches_brute_force(dice: tuple[int, int]) -> None:
    assert players.option_values(None, dice, "win")["stick"] == pytest.approx(
        brute_force_starter(dice)
    )


def test_hard_forces_a_challenge_and_takes_the_winning_sign() -> None:
    state = answering(Throw((3, 4)), (5, 5))
    assert players.choose(state, 1, "hard", 0) == Bonus(1)
    signing = replace(state, throws=(Throw((3, 4)), Throw((5, 5, 1))), phase="sign")
    assert players.choose(signing, 1, "hard", 0) == Sign(1, "+")  # 11: a forced challenge


@pytest.mark.parametrize(("first", "dice"), [*POSITIONS, (None, (1, 1)), (None, (2, 6))])
def test_hard_takes_the_option_most_likely_to_win_the_round(
    first: Throw | None, dice: tuple[int, int]
) -> None:
    values = players.option_values(first, dice, "win")
    state = answering(first, dice) if first is not None else starting(dice)
    chosen = players.choose(state, state.turn, "hard", 0).verb
    assert values[chosen] == max(values.values())


def test_hard_sticks_on_a_winning_pair() -> None:
    assert players.choose(answering(Throw((2, 2)), (1, 5)), 1, "hard", 0) == Stick(1)


@given(seed=st.integers(0, 2**32), first=st.sampled_from([t for t, _ in POSITIONS]))
@settings(max_examples=30, deadline=None)
def test_easy_always_sticks(seed: int, first: Throw) -> None:
    a, b = roll_dice(seed, 0, 2)
    assert players.choose(answering(first, (a, b)), 1, "easy", seed) == Stick(1)
    starting = replace(answering(first, (a, b)), turn=0, throws=(Throw((a, b)), None))
    assert players.choose(starting, 0, "easy", seed) == Stick(0)


def test_throw_phases_just_throw() -> None:
    state = ENGINE.new(5, 2, {})
    assert players.choose(state, state.turn, "hard", 0) == ThrowDice(state.turn)
    target = replace(state, phase="target", level=1)
    assert players.choose(target, state.starter, "normal", 0) == ThrowDice(state.starter)


def test_unknown_level_is_refused() -> None:
    state = ENGINE.new(5, 2, {})
    with pytest.raises(ValueError):
        players.choose(state, state.turn, "expert", 0)
