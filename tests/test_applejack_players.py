"""Apple Jack players: only legal moves, table-driven rerolls, and margin-maximising calls."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ai import applejack_players as players
from bot.ai.dice_optimal import DiceTables, install, load_or_build
from bot.games.applejack import CATEGORIES, ENGINE, ApplejackState, Call, Hold, Reroll, score
from bot.games.base import MoveError

LEVELS = st.sampled_from(["easy", "normal", "hard"])


@pytest.fixture(scope="module", autouse=True)
def tables(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DiceTables]:
    path = tmp_path_factory.mktemp("dp") / "applejack.dp.json.gz"
    built = load_or_build("applejack", CATEGORIES, score, path)
    built.warm()
    install("applejack", built)
    yield built
    install("applejack", None)


def play(state: ApplejackState, levels: list[str], seed: int) -> ApplejackState:
    """Every awaited seat moves in turn (all of them in "solo") until the game is over."""
    while not ENGINE.is_over(state):
        for seat in sorted(ENGINE.to_act(state)):
            if seat not in ENGINE.to_act(state):
                continue
            action = players.choose(state, seat, levels[seat], seed)
            try:
                state = ENGINE.apply(state, action)
            except MoveError as err:  # pragma: no cover - the assertion's message
                pytest.fail(f"{levels[seat]} seat {seat} chose {action}: {err}")
    return state


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), levels=st.lists(LEVELS, min_size=2, max_size=4))
def test_whole_games_only_take_legal_moves(seed: int, levels: list[str]) -> None:
    state = play(ENGINE.new(seed, len(levels), {}), levels, seed)
    assert all(None not in card for cards in state.cards for card in cards)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_normal_is_replayable_whatever_the_runner_seed(seed: int) -> None:
    state = ENGINE.new(seed, 3, {})
    moves = [players.choose(state, state.caller, "normal", s) for s in range(5)]
    assert len(set(moves)) == 1


def at(dice: tuple[tuple[int, ...], ...], **changes: object) -> ApplejackState:
    """A 3-player turn with these dice on the table."""
    return replace(ENGINE.new(7, len(dice), {}), dice=dice, **changes)  # type: ignore[arg-type]


def test_hard_rerolls_by_the_tables(tables: DiceTables) -> None:
    state = at(((6, 1, 6, 2, 6), (1, 1, 1, 1, 1), (2, 2, 2, 2, 2)))
    keep, _ = tables.best_keep((), (6, 1, 6, 2, 6), 2)
    action = players.choose(state, 0, "hard", 0)
    assert isinstance(action, Reroll)
    kept = sorted(d for i, d in enumerate(state.dice[0]) if i not in action.dice)
    assert tuple(kept) == keep


def test_hard_holds_a_made_run() -> None:
    state = at(((1, 2, 3, 4, 5), (1, 1, 1, 1, 1)), step=2)
    assert players.choose(state, 0, "hard", 0) == Hold(0)


def test_the_caller_picks_the_margin_maximising_category() -> None:
    """Caller (6,6,6,6,2); rivals (5,5,5,5,5) and the run (2,3,4,5,6). Own - best rival:
    ones 0-0, twos 2-2, threes 0-3, fours 0-4, fives 0-25, sixes 24-6, cheerio 0-20,
    sum 26-25. Sum is worth most to the caller (26) but sixes widens the margin most (+18)."""
    dice = ((6, 6, 6, 6, 2), (5, 5, 5, 5, 5), (2, 3, 4, 5, 6))
    assert players.call_margins(frozenset(), dice[0], dice[1:]) == [
        (18, "sixes"),
        (1, "sum"),
        (0, "ones"),
        (0, "twos"),
        (-3, "threes"),
        (-4, "fours"),
        (-20, "cheerio"),
        (-25, "fives"),
    ]
    assert players.choose(at(dice, phase="call"), 0, "hard", 0) == Call(0, "sixes")
    # With sixes gone, sum's +1 is the best margin; with sum gone too, ones wins its tie.
    assert players.choose(at(dice, phase="call", called=("sixes",)), 0, "hard", 0) == Call(0, "sum")
    both = at(dice, phase="call", called=("sixes", "sum"))
    assert players.choose(both, 0, "hard", 0) == Call(0, "ones")


def test_a_tied_margin_goes_by_card_order_not_by_the_rest_of_the_round() -> None:
    """Caller (6,6,6,6,6) against (1,2,2,3,3), (6,6,6,6,6) and (4,4,5,5,5). Own - best rival:
    ones 0-1, twos 0-6, threes 0-9, fours 0-8, fives 0-15, sixes 30-30, cheerio 0-0,
    sum 30-30. Sixes, cheerio and sum tie at 0 and sixes comes first. (Adding a tenth of the
    caller's future value, as before, kept sixes for later and called cheerio.)"""
    dice = ((6, 6, 6, 6, 6), (1, 2, 2, 3, 3), (6, 6, 6, 6, 6), (4, 4, 5, 5, 5))
    margins = players.call_margins(frozenset(), dice[0], dice[1:])
    assert margins[:4] == [(0, "sixes"), (0, "cheerio"), (0, "sum"), (-1, "ones")]
    assert players.choose(at(dice, phase="call"), 0, "hard", 0) == Call(0, "sixes")


def test_easy_keeps_its_most_common_face_and_calls_its_best() -> None:
    state = at(((3, 5, 3, 5, 1), (1, 1, 1, 1, 1)))
    action = players.choose(state, 0, "easy", 0)
    assert action == Reroll(0, frozenset({0, 2, 4}))  # keeps the two fives
    calling = at(((6, 6, 6, 6, 2), (1, 1, 1, 1, 1)), phase="call")
    assert players.choose(calling, 0, "easy", 0) == Call(0, "sum")  # 26 beats 24 sixes


def test_solo_seats_act_independently() -> None:
    state = at(
        ((1, 1, 2, 3, 4), (6, 6, 6, 6, 6), (4, 5, 6, 2, 2)),
        phase="solo",
        called=CATEGORIES[:-1],
    )
    for seat, level in zip(range(3), ["hard", "normal", "easy"], strict=True):
        action = players.choose(state, seat, level, 0)
        assert isinstance(action, Reroll | Hold)
        ENGINE.apply(state, action)


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError):
        players.choose(ENGINE.new(1, 2, {}), 0, "expert", 0)
