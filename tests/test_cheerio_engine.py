"""Cheerio's rules, case by case, worked by hand from the seed text."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games.base import BadInput, IllegalMove
from bot.games.cheerio import (
    CATEGORIES,
    ENGINE,
    CheerioAction,
    CheerioState,
    Hold,
    Roll,
    Score,
    run_kind,
    score,
)


@pytest.mark.parametrize(
    ("dice", "category", "points"),
    [
        # The seed's own example: three fives and two sixes.
        ((5, 5, 5, 6, 6), "fives", 15),
        ((5, 5, 5, 6, 6), "sixes", 12),
        ((5, 5, 5, 6, 6), "fours", 0),
        # Three ones, a two and a three: four twos or four threes, or three ones.
        ((1, 1, 1, 2, 3), "twos", 8),
        ((1, 1, 1, 2, 3), "threes", 12),
        ((1, 1, 1, 2, 3), "ones", 3),
        ((1, 1, 1, 2, 3), "fours", 0),
        ((1, 1, 1, 2, 3), "sixes", 0),
        # Wild ones count once the face shows.
        ((6, 6, 6, 6, 1), "sixes", 30),
        ((4, 1, 2, 3, 5), "fours", 8),
        # Honest five of a kind doubles; five ones are always honest.
        ((6, 6, 6, 6, 6), "sixes", 60),
        ((2, 2, 2, 2, 2), "twos", 20),
        ((1, 1, 1, 1, 1), "ones", 10),
        ((1, 1, 1, 1, 1), "sixes", 0),
        # Four of a kind plus a wild one is not honest five: no bonus.
        ((3, 3, 3, 3, 1), "threes", 15),
        # Cheerio: honest runs 50.
        ((1, 2, 3, 4, 5), "cheerio", 50),
        ((6, 5, 4, 3, 2), "cheerio", 50),
        # Runs made with wild ones 25 (both seed examples).
        ((2, 3, 4, 1, 6), "cheerio", 25),
        ((6, 1, 1, 1, 1), "cheerio", 25),
        ((1, 1, 3, 4, 5), "cheerio", 25),
        ((1, 1, 1, 1, 1), "cheerio", 25),
        # Not runs.
        ((1, 2, 3, 4, 4), "cheerio", 0),
        ((2, 3, 4, 5, 5), "cheerio", 0),
        ((1, 2, 3, 5, 6), "cheerio", 25),
        ((3, 3, 3, 3, 3), "cheerio", 0),
    ],
)
def test_score(dice: tuple[int, ...], category: str, points: int) -> None:
    assert score(category, dice) == points


def test_unknown_category_is_an_error() -> None:
    with pytest.raises(ValueError):
        score("chance", (1, 2, 3, 4, 5))


def test_run_kind_distinguishes_honest_from_wild() -> None:
    assert run_kind((2, 3, 4, 5, 6)) == "honest"
    assert run_kind((1, 3, 4, 5, 6)) == "wild"
    assert run_kind((1, 3, 3, 5, 6)) is None


def at(state: CheerioState, dice: tuple[int, ...], rolls: int = 1) -> CheerioState:
    """The same game with the current seat's dice set by hand."""
    return replace(state, dice=dice, rolls=rolls)


def test_turn_starts_rolled_and_allows_two_rerolls() -> None:
    state = ENGINE.new(seed=7, players=2, options={})
    assert len(state.dice) == 5 and state.rolls == 1 and state.turn == 0
    state = ENGINE.apply(state, Hold(0, 0))
    assert state.held == (True, False, False, False, False)
    kept = state.dice[0]
    state = ENGINE.apply(state, Roll(0))
    assert state.dice[0] == kept and state.rolls == 2
    state = ENGINE.apply(state, Roll(0))
    assert state.rolls == 3
    with pytest.raises(IllegalMove, match="No rolls are left"):
        ENGINE.apply(state, Roll(0))
    with pytest.raises(IllegalMove, match="No rolls are left"):
        ENGINE.apply(state, Hold(0, 1))


def test_scoring_passes_the_turn_and_records_points() -> None:
    state = at(ENGINE.new(seed=1, players=2, options={}), (5, 5, 5, 6, 6))
    state = ENGINE.apply(state, Score(0, "fives"))
    assert state.cards[0][CATEGORIES.index("fives")] == 15
    assert state.turn == 1 and state.rolls == 1 and state.held == (False,) * 5
    assert state.last_score == (0, "fives", 15)


def test_refusals_are_readable() -> None:
    state = at(ENGINE.new(seed=1, players=2, options={}), (5, 5, 5, 6, 6))
    with pytest.raises(IllegalMove, match="not your turn"):
        ENGINE.apply(state, Roll(1))
    with pytest.raises(BadInput, match="no category"):
        ENGINE.parse(0, "score", "chance")
    with pytest.raises(BadInput, match="not one of your five dice"):
        ENGINE.parse(0, "hold", "5")
    all_held = replace(state, held=(True,) * 5)
    with pytest.raises(IllegalMove, match="Every die is kept"):
        ENGINE.apply(all_held, Roll(0))
    scored = ENGINE.apply(state, Score(0, "fives"))
    scored = ENGINE.apply(scored, Score(1, "ones"))
    # named as the board's menu and scorecard line name it ("Fives"), not by its stored id
    with pytest.raises(IllegalMove, match="already scored in Fives"):
        ENGINE.apply(scored, Score(0, "fives"))


def play_out(state: CheerioState) -> CheerioState:
    """Score the first open category each turn until the game ends."""
    while not ENGINE.is_over(state):
        (action,) = ENGINE.timeout_actions(state)
        state = ENGINE.apply(state, action)
    return state


def test_a_two_player_game_ends_after_seven_turns_each() -> None:
    state = play_out(ENGINE.new(seed=3, players=2, options={}))
    assert all(None not in card for card in state.cards)
    assert ENGINE.to_act(state) == frozenset()
    results = ENGINE.results(state)
    assert {r.seat for r in results} == {0, 1}
    with pytest.raises(IllegalMove, match="over"):
        ENGINE.apply(state, Roll(0))


def test_equal_totals_share_the_win() -> None:
    full = (1, 2, 3, 4, 5, 6, 0)
    state = replace(ENGINE.new(seed=3, players=2, options={}), cards=(full, full))
    results = ENGINE.results(state)
    assert all(r.won and r.placement == 1 for r in results)


def test_timeout_scores_the_best_open_category() -> None:
    state = at(ENGINE.new(seed=3, players=1, options={}), (6, 6, 6, 1, 2))
    assert ENGINE.timeout_actions(state) == [Score(0, "sixes")]


def test_the_clock_mark_is_the_turn_not_the_dice() -> None:
    """The deadline times a whole turn: holding and rolling keep the mark; a score (a solo
    player's next turn too) and a turn passing on change it."""
    solo = ENGINE.new(seed=3, players=1, options={})
    turn = ENGINE.clock_mark(solo)
    for action in (Hold(0, 1), Hold(0, 1), Hold(0, 2), Roll(0)):
        solo = ENGINE.apply(solo, action)
        assert ENGINE.clock_mark(solo) == turn
    assert ENGINE.clock_mark(ENGINE.apply(solo, Score(0, "ones"))) != turn
    duo = ENGINE.new(seed=3, players=2, options={})
    assert ENGINE.clock_mark(ENGINE.forfeit(duo, 0)) != ENGINE.clock_mark(duo)


def test_forfeit_passes_the_turn_and_the_leaver_cannot_win() -> None:
    state = ENGINE.new(seed=3, players=3, options={})
    state = ENGINE.forfeit(state, 0)
    assert state.turn == 1 and state.active == (False, True, True)
    state = play_out(state)
    results = ENGINE.results(state)
    assert not results[0].won and results[0].placement == 3


def test_a_leaver_is_refused_as_no_longer_playing_not_as_waiting_their_turn() -> None:
    """A seat that left is never awaited again: "not your turn" would have it wait."""
    state = ENGINE.forfeit(ENGINE.new(seed=3, players=3, options={}), 2)
    with pytest.raises(IllegalMove, match="no longer playing") as refused:
        ENGINE.apply(state, Roll(2))
    assert type(refused.value) is IllegalMove


def test_solo_forfeit_ends_the_game_with_no_winner() -> None:
    state = ENGINE.forfeit(ENGINE.new(seed=3, players=1, options={}), 0)
    assert ENGINE.is_over(state)
    assert not any(r.won for r in ENGINE.results(state))


def test_dump_load_round_trip() -> None:
    state = ENGINE.apply(ENGINE.new(seed=11, players=3, options={}), Hold(0, 2))
    state = ENGINE.apply(state, Score(0, "cheerio"))
    assert ENGINE.load(ENGINE.dump(state)) == state


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**62), st.integers(1, 6), st.lists(st.integers(0, 99), max_size=200))
def test_random_play_is_deterministic_and_legal(seed: int, players: int, picks: list[int]) -> None:
    """Any sequence of legal choices replays to the same state, and totals stay in range."""

    def run() -> CheerioState:
        state = ENGINE.new(seed, players, {})
        for pick in picks:
            if ENGINE.is_over(state):
                break
            seat = state.turn
            open_ = [c for c, p in zip(CATEGORIES, state.cards[seat], strict=True) if p is None]
            options: list[CheerioAction] = [Score(seat, c) for c in open_]
            if state.rolls < 3:
                options += [Hold(seat, i) for i in range(5)]
                if not all(state.held):
                    options.append(Roll(seat))
            state = ENGINE.apply(state, options[pick % len(options)])
        return state

    first, second = run(), run()
    assert first == second
    assert all(1 <= d <= 6 for d in first.dice)
    for card in first.cards:
        assert sum(p or 0 for p in card) <= 60 * 6 + 50
