"""What every board looks like to a player, read from the payloads the fake Discord stored.

Each board is a Components V2 message (no content, no embeds) in one container; its second
line names whose turn it is and until when; every button says what it does; a six-player
board fits a phone screen; dice are pictures (application emojis the bot uploaded) or, when
those are missing, text; held dice look held; and no message says "1 points" or "3 tile".
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from wcwidth import iter_graphemes, wcswidth

from bot.app import OrchardBot
from bot.dice_emojis import DiceEmojis
from bot.dice_faces import emoji_name
from bot.games.hotscore import POINTS, value_bracket
from cogs.applejack import reroll_choice
from cogs.hotscore import bar
from tests.botharness import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    answered,
    choose,
    new_game,
    no_errors,
    orchard_bot,
    press,
    select_of,
    server,
    unpaced,
)
from tests.fakediscord import COMPONENTS_V2, Component, FakeDiscord, components_of, text_of
from tests.fakediscord.models import walk
from tests.test_servers import play_out

DAVE, ERIN, FRANK = 7004, 7005, 7006
MANAGE_MESSAGES = 1 << 13
SIX = [ALICE, BOB, CAROL, DAVE, ERIN, FRANK]

EFFECT = re.compile(
    r"^(Keep \d|Release \d|Roll (all )?\d di(c)?e|No rolls left|Keep fewer dice|Reroll \d"
    r"|Don't reroll \d|Reroll \d (die|dice)|Pick dice to reroll|Hold: keep all five"
    r"|Stick on -?\d+ · (HOT|NEAR|FAR) · |Throw the Bonus Die|[+−]\d → -?\d+ · "
    r"|Throw (2 dice|3 challenge dice|the parity die)|Play a word|Turn over a word"
    r"|Pick [1-3] tiles? and pass|Pass: the core is empty|Toss a tile|Bad Apple: used"
    r"|My tiles|Challenge \w+|Accept the word"
    r"|Rematch|Join|Leave|Start|Cancel)"
)
"""The start of every label a board's button may have: each says what pressing it does."""

PHONE_LINES = 32
"""What "fits a phone screen" means here: at most 32 lines of text and controls, counted as a
phone shows them (prose wraps at 45 characters; each action row and heading is a line)."""
PHONE_CODE_WIDTH = 40
"""...and no line of a code-block table wider than 40 cells (tables do not wrap)."""
NAME_CELLS = 14
"""A score table's name column: a name is shown whole up to 14 cells, cut with "…" beyond."""
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # 👨‍👩‍👧: three emoji joined by ZWJs

WIDE = {
    ALICE: "🍎 Apple",
    BOB: "山田太郎",
    CAROL: "Zoe\u0308",  # ë as e and a combining diaeresis: three cells, four characters
    DAVE: "Dave " + FAMILY * 5,  # 15 cells, 30 characters: cut between families
    ERIN: "🇯🇵👍🏽❤️ Fan club",  # a flag, a skin tone, an emoji made wide by VS16: 15 cells
    FRANK: "山田太郎山田太郎",  # 16 cells: cut before a wide character, never through one
}
"""Six names a monospace font draws wider or narrower than their characters count."""

WRONG_PLURALS = [
    re.compile(r"\b1 (points|tiles|rolls|dice|games|wins|players|kinds)\b"),
    re.compile(r"(?<![\d.])(0|[2-9]|\d\d+) (point|tile|roll|die|game|player|kind)\b(?! left\b)"),
]


def v2_board(message: dict[str, Any]) -> tuple[str, list[Component]]:
    """The board's text and controls, after checking it is one Components V2 container."""
    assert message["flags"] & COMPONENTS_V2, "the IS_COMPONENTS_V2 flag is set"
    assert not message["content"] and not message["embeds"], "V2: no content, no embeds"
    (box,) = message["components"]
    assert box["type"] == 17 and box["accent_color"], "one container with its game's colour"
    return text_of(message), components_of(message)


def turn_line(text: str) -> str:
    """The line under the heading: whose turn, until when (then what just happened)."""
    heading, status = text.splitlines()[:2]
    assert heading.startswith("### ")
    return status


def assert_turn(message: dict[str, Any], name: str) -> None:
    text, _ = v2_board(message)
    line = turn_line(text)
    assert f"**{name}'s turn**" in line or ("Waiting for" in line and name in line), line
    assert re.search(r"time runs out <t:\d+:R>", line), "a relative Discord timestamp"
    assert "<@" not in text, "a board names players and never mentions them"


def assert_labelled(message: dict[str, Any]) -> None:
    for control in components_of(message):
        if control.is_button:
            assert control.label and EFFECT.match(control.label), control.label


def cells(text: str) -> int:
    """How wide a monospace font draws ``text``: an emoji or CJK character takes two cells, a
    combining mark or zero-width character none (wcwidth's reading; fonts vary a little)."""
    width = wcswidth(text)
    assert width >= 0, f"a control character in {text!r}"
    return width


def phone_lines(message: dict[str, Any]) -> int:
    """How many lines a phone shows for this board (see PHONE_LINES)."""
    lines = 0
    for c in walk(message["components"]):
        if c["type"] == 1:
            lines += 1
        if c["type"] != 10:
            continue
        in_code = False
        for line in c["content"].splitlines():
            if line.startswith("```"):
                in_code = not in_code
                continue
            if in_code:
                assert cells(line) <= PHONE_CODE_WIDTH, line
                lines += 1
                continue
            shown = re.sub(r"<a?:\w+:\d+>", "EE", line).replace("**", "")
            lines += max(1, -(-len(shown) // 45))
    return lines


READABLE = ("content", "label", "description", "title", "name", "value", "text")


def every_text(payload: Any) -> list[str]:
    """Every string a player could read in a payload the bot sent."""
    found: list[str] = []
    if isinstance(payload, dict):
        for key, value in payload.items():
            if key in READABLE and isinstance(value, str):
                found.append(value)
            found += every_text(value)
    elif isinstance(payload, list):
        for item in payload:
            found += every_text(item)
    return found


def assert_plurals(fake: FakeDiscord) -> None:
    for payload in fake.payloads():
        for text in every_text(payload):
            for rule in WRONG_PLURALS:
                assert not rule.search(text), text


async def game_row(bot: OrchardBot, kind: str) -> Any:
    (row,) = [g for g in await bot.orchard.store.open_games(GUILD) if g.kind == kind]
    return await bot.orchard.runner.load(row.id)


async def test_a_cheerio_board_shows_dice_as_keep_buttons_and_held_dice_look_held(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        live = await game_row(bot, "cheerio")
        message = fake_discord.message(board)
        assert_turn(message, "Alice")
        assert_labelled(message)
        text, controls = v2_board(message)
        faces = " ".join(map(str, live.state.dice))
        assert "⚀" not in text and f"Alice's dice**: {faces} · 2 rolls left" in text
        first = live.state.dice[0]
        keep = fake_discord.find_button(board, f"Keep {first}")
        assert keep.emoji == emoji_name(first, held=False) and keep.style == 2
        await press(fake_discord, ALICE, board, f"Keep {first}")
        held = fake_discord.find_button(
            board,
            lambda b: (
                b.custom_id
                == keep.custom_id.replace(f":{live.row.version}:", f":{live.row.version + 1}:")
            ),
        )
        assert held.label == f"Release {first}" and held.style == 3, "green, and says so"
        assert held.emoji == emoji_name(first, held=True) != keep.emoji, "a framed picture"
        said = f"Alice's dice**: {faces} (keeping {first}) · 2 rolls left"
        assert said in text_of(fake_discord.message(board)), "and in words"
        options = next(c for c in controls if c.is_select).raw["options"]
        for option in options:
            assert re.fullmatch(r"Score (1 point|\d+ points) in [A-Z][a-z]+", option["label"])
        no_errors(fake_discord)


async def test_every_board_is_v2_names_the_turn_and_labels_every_button(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    fake_discord.permissions[ALICE] = MANAGE_MESSAGES  # to /end each game
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        lobby, _ = v2_board(opened.original)
        assert lobby.startswith("### Cheerio: who is playing?") and "**1 player**" in lobby
        assert_labelled(opened.original)
        await press(fake_discord, ALICE, int(opened.original["id"]), "Cancel")
        for kind in ("applejack", "hotscore", "appletters"):
            board = await new_game(fake_discord, kind, ALICE, [BOB])
            live = await game_row(bot, kind)
            first = live.row.players[sorted(bot.orchard.runner.engine(kind).to_act(live.state))[0]]
            assert_turn(fake_discord.message(board), first.name)
            assert_labelled(fake_discord.message(board))
            assert f"· game {live.id}" in text_of(fake_discord.message(board)).splitlines()[-1]
            await answered(
                await fake_discord.slash(ALICE, GUILD, CHANNEL, "end", {"game_id": live.id})
            )
        assert_plurals(fake_discord)
        no_errors(fake_discord)


def test_hot_score_points_that_would_pass_100_say_where_they_bounce() -> None:
    """On 95, a 15-point win leaves 90 (the rules' bounce) and a 5-point one wins: the
    buttons say so, so nobody sticks on a win that costs them the game."""
    from cogs.hotscore import gain

    assert gain(15, 50) == "15 pts"
    assert gain(15, 95) == "15 pts → 90"
    assert gain(5, 95) == "5 pts → 100"


async def test_hot_score_choices_show_bracket_and_points_and_results_say_why(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(fake_discord, "hotscore", ALICE, [BOB])
        users = {0: ALICE, 1: BOB}
        seen_signs = seen_results = 0
        for _ in range(60):
            live = await game_row(bot, "hotscore")
            if live.row.status != "active" or (seen_signs and seen_results > 1):
                break
            seat = sorted(bot.orchard.runner.engine("hotscore").to_act(live.state))[0]
            assert_labelled(fake_discord.message(board))
            buttons = [c for c in fake_discord.components(board) if c.is_button]
            if live.state.phase == "choose" and not seen_signs:
                label = next(b.label for b in buttons if (b.label or "").startswith("Throw the"))
            elif live.state.phase == "sign":
                answering = live.state.turn != live.state.starter
                for button in buttons:
                    found = re.fullmatch(
                        r"[+−]\d → (-?\d+) · (\w+) · (you win )?(\d+) pts"
                        r"|[+−]\d → (-?\d+) · (\w+) · (you lose the round|a (double )?challenge)"
                        r".*",
                        button.label or "",
                    )
                    assert found, button.label
                    total, kind, win, points, *decided = found.groups()
                    if total is None:  # the answer's choice losing or challenging
                        total, kind = decided[:2]
                        assert answering, button.label
                    else:  # the starter's worth, or what the answer would win: its own
                        assert int(points) == POINTS[kind] and bool(win) == answering
                    assert kind == value_bracket(int(total))
                seen_signs += 1
                label = buttons[0].label
            else:
                label = buttons[0].label
            await press(fake_discord, users[seat], board, label or "")
            log = (await game_row(bot, "hotscore")).state.log
            if log and log[-1].startswith("Round"):
                seen_results += 1
                why = ("beats", "two dice beat three", "closer to 7 or 11", "same dice", "against")
                assert any(w in log[-1] for w in why), log[-1]
        assert seen_signs and seen_results
        assert_plurals(fake_discord)
        no_errors(fake_discord)


async def test_six_player_boards_fit_a_phone_and_keep_every_name(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    unpaced(fake_discord)
    server(fake_discord)
    names = {DAVE: "Dave", ERIN: "Erin", FRANK: "Francesca Longname"}
    for user, name in names.items():
        fake_discord.add_user(user, name)
    fake_discord.add_guild(GUILD + 1, [CHANNEL + 1], SIX)
    async with orchard_bot(fake_discord, tmp_path / "o.db"):
        for kind in ("cheerio", "applejack"):
            board = await new_game(
                fake_discord, kind, ALICE, SIX[1:], guild=GUILD + 1, channel=CHANNEL + 1
            )
            message = fake_discord.message(board)
            assert phone_lines(message) <= PHONE_LINES, text_of(message)
            text = text_of(message)
            assert "Francesca Lon…" in text and "Carol" in text, "names cut only past 14"
        no_errors(fake_discord)


async def test_orchard_seats_are_named_by_level_in_full(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    fake_discord.permissions[ALICE] = MANAGE_MESSAGES
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        lobby = int(opened.original["id"])
        await choose(fake_discord, ALICE, lobby, "lobby_addbot", ["hard"])
        await choose(fake_discord, ALICE, lobby, "lobby_addbot", ["hard"])
        assert "Orchard (Hard) 2" in text_of(fake_discord.message(lobby))
        await press(fake_discord, ALICE, lobby, "Start")
        card = text_of(fake_discord.message(lobby)).split("```")[1]
        assert "Orchard (Hard) " in card and "Orchard (Ha… 2 " in card, "told apart, cut"
        await answered(
            await fake_discord.slash(
                ALICE, GUILD, CHANNEL, "end", {"game_id": (await game_row(bot, "cheerio")).id}
            )
        )


def outside_code(text: str) -> str:
    """A board's Markdown without its code blocks."""
    return "".join(text.split("```")[::2])


def code_blocks(text: str) -> list[str]:
    return text.split("```")[1::2]


async def test_names_with_markdown_show_as_typed_on_the_lobby_and_every_board(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """A player named "**Al**_ice_" is neither bold nor italic on a lobby, any game's board in
    play or the final standings (escaped in their Markdown), and reads as typed in a score
    table's code block, where a backslash would show."""
    unpaced(fake_discord)
    server(fake_discord)
    fake_discord.permissions[ALICE] = MANAGE_MESSAGES  # to /end the games in play
    marked, shown = "**Al**_ice_", r"\*\*Al\*\*\_ice\_"
    fake_discord.add_user(ALICE, marked)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        for kind in ("applejack", "hotscore", "appletters"):
            board = await new_game(fake_discord, kind, ALICE, [BOB])
            text = text_of(fake_discord.message(board))
            assert shown in outside_code(text) and marked not in outside_code(text), text
            assert all(f"\n{marked} " in table for table in code_blocks(text)), text
            live = await game_row(bot, kind)
            await answered(
                await fake_discord.slash(ALICE, GUILD, CHANNEL, "end", {"game_id": live.id})
            )
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        board = int(opened.original["id"])
        seen = [text_of(fake_discord.message(board))]
        await press(fake_discord, BOB, board, "Join")
        await press(fake_discord, ALICE, board, "Start")
        seen.append(text_of(fake_discord.message(board)))
        assert f"**{shown}'s turn**" in seen[-1]
        await play_out(bot, (await game_row(bot, "cheerio")).id, {0: ALICE, 1: BOB})
        await fake_discord.wait_for(
            lambda: "Game over" in text_of(fake_discord.message(board)), what="the final board"
        )
        seen.append(text_of(fake_discord.message(board)))
        for text in seen:
            assert shown in outside_code(text), text
            assert marked not in outside_code(text), text
        for text in seen[1:]:
            (table,) = code_blocks(text)
            assert f"\n{marked} " in table, table
        no_errors(fake_discord)


async def test_a_name_with_backticks_leaves_the_score_table_whole(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Three backticks in a name would end a board's code block early and spill the table:
    every board with a table has as many fences as with a plain name, and the table's lines
    keep one width, the name's backticks drawn as look-alikes."""
    server(fake_discord)
    fake_discord.permissions[ALICE] = MANAGE_MESSAGES  # to /end each game
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        for kind in ("cheerio", "applejack"):
            fences: list[int] = []
            for name, drawn in (("Alice", "Alice"), ("a```b", "a\u02cb\u02cb\u02cbb")):
                fake_discord.add_user(ALICE, name)
                board = await new_game(fake_discord, kind, ALICE, [BOB])
                message = fake_discord.message(board)
                text = text_of(message)
                fences.append(text.count("```"))
                assert fences[-1] == fences[0] == 2, (name, text)  # one table, whole
                (table,) = code_blocks(text)
                lines = table.split("\n")[1:-1]
                assert len({cells(line) for line in lines}) == 1, lines
                assert f"\n{drawn} " in table, table
                assert phone_lines(message) <= PHONE_LINES, text  # and within 40 wide
                live = await game_row(bot, kind)
                await answered(
                    await fake_discord.slash(ALICE, GUILD, CHANNEL, "end", {"game_id": live.id})
                )
        no_errors(fake_discord)


def name_cells(table: str) -> list[str]:
    """Each player's name as a score table draws it: a row's text before its score columns."""
    return [re.sub(r"( +(-|\d+))+$", "", line) for line in table.split("\n")[2:-1]]


def assert_drawn(shown: str, name: str) -> None:
    """A name cell shows the name whole, or cut cleanly: its first whole graphemes and "…",
    filling the column but for a wide character that would not fit (no stump, no half)."""
    if cells(name) <= NAME_CELLS:
        assert shown == name, (shown, name)
        return
    kept = list(iter_graphemes(shown.removesuffix("…")))
    assert shown.endswith("…") and kept == list(iter_graphemes(name))[: len(kept)], shown
    assert NAME_CELLS - 1 <= cells(shown) <= NAME_CELLS, shown


async def test_wide_and_narrow_names_keep_the_score_tables_columns(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Emoji (a ZWJ family, a flag, a skin tone) and CJK take two cells in a code block's
    font, a combining mark none: each table's lines are one width as drawn, within a phone's
    40 cells, and each name shows whole or cut between graphemes."""
    server(fake_discord)
    for user, name in WIDE.items():
        fake_discord.add_user(user, name)
    fake_discord.add_guild(GUILD + 1, [CHANNEL + 1], SIX)
    async with orchard_bot(fake_discord, tmp_path / "o.db"):
        for kind in ("cheerio", "applejack"):
            board = await new_game(
                fake_discord, kind, ALICE, SIX[1:], guild=GUILD + 1, channel=CHANNEL + 1
            )
            (table,) = code_blocks(text_of(fake_discord.message(board)))
            lines = table.split("\n")[1:-1]
            assert len({cells(line) for line in lines}) == 1, lines
            assert cells(lines[0]) <= PHONE_CODE_WIDTH, lines
            for shown, user in zip(name_cells(table), SIX, strict=True):
                assert_drawn(shown, WIDE[user])
        no_errors(fake_discord)


async def test_apple_jacks_call_menu_shows_names_as_typed_within_discords_limit(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """The caller's select says what each call gives everyone: a select shows no Markdown, so
    "**Al**_ice_" reads as typed, and six 32-character names are cut to Discord's 100
    characters between graphemes (no ZWJ family broken), saying so with "…"."""
    unpaced(fake_discord)
    server(fake_discord)
    marked, long = "**Al**_ice_", FAMILY * 6 + "Bo"  # 32 characters, Discord's longest name
    fake_discord.add_user(ALICE, marked)
    for user in SIX[1:]:
        fake_discord.add_user(user, long)
    fake_discord.add_guild(GUILD + 1, [CHANNEL + 1], SIX)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(
            fake_discord, "applejack", ALICE, SIX[1:], guild=GUILD + 1, channel=CHANNEL + 1
        )
        engine = bot.orchard.runner.engine("applejack")
        (row,) = await bot.orchard.store.open_games(GUILD + 1)
        live = await bot.orchard.runner.load(row.id)
        while live.state.phase != "call":  # everyone holds: the caller calls
            seat = min(engine.to_act(live.state))
            await press(fake_discord, SIX[seat], board, "Hold: keep all five")
            live = await bot.orchard.runner.load(live.id)
        options = select_of(fake_discord, board, "call").raw["options"]
        assert options
        for option in options:
            described = option["description"]
            assert described.startswith(f"{marked} "), described
            assert len(described) <= 100 and described.endswith("…"), described
            broken = described.replace(FAMILY, "")
            assert not set(broken) & set(FAMILY), described
        no_errors(fake_discord)


async def test_apple_jacks_call_menu_names_the_caller_first(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """A phone shows only the start of an option's description: in round 2, whose caller is
    Bob (the caller turns each round), each option gives Bob's points first, then the others
    in seat order."""
    from bot.games.applejack import open_categories

    unpaced(fake_discord)
    server(fake_discord)
    users = (ALICE, BOB, CAROL)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(fake_discord, "applejack", ALICE, [BOB, CAROL])
        engine, runner = bot.orchard.runner.engine("applejack"), bot.orchard.runner
        live = await game_row(bot, "applejack")
        for round_caller in (0, 1):
            while live.state.phase != "call":  # everyone holds: the caller calls
                seat = min(engine.to_act(live.state))
                live = await runner.act(live.id, users[seat], "hold", version=live.row.version)
            assert live.state.caller == round_caller
            if round_caller == 0:
                call = open_categories(live.state)[0]
                live = await runner.act(live.id, ALICE, "call", call, version=live.row.version)

        def menu_shown() -> bool:
            try:
                menu = select_of(fake_discord, board, "call")
            except LookupError:
                return False
            return str(menu.custom_id).split(":")[2] == str(live.row.version)

        await fake_discord.wait_for(menu_shown, 5.0, "round 2's call menu")
        for option in select_of(fake_discord, board, "call").raw["options"]:
            assert re.fullmatch(r"Bob \d+ · Alice \d+ · Carol \d+", option["description"])
        no_errors(fake_discord)


async def test_apple_jacks_reroll_step_says_rerolls_left(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """The step line says what is left: "2 rerolls", not a bare "2"; one left is "1 reroll"."""
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(fake_discord, "applejack", ALICE, [BOB])
        shown = text_of(fake_discord.message(board))
        assert "Reroll step 1 of 2 · Alice has 2 rerolls left." in shown, shown
        runner = bot.orchard.runner
        live = await game_row(bot, "applejack")
        for user in (ALICE, BOB):
            live = await runner.act(live.id, user, "reroll", "0", version=live.row.version)
        assert live.state.phase == "reroll" and live.state.step == 2, live.state
        shown = text_of(fake_discord.message(board))
        assert "Reroll step 2 of 2 · Alice has 1 reroll left." in shown, shown
        no_errors(fake_discord)


@pytest.mark.parametrize(
    ("faces", "said"),
    [
        ((5,), "a 5"),
        ((1, 1), "two 1s"),
        ((5, 1, 1), "two 1s and a 5"),
        ((6, 2, 6, 4), "a 2, a 4 and two 6s"),
        ((3, 3, 3, 3), "four 3s"),
        ((1, 2, 3, 4, 5), "all five"),
    ],
)
def test_apple_jacks_reroll_choice_names_the_faces(faces: tuple[int, ...], said: str) -> None:
    assert reroll_choice(faces) == said


async def test_apple_jacks_board_names_the_dice_chosen_by_face(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """A committed choice names the faces rerolled, never a position: "rerolls die 1" beside
    dice showing ones read as rerolling a one. Alice rerolls her first die, Bob all five;
    Carol, deciding next, sees both."""
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(fake_discord, "applejack", ALICE, [BOB, CAROL])
        runner = bot.orchard.runner
        live = await game_row(bot, "applejack")
        first = live.state.dice[0][0]
        live = await runner.act(live.id, ALICE, "reroll", "0", version=live.row.version)
        live = await runner.act(live.id, BOB, "reroll", "01234", version=live.row.version)
        assert live.state.phase == "reroll" and live.state.dice[0][0] == first
        lines = text_of(fake_discord.message(board)).splitlines()
        alice = next(line for line in lines if line.startswith("**Alice**"))
        bob = next(line for line in lines if line.startswith("**Bob**"))
        assert alice.startswith(f"**Alice** 📣 caller · rerolls a {first} "), alice
        assert bob.startswith("**Bob** · rerolls all five "), bob
        no_errors(fake_discord)


async def test_no_message_of_a_whole_cheerio_game_gets_a_plural_wrong(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        users = {0: ALICE, 1: BOB}
        live = await game_row(bot, "cheerio")
        while live.row.status == "active":
            user = users[live.state.turn]
            select = next(c for c in fake_discord.components(board) if c.is_select)
            await choose(fake_discord, user, board, "score", [select.options[-1]])
            live = await bot.orchard.runner.load(live.id)
        assert_plurals(fake_discord)
        no_errors(fake_discord)


async def test_dice_emojis_are_uploaded_once_and_reused(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    path = tmp_path / "o.db"
    async with orchard_bot(fake_discord, path) as bot:
        made = {e["name"] for e in fake_discord.app_emojis.values()}
        assert made == {emoji_name(f, h) for f in range(1, 7) for h in (False, True)}
        assert all(img.startswith(b"\x89PNG") for img in fake_discord.emoji_images.values())
        assert bot.dice.emoji(5, held=True) is not None
    posts = len(fake_discord.requests_matching("POST", r"/applications/\d+/emojis$"))
    assert posts == 12
    gone = next(i for i, e in fake_discord.app_emojis.items() if e["name"] == "orchard_die3")
    kept = {e["name"]: i for i, e in fake_discord.app_emojis.items()}
    del fake_discord.app_emojis[gone]
    async with orchard_bot(fake_discord, path):
        again = fake_discord.requests_matching("POST", r"/applications/\d+/emojis$")
        assert len(again) == posts + 1, "only the missing face is made again"
        now = {e["name"]: i for i, e in fake_discord.app_emojis.items()}
        assert {n: i for n, i in now.items() if n != "orchard_die3"} == {
            n: i for n, i in kept.items() if n != "orchard_die3"
        }


async def test_processes_starting_together_share_the_emojis_one_of_them_made(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Orchard's processes upload at once: each finds the emoji list without a face, and all
    but one are refused it (400, name taken). Each must still end up with every face."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        fake_discord.app_emojis.clear()
        starting = [DiceEmojis() for _ in range(3)]
        await asyncio.gather(*(dice.upload(bot) for dice in starting))
        faces = {emoji_name(f, h) for f in range(1, 7) for h in (False, True)}
        assert {e["name"] for e in fake_discord.app_emojis.values()} == faces
        assert len(fake_discord.app_emojis) == len(faces)
        assert all(set(dice.known) == faces for dice in starting)


async def test_without_emojis_dice_are_text_and_held_dice_still_stand_out(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    fake_discord.fail("GET", r"/applications/\d+/emojis$", 403)  # e.g. a token without the scope
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        assert bot.dice.emoji(1) is None and bot.dice.face(4, held=True) == "**[4]**"
        board = await new_game(fake_discord, "hotscore", ALICE, [BOB])
        starter = (await game_row(bot, "hotscore")).state.turn
        await press(fake_discord, (ALICE, BOB)[starter], board, "Throw 2 dice")
        live = await game_row(bot, "hotscore")
        text = text_of(fake_discord.message(board))
        (dice,) = [t.dice for t in live.state.throws if t is not None]
        assert " ".join(f"`{d}`" for d in dice) in text, "dice as text when there are no emojis"


async def test_the_fake_refuses_content_or_embeds_on_a_v2_message(
    fake_discord: FakeDiscord,
) -> None:
    server(fake_discord)
    import aiohttp

    text = {"type": 10, "content": "hello"}
    url = f"{fake_discord.base_url}/api/v10/channels/{CHANNEL}/messages"
    async with aiohttp.ClientSession() as http:
        both = {"content": "hi", "flags": COMPONENTS_V2, "components": [text]}
        async with http.post(url, json=both) as answer:
            assert answer.status == 400
        no_flag = {"components": [text]}
        async with http.post(url, json=no_flag) as answer:
            assert answer.status == 400, "V2 components need the flag"
        good = {"flags": COMPONENTS_V2, "components": [text]}
        async with http.post(url, json=good) as answer:
            assert answer.status == 200
            message = await answer.json()
        async with http.patch(f"{url}/{message['id']}", json={"content": "edited"}) as answer:
            assert answer.status == 400, "a V2 message never takes content"
        async with http.patch(f"{url}/{message['id']}", json={"flags": 0}) as answer:
            assert answer.status == 400, "the flag cannot be taken off"


async def test_clicks_and_drawn_boards_leave_no_cyclic_garbage(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Boards drawn by a click's answer and by a channel edit (plain JSON in a view that only
    carries it) and a click once answered (:func:`bot.answers.release`) are freed as soon as
    they are sent: nothing of theirs is left for the collector, whose passes over a game
    night's clicks and boards paused every click in flight."""
    import gc

    import discord
    from discord import ui

    from bot.games.cheerio import open_categories

    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        live = await game_row(bot, "cheerio")
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds is kept in gc.garbage
        try:
            users = {0: ALICE, 1: BOB}
            for _ in range(3):
                user = users[live.state.turn]
                category = open_categories(live.state.cards[live.state.turn])[0]
                scored = await choose(fake_discord, user, board, "score", [category])
                assert scored.type == 7, scored.describe()
                live = await bot.orchard.runner.load(live.id)
            await bot.boards.display(live)  # a channel edit, as Orchard's moves are shown
            gc.collect()
            left = [o for o in gc.garbage if isinstance(o, ui.Item | ui.View | ui.LayoutView)]
            clicks = [o for o in gc.garbage if isinstance(o, discord.Interaction)]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        assert fake_discord.requests_matching("PATCH", "/channels/")
        assert left == [], f"{len(left)} board items were left to the collector"
        assert clicks == [], f"{len(clicks)} clicks were left to the collector"


def test_a_board_is_the_json_discord_py_would_build_for_it() -> None:
    """Boards are written as Discord's JSON directly (:class:`bot.boards.Board`), not built
    from discord.py's ``ui`` items: the same board built both ways must be the same JSON,
    buttons (styles, emoji, disabled), selects (more values asked than offered), a picture's
    gallery and all."""
    import discord
    from discord import ui

    from bot.boards import Board
    from bot.components import GameButton, GameSelect

    custom = discord.PartialEmoji(name="d6", id=1234567890)
    options = [
        discord.SelectOption(label="Aces", value="aces", description="3 points", emoji="🍎"),
        discord.SelectOption(label="Twos", value="twos", default=True),
    ]
    buttons = [
        GameButton(7, 3, "hold", "0", label="Keep 6", emoji=custom),
        GameButton(7, 3, "roll", label="Roll", emoji="🎲", style=discord.ButtonStyle.primary),
        GameButton(7, 3, "x", disabled=True, style=discord.ButtonStyle.danger),
    ]
    select = GameSelect(7, 3, "score", options, placeholder="Score in…", max_values=5)
    empty = GameSelect(7, 3, "none")
    gallery: ui.MediaGallery[ui.LayoutView] = ui.MediaGallery()
    gallery.add_item(media="attachment://snake.png", description="the snake")
    board = Board(0xE64A19, "Cheerio", "**Ann's turn**", ["a card", gallery], [buttons, [select]])
    board.rows.append([empty])
    board.footer = "Cheerio · game 7"

    box: ui.Container[ui.LayoutView] = ui.Container(accent_colour=0xE64A19)
    for item in [ui.TextDisplay("### Cheerio\n**Ann's turn**"), ui.Separator()]:
        box.add_item(item)
    box.add_item(ui.TextDisplay("a card"))
    box.add_item(gallery)
    box.add_item(ui.Separator(visible=False))
    made = [
        ui.Button(label=b.label, emoji=b.emoji, style=b.style, disabled=b.disabled, custom_id=c)
        for b, c in zip(buttons, ["orc:7:3:hold:0", "orc:7:3:roll:", "orc:7:3:x:"], strict=True)
    ]
    box.add_item(ui.ActionRow(*made))
    box.add_item(
        ui.ActionRow(
            ui.Select(
                custom_id="orcs:7:3:score:", options=options, placeholder="Score in…", max_values=2
            )
        )
    )
    box.add_item(
        ui.ActionRow(
            ui.Select(custom_id="orcs:7:3:none:", options=[discord.SelectOption(label="-")])
        )
    )
    box.add_item(ui.TextDisplay("-# Cheerio · game 7"))
    view = ui.LayoutView(timeout=None)
    view.add_item(box)

    assert board.to_components() == view.to_components()


def test_controls_in_a_plain_answer_are_laid_out_as_discord_py_would() -> None:
    """An ephemeral answer's buttons: five a row, a select on a row of its own."""
    import discord
    from discord import ui

    from bot.components import DrawnRows, GameButton, GameSelect

    controls = [GameButton(1, 2, "repost", str(n), label=f"#{n}") for n in range(7)]
    controls.append(GameSelect(1, 2, "pick", [discord.SelectOption(label="A")]))
    view = ui.View(timeout=None)
    for control in controls:
        if isinstance(control, GameButton):
            view.add_item(ui.Button(label=control.label, custom_id=control.custom_id))
        else:
            view.add_item(ui.Select(custom_id=control.custom_id, options=list(control.options)))

    assert DrawnRows(controls).to_components() == view.to_components()


def test_a_board_over_discords_component_limit_is_refused_before_it_is_sent() -> None:
    from bot.boards import Board
    from bot.components import GameButton

    rows = [[GameButton(1, 1, "pick", f"{r}{n}") for n in range(5)] for r in range(6)]
    assert len(Board(0, "h", "s", ["body"], rows[:5]).to_components()[0]["components"]) == 9
    with pytest.raises(ValueError, match="41 components"):
        Board(0, "h", "s", ["body"], rows).to_components()


def test_hot_scores_score_bars_are_ten_cells_whatever_the_score() -> None:
    """A server that lets scores go below 0: a negative score is an empty bar, as wide as the
    others."""
    for score in (-35, -10, -1, 0, 5, 55, 99, 100):
        cells = bar(score)
        assert len(cells) == 10, cells
        assert cells.count("█") == max(0, score) // 10, bar(score)


def test_cheerios_total_is_not_named_as_apple_jacks_sum_category() -> None:
    """Apple Jack has a category called Sum; Cheerio's last column is a total, so a player of
    both must not read one as the other."""
    from bot.games.cheerio import ENGINE
    from cogs.applejack import HEADS as APPLEJACK_HEADS
    from cogs.cheerio import scorecard

    state = ENGINE.new(1, 1, {})
    head = scorecard(state, ["Alice"]).split("\n")[1]
    assert head.split() == ["1", "2", "3", "4", "5", "6", "Ch", "Tot"]
    assert "Sum" in APPLEJACK_HEADS
