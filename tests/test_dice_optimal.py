"""The optimal dice strategy: checked against brute force, and its players against the engine."""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cache
from itertools import product
from pathlib import Path
from statistics import fmean

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ai import applejack_players
from bot.ai import cheerio_players as players
from bot.ai.dice_optimal import (
    ROLLS,
    DiceTables,
    ScoreFn,
    default_cache_dir,
    fingerprint,
    install,
    load_or_build,
)
from bot.games.cheerio import (
    CATEGORIES,
    ENGINE,
    CheerioAction,
    CheerioState,
    Hold,
    Roll,
    Score,
    score,
)

SMALL = ("sixes", "cheerio")


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> DiceTables:
    path = tmp_path_factory.mktemp("dp") / "cheerio.dp.json.gz"
    return load_or_build("cheerio", CATEGORIES, score, path)


def brute_force(categories: tuple[str, ...], score_fn: ScoreFn = score) -> float:
    """Expected score by plain recursion over ordered dice, hold masks and every roll outcome."""

    @cache
    def start(used: frozenset[str]) -> float:
        if used == frozenset(categories):
            return 0.0
        return after_roll(used, (), 2)

    @cache
    def after_roll(used: frozenset[str], held: tuple[int, ...], rolls_left: int) -> float:
        outcomes = [
            turn(used, tuple(sorted(held + fresh)), rolls_left)
            for fresh in product(range(1, 7), repeat=5 - len(held))
        ]
        return fmean(outcomes)

    @cache
    def turn(used: frozenset[str], dice: tuple[int, ...], rolls_left: int) -> float:
        best = max(score_fn(c, dice) + start(used | {c}) for c in categories if c not in used)
        if rolls_left:
            for mask in range(31):  # every hold but all five
                held = tuple(d for i, d in enumerate(dice) if mask >> i & 1)
                best = max(best, after_roll(used, tuple(sorted(held)), rolls_left - 1))
        return best

    return start(frozenset())


def test_dp_matches_brute_force_on_a_reduced_game() -> None:
    tables = DiceTables(SMALL, score)
    assert tables.value(()) == pytest.approx(brute_force(SMALL), rel=1e-12)


def test_single_category_chance_of_an_honest_run_is_exact() -> None:
    # Only "cheerio", and one point for an honest run only: the chance of one in three rolls.
    def honest(category: str, dice: Sequence[int]) -> int:
        return int(score(category, dice) == 50)

    tables = DiceTables(("cheerio",), honest)
    assert tables.value(()) == pytest.approx(brute_force(("cheerio",), honest), rel=1e-12)
    assert 0.25 < tables.value(()) < 0.3


def test_turn_start_values_fall_as_categories_fill(full: DiceTables) -> None:
    assert full.value(CATEGORIES) == 0.0
    for mask in range(full.full):
        for i in range(len(CATEGORIES)):
            if not mask >> i & 1:
                assert full.values[mask] > full.values[mask | 1 << i]


def test_expected_final_scores_are_banked_plus_rest(full: DiceTables) -> None:
    used = frozenset({"ones", "twos"})
    dice = (6, 6, 6, 6, 6)
    ranked = full.ranked_choices(used, dice, rolls_left=2, n=3, banked=7)
    assert ranked[0].kind == "score" and ranked[0].category == "sixes"
    assert ranked[0].expected == pytest.approx(7 + 60 + full.value(used | {"sixes"}))
    assert [c.expected for c in ranked] == sorted((c.expected for c in ranked), reverse=True)
    assert len(ranked) == 3
    keep, value = full.best_keep(used, (2, 3, 4, 5, 5), rolls_left=1)
    assert sorted(keep) == [2, 3, 4, 5]
    assert value > full.best_category(used, (2, 3, 4, 5, 5))[1]


def test_the_last_category_takes_whatever_the_dice_give(full: DiceTables) -> None:
    used = frozenset(CATEGORIES) - {"cheerio"}
    assert full.best_category(used, (1, 2, 3, 4, 5)) == ("cheerio", 50.0)
    assert full.best_category(used, (6, 6, 6, 6, 6)) == ("cheerio", 0.0)
    assert full.best_keep(used, (2, 3, 4, 5, 5), 2)[0] == (2, 3, 4, 5)


def test_cache_file_round_trip(tmp_path: Path, full: DiceTables) -> None:
    path = tmp_path / "sub" / "cheerio.dp.json.gz"
    first = load_or_build("cheerio", CATEGORIES, score, path)
    assert path.exists()
    stored = json.loads(gzip.decompress(path.read_bytes()))
    assert stored["values"] == first.values == full.values
    assert stored["fingerprint"] == fingerprint(CATEGORIES, score)
    again = load_or_build("cheerio", CATEGORIES, score, path)
    assert again.values == first.values
    dice = (1, 3, 3, 5, 6)
    assert again.ranked_choices((), dice, 2) == first.ranked_choices((), dice, 2)


def test_a_stale_or_broken_cache_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "game.dp.json.gz"
    doubled = load_or_build("game", SMALL, lambda c, d: 2 * score(c, d), path)
    plain = load_or_build("game", SMALL, score, path)  # other rules: rebuilt, not reused
    assert plain.value(()) == pytest.approx(doubled.value(()) / 2)
    path.write_bytes(b"not gzip")
    assert load_or_build("game", SMALL, score, path).values == plain.values
    assert json.loads(gzip.decompress(path.read_bytes()))["values"] == plain.values


def play(
    state: CheerioState, seat: int, level: str, seed: int, tables: DiceTables
) -> CheerioAction:
    if level == "hard":
        return players.hard(state, seat, seed, tables=tables)
    if level == "normal":
        return players.normal(state, seat, seed, tables=tables)
    if level == "easy":
        return players.easy(state, seat, seed)
    return players.greedy(state, seat, seed)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    levels=st.lists(st.sampled_from(["hard", "normal", "easy", "greedy"]), min_size=1, max_size=3),
)
def test_strategies_only_make_legal_moves(full: DiceTables, seed: int, levels: list[str]) -> None:
    state = ENGINE.new(seed, len(levels), {})
    budget = len(levels) * len(CATEGORIES) * (2 * 6 + 1)
    for _ in range(budget):
        if ENGINE.is_over(state):
            break
        seat = state.turn
        state = ENGINE.apply(state, play(state, seat, levels[seat], seed, full))
    assert ENGINE.is_over(state)


def test_registry_entry_uses_installed_tables(full: DiceTables) -> None:
    install("cheerio", full)
    try:
        state = ENGINE.new(5, 1, {})
        for level in ("easy", "normal", "hard"):
            assert players.choose(state, 0, level, 1).seat == 0
        with pytest.raises(ValueError):
            players.choose(state, 0, "expert", 1)
    finally:
        install("cheerio", None)


def at(
    dice: tuple[int, ...], rolls: int = 1, held: tuple[bool, ...] = (False,) * 5
) -> CheerioState:
    return replace(ENGINE.new(1, 1, {}), dice=dice, rolls=rolls, held=held)


def actions_until_roll(
    state: CheerioState, choose: Callable[[CheerioState], CheerioAction]
) -> list[CheerioAction]:
    out = []
    for _ in range(6):
        action = choose(state)
        out.append(action)
        if not isinstance(action, Hold):
            return out
        state = ENGINE.apply(state, action)
    raise AssertionError(f"no roll after {out}")


def test_easy_keeps_the_most_common_face() -> None:
    acts = actions_until_roll(at((3, 5, 3, 2, 3)), lambda s: players.easy(s, 0))
    assert acts == [
        Hold(0, 0),
        Hold(0, 2),
        Hold(0, 4),
        Roll(0),
    ]
    # A tie goes to the higher face; dice held before but not wanted are released.
    acts = actions_until_roll(
        at((4, 2, 4, 2, 6), held=(False, True, False, False, True)), lambda s: players.easy(s, 0)
    )
    assert acts == [
        Hold(0, 0),
        Hold(0, 1),
        Hold(0, 2),
        Hold(0, 4),
        Roll(0),
    ]
    # No reroll left: the best category now.
    assert players.easy(at((6, 6, 1, 2, 3), rolls=3), 0) == Score(0, "sixes")


def test_hard_holds_then_rolls_and_scores_a_sure_thing(full: DiceTables) -> None:
    def hard(state: CheerioState) -> CheerioAction:
        return players.hard(state, 0, tables=full)

    assert hard(at((2, 3, 4, 5, 6))) == Score(0, "cheerio")
    acts = actions_until_roll(at((2, 3, 4, 5, 5)), hard)
    assert acts[-1] == Roll(0)
    held = at((2, 3, 4, 5, 5))
    for a in acts[:-1]:
        held = ENGINE.apply(held, a)
    assert sorted(d for d, h in zip(held.dice, held.held, strict=True) if h) == [2, 3, 4, 5]


def test_normal_slips_only_to_a_close_second(full: DiceTables) -> None:
    used: frozenset[str] = frozenset()
    dice = (1, 2, 3, 6, 6)
    best, second = full.ranked_choices(used, dice, 2, n=2)
    picks = [players.decide(full, used, dice, 2, random.Random(i)) for i in range(400)]
    slips = sum(p == second for p in picks)
    assert set(picks) <= {best, second}
    if best.expected - second.expected <= players.SLIP_POINTS:
        assert 30 < slips < 95  # about 15% of 400
    # Far apart: never slips.
    far = frozenset(CATEGORIES) - {"sixes", "ones"}
    picks = [players.decide(full, far, (6,) * 5, 2, random.Random(i)) for i in range(50)]
    assert all(p.category == "sixes" for p in picks)


def test_rolls_cover_every_multiset_once() -> None:
    assert len(ROLLS) == len(set(ROLLS)) == 252


def test_default_cache_dir_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("ORCHARD_CACHE", raising=False)
    monkeypatch.setenv("ORCHARD_DB", str(tmp_path / "data" / "orchard.db"))
    assert default_cache_dir() == tmp_path / "data" / "cache"
    monkeypatch.setenv("ORCHARD_CACHE", str(tmp_path / "elsewhere"))
    assert default_cache_dir() == tmp_path / "elsewhere"


def test_a_postgresql_url_is_no_folder_for_the_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With ORCHARD_DB a URL there is no database file to sit beside: the cache is the user's
    own, not a folder named after the URL (its password too) in the working directory."""
    monkeypatch.delenv("ORCHARD_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    for url in ("postgresql://orchard:secret@db-host:5432/orchard", "postgres://o:s@h/o"):
        monkeypatch.setenv("ORCHARD_DB", url)
        assert default_cache_dir() == tmp_path / "xdg" / "orchard", url


def test_apple_jack_has_tables_too(tmp_path: Path) -> None:
    from bot.games import applejack

    install("applejack", None)  # a bot started earlier in this run may have warmed them
    tables = applejack_players.exact_tables(tmp_path)  # shipped: nothing is cached here
    assert tables.categories == applejack.CATEGORIES
    assert (
        tables.value(()) > tables.value({"sum"}) > tables.value(set(applejack.CATEGORIES) - {"sum"})
    )
    assert tables.best_category(set(applejack.CATEGORIES) - {"sum"}, (6, 6, 6, 6, 6)) == (
        "sum",
        30.0,
    )
