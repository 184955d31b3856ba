"""The shape of the tree: engines stay pure, and shared helpers behave."""

import ast
from pathlib import Path

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


def test_engines_never_import_discord_or_io_layers() -> None:
    engines = sorted((ROOT / "bot" / "games").rglob("*.py"))
    assert engines, "no engines found"
    for path in engines:
        for module in imported_modules(path):
            top = module.split(".")[0]
            assert top not in {"discord", "aiosqlite", "sqlite3", "db", "cogs"}, (path, module)
            assert not module.startswith(("bot.runner", "bot.app", "bot.interface")), path


def test_placements_share_places_and_exclude_leavers() -> None:
    results = placements([30, 50, 50, 10], [True, True, True, False])
    assert [(r.placement, r.won) for r in results] == [(3, False), (1, True), (1, True), (4, False)]
    assert not any(r.won for r in placements([5], [False]))
