"""Hot Score's rules, case by case, from the project's readings in seeds/hotscore.md."""

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games.base import BadInput, IllegalMove, MoveError, roll_dice
from bot.games.hotscore import (
    ENGINE,
    Bonus,
    HotscoreAction,
    HotscoreState,
    Sign,
    Stick,
    Throw,
    ThrowDice,
    Verdict,
    bracket,
    challenge_tally,
    challenge_winner,
    closer_sign,
    current_throw,
    judge,
    legal_actions,
    log_lines,
    lose_points,
    move_towards_100,
    reason,
    sign_values,
    stakes,
    throw_to_beat,
    value,
)

PLUS, MINUS = 1, -1


@pytest.mark.parametrize(
    ("first", "second", "verdict"),
    [
        # Both HOT on two dice: a challenge.
        (Throw((3, 4)), Throw((5, 6)), Verdict(None, 0, 1)),
        # 7 answered by the other HOT number (11) on three dice: forced challenge.
        (Throw((3, 4)), Throw((5, 5, 1), PLUS), Verdict(None, 0, 1)),
        # 7 answered by the same HOT number on three dice: two dice beat three.
        (Throw((3, 4)), Throw((2, 4, 1), PLUS), Verdict(0, 15, 0)),
        # FAR on two dice beats HOT on three; the winner scores its own FAR.
        (Throw((2, 2)), Throw((1, 5, 1), PLUS), Verdict(0, 10, 0)),
        (Throw((2, 2)), Throw((1, 5, 1), MINUS), Verdict(0, 10, 0)),
        # NEAR beats FAR with the same dice.
        (Throw((2, 2)), Throw((6, 6)), Verdict(1, 5, 0)),
        # Two FARs equally close to HOT (5 and 9): a challenge.
        (Throw((1, 4)), Throw((6, 3)), Verdict(None, 0, 1)),
        # Three of a kind against a HOT: double challenge.
        (Throw((4, 4, 4), PLUS), Throw((3, 4)), Verdict(None, 0, 2)),
        # ... but two dice still beat a three of a kind that meets no HOT.
        (Throw((4, 4, 4), PLUS), Throw((1, 1)), Verdict(1, 10, 0)),
        # Three of a kind is HOT against another three-dice throw.
        (Throw((4, 4, 4), PLUS), Throw((2, 3, 3), PLUS), Verdict(0, 15, 0)),
        (Throw((4, 4, 4), MINUS), Throw((2, 3, 3), MINUS), Verdict(0, 15, 0)),
    ],
)
def test_project_examples(first: Throw, second: Throw, verdict: Verdict) -> None:
    assert judge(first, second) == verdict


@pytest.mark.parametrize(
    ("first", "second", "verdict"),
    [
        # Three of a kind against three of a kind, and against a three-dice HOT.
        (Throw((2, 2, 2), PLUS), Throw((5, 5, 5), MINUS), Verdict(None, 0, 2)),
        (Throw((5, 5, 1), PLUS), Throw((6, 6, 6)), Verdict(None, 0, 2)),
        # The closer FAR wins (5 beats 15); NEARs with the same dice challenge.
        (Throw((6, 6, 3), PLUS), Throw((2, 3)), Verdict(1, 10, 0)),
        (Throw((6, 6, 3), PLUS), Throw((2, 2, 1), PLUS), Verdict(1, 10, 0)),
        (Throw((3, 3)), Throw((6, 6)), Verdict(None, 0, 1)),
        # Forcing only works for the second player, against a two-dice HOT.
        (Throw((5, 5, 1), PLUS), Throw((3, 4)), Verdict(1, 15, 0)),
        (Throw((6, 5)), Throw((6, 6, 5), MINUS), Verdict(None, 0, 1)),
    ],
)
def test_more_judging(first: Throw, second: Throw, verdict: Verdict) -> None:
    assert judge(first, second) == verdict


def test_values_and_brackets() -> None:
    assert value(Throw((5, 5, 1), MINUS)) == 9
    assert bracket(Throw((5, 5, 1), MINUS)) == "FAR"
    assert bracket(Throw((1, 1, 1), MINUS)) == "HOT"  # three of a kind, though it adds to 1
    with pytest.raises(ValueError):
        value(Throw((5, 5, 1)))  # the Bonus Die's sign is not chosen yet
    with pytest.raises(ValueError):
        Throw((3, 4), PLUS)


@pytest.mark.parametrize(
    ("score", "points", "after"),
    [(0, 15, 15), (85, 15, 100), (90, 10, 100), (95, 15, 90), (95, 10, 95), (99, 20, 81)],
)
def test_move_towards_100_bounces(score: int, points: int, after: int) -> None:
    assert move_towards_100(score, points) == after


def test_floor_zero_is_an_option() -> None:
    assert lose_points(5, 10) == 0
    assert lose_points(5, 10, floor_zero=False) == -5
    assert ENGINE.new(1, 2, {"floor_zero": False}).floor_zero is False
    assert ENGINE.new(1, 2, {}).floor_zero is True


def test_challenge_throws() -> None:
    assert challenge_tally((2, 4, 5), "even") == (2, 6)
    assert challenge_winner(((2, 4, 5), (6, 6, 1)), "even") == 0  # lower sum of evens
    assert challenge_winner(((2, 3, 5), (6, 6, 1)), "even") == 1  # more evens
    assert challenge_winner(((2, 3, 5), (1, 2, 1)), "even") is None
    assert challenge_winner(((2, 4, 6), (2, 4, 6)), "odd") is None  # no odds either side


# Driving the engine.


def fresh(seed: int = 3) -> HotscoreState:
    return ENGINE.new(seed, 2, {})


def play(state: HotscoreState, *moves: tuple[str, str]) -> HotscoreState:
    """Apply moves for whichever seat is to act (the lowest, in a challenge)."""
    for kind, arg in moves:
        state = ENGINE.apply(state, ENGINE.parse(min(ENGINE.to_act(state)), kind, arg))
    return state


def rigged(state: HotscoreState, *faces: int) -> HotscoreState:
    """The state with its draw counter moved to the next draw showing ``faces``."""
    for draws in range(state.draws, state.draws + 100_000):
        if roll_dice(state.seed, draws, len(faces)) == faces:
            return replace(state, draws=draws)
    raise AssertionError(f"no draw shows {faces}")


def test_opening_roll_off_is_automatic_and_logged() -> None:
    for seed in range(20):
        state = fresh(seed)
        a, b = state.opening[-1]
        assert a != b and state.starter == (0 if a < b else 1) == state.turn
        assert all(x == y for x, y in state.opening[:-1])
        assert state.phase == "throw" and state.draws == len(state.opening)
        assert "starts" in log_lines(state, ["Ann", "Bob"])[-1]


def test_a_round_through_apply() -> None:
    state = fresh()
    starter, other = state.starter, 1 - state.starter
    state = play(rigged(state, 3, 4), ("throw", ""))
    assert current_throw(state) == Throw((3, 4)) and state.phase == "choose"
    assert throw_to_beat(state) is None
    state = play(state, ("stick", ""))
    assert state.turn == other and state.phase == "throw"
    state = play(rigged(state, 5, 5), ("throw", ""))
    assert throw_to_beat(state) == Throw((3, 4))
    state = play(rigged(state, 2), ("bonus", ""))
    assert state.phase == "sign" and sign_values(state) == (12, 8)
    state = play(state, ("sign", "-"))
    # 3+4 HOT on two dice beats 5+5-2 = 8 on three: the starter scores 15, the loser starts.
    assert state.scores[starter] == 15 and state.scores[other] == 0
    assert state.starter == other == state.turn and state.round == 2
    assert log_lines(state, ["A", "B"])[-1].endswith("+15.")


def test_three_of_a_kind_skips_the_sign() -> None:
    state = play(rigged(fresh(), 4, 4), ("throw", ""))
    state = play(rigged(state, 4), ("bonus", ""))
    assert state.phase == "throw" and state.throws[1 - state.turn] == Throw((4, 4, 4), PLUS)


def test_forced_challenge_then_escalation_to_double() -> None:
    state = fresh()
    starter = state.starter
    state = play(rigged(state, 3, 4), ("throw", ""), ("stick", ""))
    state = play(rigged(state, 5, 5), ("throw", ""))
    state = play(rigged(state, 1), ("bonus", ""), ("sign", "+"))
    assert state.phase == "target" and state.level == 1 and stakes(state) == 10
    assert ENGINE.to_act(state) == {starter}
    state = play(rigged(state, 2), ("throw", ""))
    assert state.parity == "even" and state.phase == "challenge"
    assert ENGINE.to_act(state) == {0, 1}
    state = play(rigged(state, 2, 3, 5), ("throw", ""))
    assert ENGINE.to_act(state) == {1}
    state = play(rigged(state, 1, 2, 1), ("throw", ""))
    # One even each, both a 2: tied, so a double challenge, same parity, scores untouched.
    assert state.level == 2 and stakes(state) == 20 and state.parity == "even"
    assert state.challenge_dice == ((), ()) and state.scores == (0, 0)
    assert "tied" in state.log[-1]
    state = play(rigged(state, 2, 2, 1), ("throw", ""))
    state = play(rigged(state, 1, 3, 5), ("throw", ""))
    assert state.scores == (20, 0)
    assert state.starter == 1 and state.phase == "throw" and state.level == 0


def test_challenge_loss_floors_at_zero_unless_disabled() -> None:
    for floor, expected in ((True, 0), (False, -15)):
        state = replace(
            fresh(),
            phase="challenge",
            level=2,
            parity="odd",
            scores=(30, 5),
            floor_zero=floor,
            challenge_dice=((1, 1, 1), ()),
        )
        state = ENGINE.apply(rigged(state, 2, 4, 6), ThrowDice(1))
        assert state.scores == (50, expected)


def test_challenge_gain_bounces_and_exactly_100_wins() -> None:
    base = replace(fresh(), phase="challenge", level=1, parity="odd")
    state = replace(base, scores=(95, 40), challenge_dice=((1, 1, 1), ()))
    state = ENGINE.apply(rigged(state, 2, 4, 6), ThrowDice(1))
    assert state.scores == (95, 30) and not ENGINE.is_over(state)
    state = replace(base, scores=(90, 40), challenge_dice=((1, 1, 1), ()))
    state = ENGINE.apply(rigged(state, 2, 4, 6), ThrowDice(1))
    assert state.scores == (100, 30) and ENGINE.is_over(state) and state.winner == 0
    assert [r.won for r in ENGINE.results(state)] == [True, False]


def test_round_win_to_exactly_100_ends_the_game() -> None:
    state = fresh()
    starter = state.starter
    state = replace(state, scores=_with(state.scores, starter, 90))
    state = play(rigged(state, 1, 1), ("throw", ""), ("stick", ""))  # 2: FAR, worth 10
    state = play(rigged(state, 3, 3), ("throw", ""))
    state = play(rigged(state, 5), ("bonus", ""), ("sign", "+"))  # 11 on three dice
    assert state.scores[starter] == 100 and ENGINE.is_over(state)
    assert ENGINE.to_act(state) == frozenset() and ENGINE.timeout_actions(state) == []
    with pytest.raises(IllegalMove, match="over"):
        ENGINE.apply(state, ThrowDice(starter))


def _with(scores: tuple[int, ...], seat: int, score: int) -> tuple[int, ...]:
    return tuple(score if s == seat else v for s, v in enumerate(scores))


@pytest.mark.parametrize(
    ("setup", "seat_offset", "kind", "arg", "refusal", "message"),
    [
        ((), 1, "throw", "", IllegalMove, "not your turn"),
        ((), 0, "stick", "", IllegalMove, "Throw your dice first"),
        ((), 0, "bonus", "", IllegalMove, "two dice before"),
        ((), 0, "sign", "+", IllegalMove, "Bonus Die before"),
        ((), 0, "roll", "", BadInput, "no move called 'roll'"),
        ((("throw", ""),), 0, "throw", "", IllegalMove, "thrown already"),
        ((("throw", ""),), 0, "sign", "-", IllegalMove, "Bonus Die before"),
        ((("throw", ""), ("bonus", "")), 0, "sign", "x", BadInput, "Choose \\+ or -"),
        ((("throw", ""), ("bonus", "")), 0, "stick", "", IllegalMove, "choose \\+ or -"),
        ((("throw", ""), ("bonus", "")), 0, "bonus", "", IllegalMove, "already thrown the Bonus"),
    ],
)
def test_illegal_moves(
    setup: tuple[tuple[str, str], ...],
    seat_offset: int,
    kind: str,
    arg: str,
    refusal: type[MoveError],
    message: str,
) -> None:
    """Text that is no move is :class:`BadInput`; a move the rules forbid now is illegal."""
    state = play(rigged(fresh(), 2, 3), *setup)  # no three of a kind possible
    seat = (state.turn + seat_offset) % 2
    with pytest.raises(refusal, match=message):
        ENGINE.apply(state, ENGINE.parse(seat, kind, arg))


def test_illegal_moves_in_a_challenge() -> None:
    state = replace(
        fresh(), phase="challenge", level=1, parity="odd", challenge_dice=((1, 2, 3), ())
    )
    with pytest.raises(IllegalMove, match="thrown your challenge dice"):
        ENGINE.apply(state, ThrowDice(0))
    with pytest.raises(IllegalMove, match="no Bonus Die in a challenge"):
        ENGINE.apply(state, Bonus(1))
    with pytest.raises(IllegalMove, match="not playing"):
        ENGINE.apply(state, ThrowDice(2))


def test_timeouts() -> None:
    state = fresh()
    seat = state.turn
    assert ENGINE.timeout_actions(state) == [ThrowDice(seat), Stick(seat)]
    state = play(rigged(state, 2, 3), ("throw", ""))
    assert ENGINE.timeout_actions(state) == [Stick(seat)]
    state = play(rigged(state, 3), ("bonus", ""))  # 2+3: +3 is 8 (NEAR), -3 is 2 (FAR)
    assert closer_sign(state) == "+"
    assert ENGINE.timeout_actions(state) == [Sign(seat, "+")]
    state = play(replace(state, throws=_with_throw(state, seat, Throw((5, 6, 4)))))
    assert closer_sign(state) == "-"  # 15 is 4 from 11; 7 is HOT
    challenge = replace(state, phase="challenge", level=1, parity="odd")
    assert ENGINE.timeout_actions(challenge) == [ThrowDice(0), ThrowDice(1)]


def test_the_clock_mark_is_the_turn_and_a_challenge_throw_is_one() -> None:
    """A seat's throw, Bonus Die and sign keep its turn's mark; the answer's turn has its own.
    The target die is a decision of its own, and both seats' challenge throws share one mark
    until a tie calls for another level."""
    state = fresh()
    starter = ENGINE.clock_mark(state)
    state = play(rigged(state, 3, 4), ("throw", ""))
    assert ENGINE.clock_mark(state) == starter
    state = play(state, ("stick", ""))
    answer = ENGINE.clock_mark(state)
    assert answer != starter
    state = play(rigged(state, 5, 5), ("throw", ""))
    assert ENGINE.clock_mark(state) == answer
    state = play(rigged(state, 1), ("bonus", ""))
    assert state.phase == "sign" and ENGINE.clock_mark(state) == answer
    state = play(state, ("sign", "+"))  # 11 on three dice against a 7: a challenge
    target = ENGINE.clock_mark(state)
    assert state.phase == "target" and target not in (starter, answer)
    state = play(rigged(state, 2), ("throw", ""))
    throws = ENGINE.clock_mark(state)
    assert throws != target
    state = play(rigged(state, 2, 3, 5), ("throw", ""))
    assert ENGINE.to_act(state) == {1} and ENGINE.clock_mark(state) == throws
    state = play(rigged(state, 1, 2, 1), ("throw", ""))  # tied: thrown again, one level up
    again = ENGINE.clock_mark(state)
    assert state.level == 2 and again != throws
    state = play(rigged(state, 2, 2, 1), ("throw", ""))
    assert ENGINE.clock_mark(state) == again
    state = play(rigged(state, 1, 3, 5), ("throw", ""))
    assert state.round == 2 and ENGINE.clock_mark(state) not in (starter, answer, again)


def _with_throw(state: HotscoreState, seat: int, throw: Throw) -> tuple[Throw | None, ...]:
    return tuple(throw if s == seat else t for s, t in enumerate(state.throws))


def test_forfeit_hands_the_game_to_the_other_seat() -> None:
    state = replace(fresh(), scores=(80, 10))
    state = ENGINE.forfeit(state, 0)
    assert ENGINE.is_over(state) and state.winner == 1
    assert [(r.placement, r.won) for r in ENGINE.results(state)] == [(2, False), (1, True)]
    assert ENGINE.forfeit(state, 1) == state


def test_log_is_capped() -> None:
    state = finish(fresh(11), random.Random(0))
    assert 0 < len(state.log) <= 8


# Whole games.


def simple_policy(state: HotscoreState, seat: int) -> HotscoreAction:
    """Stick on HOT or NEAR, otherwise try the Bonus Die and take the sign nearer HOT."""
    if state.phase == "choose":
        own = state.throws[seat]
        assert own is not None
        return Stick(seat) if bracket(own) != "FAR" else Bonus(seat)
    if state.phase == "sign":
        return Sign(seat, closer_sign(state))
    return ThrowDice(seat)


def check_invariants(state: HotscoreState) -> None:
    assert all(0 <= s <= 100 for s in state.scores)
    assert ENGINE.is_over(state) == (state.winner is not None)
    if state.winner is not None:
        assert state.scores[state.winner] == 100 or not all(state.active)
    assert len(state.log) <= 8
    assert ENGINE.load(ENGINE.dump(state)) == state


def test_whole_game_with_a_fixed_seed() -> None:
    state = ENGINE.new(2024, 2, {})
    moves = 0
    while not ENGINE.is_over(state):
        seat = min(ENGINE.to_act(state))
        state = ENGINE.apply(state, simple_policy(state, seat))
        check_invariants(state)
        moves += 1
        assert moves < 10_000
    assert state.winner is not None and state.scores[state.winner] == 100
    assert ENGINE.results(state)[state.winner].won


def finish(state: HotscoreState, chooser: random.Random) -> HotscoreState:
    while not ENGINE.is_over(state):
        seat = chooser.choice(sorted(ENGINE.to_act(state)))
        state = ENGINE.apply(state, chooser.choice(legal_actions(state, seat)))
    return state


def test_dump_load_round_trip_mid_game() -> None:
    state = play(rigged(fresh(), 2, 3), ("throw", ""), ("bonus", ""))
    assert ENGINE.load(ENGINE.dump(state)) == state
    challenge = replace(state, phase="challenge", level=2, parity="odd", target_die=3)
    challenge = replace(challenge, challenge_dice=((1, 2, 3), ()))
    assert ENGINE.load(ENGINE.dump(challenge)) == challenge


def test_replay_is_deterministic() -> None:
    chooser = random.Random(5)
    state = ENGINE.new(77, 2, {})
    actions: list[HotscoreAction] = []
    while not ENGINE.is_over(state):
        seat = chooser.choice(sorted(ENGINE.to_act(state)))
        action = chooser.choice(legal_actions(state, seat))
        actions.append(action)
        state = ENGINE.apply(state, action)
    again = ENGINE.new(77, 2, {})
    for action in actions:
        again = ENGINE.apply(again, action)
    assert again == state


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), choices=st.randoms(use_true_random=False))
def test_random_legal_play_never_raises(seed: int, choices: random.Random) -> None:
    state = ENGINE.new(seed, 2, {})
    for _ in range(2_000):
        if ENGINE.is_over(state):
            break
        seat = choices.choice(sorted(ENGINE.to_act(state)))
        state = ENGINE.apply(state, choices.choice(legal_actions(state, seat)))
        assert all(0 <= s <= 100 for s in state.scores)
        assert all(legal_actions(state, s) for s in ENGINE.to_act(state))
    assert ENGINE.load(ENGINE.dump(state)) == state


@pytest.mark.parametrize(
    ("first", "second", "why"),
    [
        (Throw((1, 2)), Throw((3, 3, 1), 1), "two dice beat three"),  # 3 FAR on two dice wins
        (Throw((3, 3)), Throw((1, 2)), "NEAR beats FAR"),  # 6 against 3
        (Throw((1, 3)), Throw((6, 3)), "9 is closer to 7 or 11 than 4"),  # 2 away against 3
        (Throw((2, 3)), Throw((6, 3)), "same dice count and bracket, equally close to 7 or 11"),
        (Throw((3, 4)), Throw((2, 2, 2)), "three of a kind against HOT"),  # a double challenge
        (Throw((3, 4)), Throw((5, 5, 1), 1), "the other HOT on three dice answers a two-dice HOT"),
    ],
)
def test_a_round_result_says_why_in_the_rules_order(first: Throw, second: Throw, why: str) -> None:
    assert reason(first, second) == why


def test_the_log_says_where_a_bounced_or_floored_score_ends() -> None:
    """95 + 15 passes 100 and bounces back to 90, and a challenge loss stops at 0: the log
    line says so, rather than a bare "+15" or "-20" beside a bar showing something else."""
    state = fresh()
    starter = state.starter
    state = replace(state, scores=_with(state.scores, starter, 95))
    state = play(rigged(state, 3, 4), ("throw", ""), ("stick", ""))  # 7: HOT on two dice
    state = play(rigged(state, 1, 1), ("throw", ""), ("stick", ""))  # 2: FAR
    assert state.scores[starter] == 90
    names = ["Ann", "Bob"]
    assert log_lines(state, names)[-1].endswith(
        f"HOT beats FAR, {names[starter]} +15 (past 100: back to 90)."
    )
    state = replace(
        fresh(),
        phase="challenge",
        level=2,
        parity="odd",
        scores=(95, 5),
        challenge_dice=((1, 1, 1), ()),
    )
    state = ENGINE.apply(rigged(state, 2, 4, 6), ThrowDice(1))
    assert state.scores == (85, 0)
    assert log_lines(state, names)[-1].endswith(
        ": Ann +20 (past 100: back to 85), Bob -20 (stops at 0)."
    )
    state = replace(state, phase="challenge", level=1, parity="odd", scores=(40, 30))
    state = ENGINE.apply(
        rigged(replace(state, challenge_dice=((1, 1, 1), ())), 2, 4, 6), ThrowDice(1)
    )
    assert log_lines(state, names)[-1].endswith(": Ann +10, Bob -10.")


@pytest.mark.parametrize(
    ("phase", "dice", "throw"),
    [
        ("target", ((), ()), "throw the die that sets odd or even"),
        ("challenge", ((), (1, 2, 3)), "throw your three dice"),
    ],
)
@pytest.mark.parametrize("move", [Stick(0), Bonus(0), Sign(0, "+")])
def test_a_stick_bonus_or_sign_in_a_challenge_is_refused_saying_what_to_throw(
    phase: str, dice: tuple[tuple[int, ...], ...], throw: str, move: HotscoreAction
) -> None:
    """Not "there is nothing to stick on yet" or "throw the Bonus Die before choosing + or -":
    a challenge has neither, only its throws."""
    state = replace(fresh(), phase=phase, level=1, starter=0, turn=0, challenge_dice=dice)
    state = replace(state, parity="odd" if phase == "challenge" else "")
    refusal = f"There is no sticking and no Bonus Die in a challenge: {throw}."
    with pytest.raises(IllegalMove) as refused:
        ENGINE.apply(state, move)
    assert str(refused.value) == refusal
