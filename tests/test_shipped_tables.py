"""The dice tables ship in the package, built for the rules in force, so nothing builds them
at start-up (where the first hints and moves after a restart waited for them)."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pytest

import bot.ai.dice_optimal as dice_optimal
from bot.ai import applejack_players, cheerio_players
from bot.ai.dice_optimal import fingerprint, install, load, shipped_file

ROOT = Path(__file__).resolve().parent.parent
TOOL = runpy.run_path(str(ROOT / "tools" / "build_tables.py"))  # its GAMES; main is not run
PLAYERS = {"cheerio": cheerio_players, "applejack": applejack_players}


@pytest.mark.parametrize("game", TOOL["GAMES"], ids=lambda game: str(game[0]))
def test_each_shipped_file_is_for_the_rules_in_force(game: Any) -> None:
    """A rule change must come with ``python tools/build_tables.py`` (else Orchard would
    build its tables at run time again)."""
    name, categories, score_fn = game
    tables = load(shipped_file(name), categories, score_fn, fingerprint(categories, score_fn))
    assert tables is not None, f"bot/ai/data/{name}.dp.json.gz is missing or for other rules"
    assert len(tables.values) == 2 ** len(categories)


def test_the_tool_builds_what_orchard_plays_and_nothing_else() -> None:
    assert {name for name, _, _ in TOOL["GAMES"]} == set(PLAYERS)
    shipped = sorted(p.name for p in (ROOT / "bot" / "ai" / "data").iterdir())
    assert shipped == sorted(f"{name}.dp.json.gz" for name in PLAYERS)


@pytest.mark.parametrize("name", sorted(PLAYERS))
def test_exact_tables_read_the_shipped_file_and_build_nothing(name: str, tmp_path: Path) -> None:
    install(name, None)  # forget any tables an earlier test or bot kept
    try:
        tables = PLAYERS[name].exact_tables(tmp_path)
        assert tables.values[0] > 0
        assert list(tmp_path.iterdir()) == []  # neither built nor cached
    finally:
        install(name, None)


def test_a_shipped_file_for_other_rules_falls_back_to_the_cache_then_to_building(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dice_optimal, "shipped_file", lambda name: tmp_path / "absent.gz")
    install("cheerio", None)
    try:
        built = cheerio_players.exact_tables(tmp_path)
        assert (tmp_path / "cheerio.dp.json.gz").exists()  # built, then cached
        install("cheerio", None)
        assert cheerio_players.exact_tables(tmp_path).values == built.values  # from the cache
    finally:
        install("cheerio", None)
