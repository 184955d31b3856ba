"""The shape of the tree: engines stay pure, and shared helpers behave."""

import ast
from pathlib import Path

import pytest

from bot.games.base import placements

ROOT = Path(__file__).resolve().parent.parent


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


FORBIDDEN_TOPS = {"discord", "aiosqlite", "sqlite3", "db", "cogs"}
FORBIDDEN_BOT = ("bot.runner", "bot.app", "bot.interface")


def impure_imports(path: Path) -> list[str]:
    """The modules ``path`` imports (anywhere in it) that a pure engine or strategy must not."""
    return sorted(
        m
        for m in imported_modules(path)
        if m.split(".")[0] in FORBIDDEN_TOPS or m.startswith(FORBIDDEN_BOT)
    )


@pytest.mark.parametrize("folder", ["games", "ai"])
def test_engines_and_strategies_never_import_discord_or_io_layers(folder: str) -> None:
    """Engines (bot/games) and bot players (bot/ai) run without Discord or the database."""
    modules = sorted((ROOT / "bot" / folder).rglob("*.py"))
    assert modules, f"nothing found in bot/{folder}"
    for path in modules:
        assert impure_imports(path) == [], path


def test_the_purity_check_sees_nested_and_from_imports(tmp_path: Path) -> None:
    module = tmp_path / "sneaky.py"
    module.write_text(
        "import json\nfrom discord import ui\n"
        "def late():\n    import bot.runner\n    from db import store\n",
        "utf-8",
    )
    assert impure_imports(module) == ["bot.runner", "db", "discord"]


def test_placements_share_places_and_exclude_leavers() -> None:
    results = placements([30, 50, 50, 10], [True, True, True, False])
    assert [(r.placement, r.won) for r in results] == [(3, False), (1, True), (1, True), (4, False)]
    assert not any(r.won for r in placements([5], [False]))
