"""Apple Jack players: only legal moves, table-driven rerolls, and margin-maximising calls."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ai import applejack_players as players
from bot.ai.dice_optimal import DiceTables, install, load_or_build
from bot.games.applejack import CATEGORIES, ENGINE, ApplejackState, score
from bot.games.base import IllegalMove

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
            except IllegalMove as err:  # pragma: no cover - the assertion's message
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
    assert action.kind == "reroll"
    kept = sorted(d for i, d in enumerate(state.dice[0]) if str(i) not in action.arg)
    assert tuple(kept) == keep


def test_hard_holds_a_made_run() -> None:
    state = at(((1, 2, 3, 4, 5), (1, 1, 1, 1, 1)), step=2)
    assert players.choose(state, 0, "hard", 0).kind == "hold"


def test_the_caller_picks_the_margin_maximising_category(tables: DiceTables) -> None:
    # Caller: four sixes. Rivals: one has five fives, the other a run.
    dice = ((6, 6, 6, 6, 2), (5, 5, 5, 5, 5), (2, 3, 4, 5, 6))
    state = at(dice, phase="call")
    used = frozenset(state.called)

    def margin(c: str) -> float:
        rival = max(score(c, d) for d in dice[1:])
        return score(c, dice[0]) + players.FUTURE_WEIGHT * tables.value(used | {c}) - rival

    best = max(CATEGORIES, key=margin)
    assert players.choose(state, 0, "hard", 0).arg == best == "sixes"


def test_the_caller_weighs_what_is_left_of_the_round(tables: DiceTables) -> None:
    dice = ((6, 6, 6, 6, 2), (5, 5, 5, 5, 5), (2, 3, 4, 5, 6))
    margins = dict(
        (c, m) for m, c in players.call_margins(tables, frozenset(), dice[0], dice[1:], future=1.0)
    )
    assert margins["sixes"] == pytest.approx(24 + tables.value({"sixes"}) - 6)
    assert margins["cheerio"] == pytest.approx(0 + tables.value({"cheerio"}) - 20)


def test_easy_keeps_its_most_common_face_and_calls_its_best() -> None:
    state = at(((3, 5, 3, 5, 1), (1, 1, 1, 1, 1)))
    action = players.choose(state, 0, "easy", 0)
    assert action.kind == "reroll" and action.arg == "024"  # keeps the two fives
    calling = at(((6, 6, 6, 6, 2), (1, 1, 1, 1, 1)), phase="call")
    assert players.choose(calling, 0, "easy", 0).arg == "sum"  # 26 beats 24 sixes


def test_solo_seats_act_independently() -> None:
    state = at(
        ((1, 1, 2, 3, 4), (6, 6, 6, 6, 6), (4, 5, 6, 2, 2)),
        phase="solo",
        called=CATEGORIES[:-1],
    )
    for seat, level in zip(range(3), ["hard", "normal", "easy"], strict=True):
        action = players.choose(state, seat, level, 0)
        assert action.kind in ("reroll", "hold")
        ENGINE.apply(state, action)


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError):
        players.choose(ENGINE.new(1, 2, {}), 0, "expert", 0)
