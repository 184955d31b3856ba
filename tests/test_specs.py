"""Every list of games Orchard keeps is derived from bot/specs.py, and equals it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.app import extensions
from bot.specs import ENGINES, SPEC_OF, SPECS, VARIANTS, lower_is_better, orchard_plays, title
from cogs.appletters import KINDS, VARIANT_CHOICES
from cogs.servers import GAMES
from tests.botharness import orchard_bot, server
from tests.fakediscord import FakeDiscord

JSON = dict[str, Any]


def test_engines_and_variants_come_from_the_specs() -> None:
    kinds = [v.kind for spec in SPECS for v in spec.variants]
    assert len(kinds) == len(set(kinds)), "a kind is declared twice"
    assert list(ENGINES) == kinds == list(VARIANTS) == list(SPEC_OF)
    assert all(ENGINES[kind].kind == kind for kind in kinds), "each engine plays its own kind"
    assert {spec.ui for spec in SPECS} <= set(extensions())


def test_what_the_specs_say_of_each_game() -> None:
    """Hand-checked against the rules: Appletters and Apple Turnover count tiles left, so a
    lower score is better; every game so far is one Orchard can play, at three levels."""
    assert {kind for kind in VARIANTS if lower_is_better(kind)} == {"appletters", "appleturnover"}
    assert all(orchard_plays(kind) for kind in VARIANTS)
    assert [title(kind) for kind in VARIANTS] == [
        "Cheerio",
        "Apple Jack",
        "Hot Score",
        "Appletters",
        "Apple Turnover",
        "Applescore",
    ]
    assert title("retired") == "retired", "a kind no spec declares any more is shown as stored"


def test_every_choice_list_is_the_specs() -> None:
    assert [(c.name, c.value) for c in GAMES] == [(v.title, v.kind) for v in VARIANTS.values()]
    word_game = SPEC_OF["appletters"]
    assert {v.option: v.kind for v in word_game.variants} == KINDS
    assert [c.value for c in VARIANT_CHOICES] == [v.option for v in word_game.variants]


def options_of(commands: list[JSON], group: str, sub: str, option: str) -> list[str]:
    (command,) = [c for c in commands if c["name"] == group]
    (subcommand,) = [o for o in command.get("options", []) if o["name"] == sub]
    (wanted,) = [o for o in subcommand.get("options", []) if o["name"] == option]
    return [choice["value"] for choice in wanted.get("choices", [])]


async def test_the_running_bot_registers_exactly_the_specs(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """What Discord is sent and what the bot draws: a command group and a UI per game, a
    choice per kind wherever a game is chosen."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        assert set(bot.uis) == set(VARIANTS)
        assert all(bot.uis[kind] is bot.uis[spec.main.kind] for kind, spec in SPEC_OF.items())
    commands = fake_discord.commands or []
    names = {c["name"] for c in commands}
    assert {spec.command for spec in SPECS} <= names
    for name in ("leaderboard", "stats", "history", "forfeit"):
        (command,) = [c for c in commands if c["name"] == name]
        (game,) = [o for o in command["options"] if o["name"] == "game"]
        assert [c["value"] for c in game["choices"]] == list(VARIANTS), name
    appletters = [v.option for v in SPEC_OF["appletters"].variants]
    assert options_of(commands, "appletters", "new", "variant") == appletters
    assert options_of(commands, "appletters", "leaderboard", "variant") == appletters
    assert options_of(commands, "appletters", "play", "variant") == appletters


def every_choice(commands: list[JSON]) -> list[tuple[str, JSON]]:
    """(command path, choice) for every choice of every option, subcommands included."""
    found: list[tuple[str, JSON]] = []

    def walk(path: str, options: list[JSON]) -> None:
        for option in options:
            if option.get("type") in (1, 2):  # a subcommand or a group of them
                walk(f"{path} {option['name']}", option.get("options", []))
            found.extend((f"{path} {option['name']}", c) for c in option.get("choices", []))

    for command in commands:
        walk(command["name"], command.get("options", []))
    return found


async def test_every_choice_reads_as_a_name_not_a_stored_id(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """What Discord's menus show: titles from the specs for games and variants ("Apple
    Turnover", never "appleturnover" or "turnover"), and a readable name for every other
    choice; the values stay the ids the bot reads."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db"):
        pass
    choices = every_choice(fake_discord.commands or [])
    assert len(choices) > 40
    for where, choice in choices:
        assert choice["name"] != choice["value"] and choice["name"][0].isupper(), where
    named = {(where, c["value"]): c["name"] for where, c in choices}
    assert named["stats game", "applejack"] == "Apple Jack"
    assert named["appletters new variant", "turnover"] == "Apple Turnover"
    assert named["cheerio new level", "hard"] == "Hard"
    assert named["cheerio new opponent", "orchard"] == "Orchard (the bot)"
    assert named["appletters play end", "start"] == "Start of the snake"
    assert named["leaderboard by", "best"] == "Best score"
    titles = {v.kind: v.title for v in VARIANTS.values()}
    assert {c["value"]: c["name"] for w, c in choices if w == "history game"} == titles
