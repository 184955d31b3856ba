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


# The redesign's shape: one place per game, no cycles, cogs away from storage.

PROJECT = ("bot", "cogs", "db")


def project_modules() -> dict[str, Path]:
    """Every module of the bot, by dotted name."""
    found: dict[str, Path] = {}
    for top in PROJECT:
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Who imports whom among ``modules``, counting every import: at the top, inside
    functions and under TYPE_CHECKING alike (a cycle for the type checker is still one)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                candidates = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                candidates = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            targets.update(c for c in candidates if c in modules and c != name)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph`` (each found once, from its first module in the walk)."""
    found: list[list[str]] = []
    state: dict[str, str] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                found.append([*trail[trail.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = "done"

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    return found


def test_the_cycle_finder_finds_a_cycle_through_type_checking(tmp_path: Path) -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_orchard_imports_itself_round_a_cycle() -> None:
    assert cycles(import_graph(project_modules())) == []


def test_cogs_never_import_the_storage_layer() -> None:
    """Cogs read through ``bot.orchard.store`` to show boards and statistics, and write
    nothing: they never import ``db``."""
    for path in sorted((ROOT / "cogs").rglob("*.py")):
        assert not [m for m in imported_modules(path) if m.split(".")[0] == "db"], path


def game_names() -> dict[str, str]:
    """Every way a game is named (kind, title, variant option, command), lower case, mapped
    to the game it names."""
    from bot.specs import SPECS

    names: dict[str, str] = {}
    for spec in SPECS:
        for variant in spec.variants:
            for name in (variant.kind, variant.title, variant.option, spec.command):
                if name:
                    names[name.lower()] = spec.command
    return names


def naming(path: Path, names: dict[str, str]) -> list[str]:
    """Where ``path`` names a game by hand: a string that is a game's name, or an import of
    a game's own module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.lower() in names:
                found.append(f"line {node.lineno}: {node.value!r}")
        elif isinstance(node, ast.ImportFrom | ast.Import):
            modules = imported_by(node)
            leaves = {m.rsplit(".", 1)[-1] for m in modules if "." in m}
            for game in set(names.values()) & leaves:
                found.append(f"line {node.lineno}: imports {game}")
    return found


def imported_by(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def shared_modules(names: dict[str, str]) -> list[Path]:
    """Modules that belong to no game: a game's own modules are named after it
    (bot/games/cheerio.py, bot/ai/cheerio_players.py, cogs/cheerio.py …); bot/specs.py is
    the one list of games."""
    games = set(names.values())
    return [
        path
        for path in project_modules().values()
        if path != ROOT / "bot" / "specs.py"
        and not any(path.stem.startswith(game) for game in games)
    ]


def test_no_shared_module_names_a_game_by_hand() -> None:
    names = game_names()
    shared = shared_modules(names)
    assert ROOT / "cogs" / "servers.py" in shared and ROOT / "bot" / "runner.py" in shared
    assert {path: naming(path, names) for path in shared if naming(path, names)} == {}


def test_the_naming_check_sees_strings_and_imports(tmp_path: Path) -> None:
    module = tmp_path / "sneaky.py"
    module.write_text(
        '"""Cheerio is a fine game."""\nfrom bot.games import hotscore\n'
        'KINDS = ("cheerio", "Apple Jack")\nBOARD = "cheerio board"\n',
        "utf-8",
    )
    assert naming(module, game_names()) == [
        "line 2: imports hotscore",
        "line 3: 'cheerio'",
        "line 3: 'Apple Jack'",
    ]


# Answers: one place races Discord's 3 s for every handler.

ANSWERED_DIRECTLY = {
    ROOT / "bot" / "answers.py": "the helpers themselves",
    ROOT / "bot" / "cli.py": "interactions turned away while closing: never dispatched, so "
    "never watched or deferred",
}


def direct_answers(path: Path) -> list[int]:
    """Lines of ``path`` that touch an interaction's own ``response``."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text("utf-8")))
        if isinstance(node, ast.Attribute)
        and node.attr == "response"
        and "interaction" in ast.unparse(node.value)
    ]


def test_handlers_answer_through_bot_answers_only() -> None:
    """Work past 2 s is deferred by the watch (bot.answers), and an answer sent through
    ``interaction.response`` after that raises: the person reads "please try again" although
    the work was done. bot.answers' helpers complete a deferral instead."""
    assert direct_answers(ROOT / "bot" / "answers.py"), "the check sees the helpers' own uses"
    found = {
        str(path.relative_to(ROOT)): direct_answers(path)
        for path in project_modules().values()
        if path not in ANSWERED_DIRECTLY and direct_answers(path)
    }
    assert found == {}
