"""The words of every message around the games (not the boards): plurals, names, links and
the one "not your turn", over a scripted game and the commands people run after it."""

from __future__ import annotations

import datetime
import re
import time
from pathlib import Path
from typing import Any

from discord.utils import escape_markdown

from bot.boards import message_link
from bot.ratings import conservative, display_rating
from bot.specs import VARIANTS
from bot.wording import (
    clipped,
    date_text,
    duration,
    in_code,
    joined,
    lines_within,
    literal,
    not_your_turn,
    plural,
    shortened,
    shown_width,
)
from tests.botharness import (
    ALICE,
    BOB,
    CHANNEL,
    GUILD,
    answered,
    new_game,
    no_errors,
    orchard_bot,
    server,
    unpaced,
)
from tests.fakediscord import FakeDiscord
from tests.test_discord_daily import finish_daily
from tests.test_servers import play_out

KINDS = "|".join(VARIANTS)
ONE_MANY = re.compile(r"(?<![\d.])1 (games|wins|kinds|points|tiles|players|turns)\b")
MANY_ONE = re.compile(r"\b(?:[02-9]|\d{2,}) (game|win|kind|point|tile|player|turn)\b(?! of)")
RAW_KIND = re.compile(rf"(?<![/:\w])({KINDS})(?![\w/:])")
BARE_LINK = re.compile(r"(?<!\()https://discord\.com/channels/")


def words_of(payload: Any) -> list[str]:
    """The text people read in a message payload: content, embeds, labels; no ids or urls."""
    found: list[str] = []
    if isinstance(payload, dict):
        for key, value in payload.items():
            if key in ("content", "title", "description", "name", "value", "text", "label"):
                if isinstance(value, str):
                    found.append(value)
            elif key not in ("custom_id", "url", "id"):
                found += words_of(value)
    elif isinstance(payload, list):
        for item in payload:
            found += words_of(item)
    return found


def faults(texts: list[str]) -> list[str]:
    return [
        f"{pattern.pattern!r} in {text!r}"
        for text in texts
        for pattern in (ONE_MANY, MANY_ONE, RAW_KIND, BARE_LINK)
        if pattern.search(text)
    ]


def test_the_scans_catch_what_the_issue_saw() -> None:
    """The patterns find each fault the issue quoted, and pass the corrected wording."""
    seen = ["3 games in 1 kinds", "1 games · 0 wins", "Ones: 1 points", "a applejack game"]
    seen.append("https://discord.com/channels/1/2/3")
    assert len(faults(seen)) == len(seen)
    fine = ["3 games of 1 kind · 1 win", "1 game · 0 wins", "Ones: 1 point", "Apple Jack"]
    fine += [message_link("Final board", 1, 2, 3), "1 of 2 won", "</applejack new:5>"]
    assert faults(fine) == []


def test_the_shared_words() -> None:
    assert [plural(n, "win") for n in (0, 1, 2)] == ["0 wins", "1 win", "2 wins"]
    assert plural(2, "die", "dice") == "2 dice"
    assert joined(["Ann"]) == "Ann" and joined(["Ann", "Bo", "Cy"]) == "Ann, Bo and Cy"
    assert not_your_turn(["Bob"]) == "It is not your turn: it is Bob's."
    assert (
        not_your_turn(["Ann", "Bob"]) == "It is not your turn: the game is waiting for Ann and Bob."
    )
    assert message_link("Go", 1, 2, None) == "<#2>"
    spans = [duration(n) for n in (30, 300, 90, 86400, 5400, 3661)]
    assert spans == ["30 s", "5 min", "1 min 30 s", "24 h", "1 h 30 min", "1 h 1 min 1 s"]
    assert message_link("Go", 1, 2, 3) == "[Go](https://discord.com/channels/1/2/3)"


def test_names_are_shown_as_typed() -> None:
    """Every mark a name may carry gets the backslash ``discord.utils.escape_markdown`` gives
    it, and so does the ``<`` of a mention or timestamp it does not; a code block, where no
    backslash escapes, gets a look-alike for each backtick, as wide."""
    marked = ["**Al**", "_x_", "~~y~~", "||s||", "# head", "> quote", "-# small", "a```b"]
    marked += ["[link](https://x.example)", "back\\slash", "Jean-Luc #1", "Orchard (Hard) 2"]
    for name in marked:
        assert literal(name) == escape_markdown(name), name
    assert literal("<@7001> <t:0:R>") == "\\<@7001> \\<t:0:R>"
    assert not_your_turn(["**Bo**"]) == "It is not your turn: it is \\*\\*Bo\\*\\*'s."
    assert in_code("a```b") == "a\u02cb\u02cb\u02cbb" and in_code("Alice") == "Alice"


def test_a_name_is_measured_and_cut_as_a_monospace_font_draws_it() -> None:
    """Two cells for an emoji sequence or CJK character, none for a combining mark or a
    zero-width space; a cut falls between graphemes and says so with "…"."""
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    widths = {family: 2, "🇯🇵": 2, "👍🏽": 2, "❤️": 2, "山田": 4, "Zoe\u0308": 3, "a\u200bb": 2}
    assert {text: shown_width(text) for text in widths} == widths
    assert shown_width(in_code("a```b")) == shown_width("a```b") == 5
    assert clipped("Alice", 5) == "Alice" and clipped("山田太郎", 7) == "山田太…"
    assert clipped("山田太郎", 6) == "山田…", "no half of a wide character"
    assert clipped("Zoe\u0308y", 3) == "Zo…", "the diaeresis stays with its e"
    assert clipped("ab" + family * 2, 4) == "ab…", "no part of a ZWJ family"
    assert shortened("ab" + family, 6) == "ab…" and shortened("ab" + family, 7) == "ab" + family


def test_a_long_list_is_cut_to_its_limit_and_says_how_many_are_left() -> None:
    lines = [f"line {n:02}" for n in range(10)]  # 7 characters each, 79 with newlines
    assert lines_within(lines, 79, "line") == "\n".join(lines)
    cut = lines_within(lines, 40, "line")  # "… and 10 more lines" is 19: 20 with its newline
    assert cut == "line 00\nline 01\n… and 8 more lines" and len(cut) <= 40
    mentions = [f"<#{n}>" for n in range(10, 20)]  # 5 characters each, 68 with ", "
    listed = lines_within(mentions, 40, "channel", sep=", ")  # a third would make it 42
    assert listed == "<#10>, <#11>, … and 8 more channels" and len(listed) <= 40


def test_ratings_read_on_a_scale_that_never_looks_negative() -> None:
    """A newcomer reads 1000; openskill's first game between two newcomers (mu - 3 sigma
    3.44 for the winner, -1.83 for the loser) reads 1138 and 927; nothing reads below 0."""
    assert display_rating(conservative((25.0, 25 / 3))) == 1000
    assert (display_rating(3.4377), display_rating(-1.8331)) == (1138, 927)
    assert display_rating(-30.0) == 0 and display_rating(-0.5) == 980


async def test_every_message_around_a_game_reads_right(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """A two-player Cheerio game to its end, with a move out of turn, then /stats, /history,
    /leaderboard, /games and /help: every reply, turn ping and DM is scanned (the boards are
    the board code's own tests')."""
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        (row,) = await bot.orchard.store.open_games(GUILD)
        live = await bot.orchard.runner.load(row.id)
        idle = (BOB, ALICE)[live.state.turn]
        waited = live.row.players[live.state.turn].name
        wrong = await answered(
            await fake_discord.click(idle, board, roll_button(fake_discord, board))
        )
        assert wrong.ephemeral and wrong.content == f"It is not your turn: it is {waited}'s."
        texts = [wrong.content]
        await play_out(bot, row.id, {0: ALICE, 1: BOB})
        for command, options in (
            ("stats", {}),
            ("history", {}),
            ("leaderboard", {"game": "cheerio", "by": "rating"}),
            ("leaderboard", {"game": "cheerio", "by": "wins"}),
            ("cheerio leaderboard", {}),
            ("games", {}),
            ("help", {}),
        ):
            record = await answered(
                await fake_discord.slash(ALICE, GUILD, CHANNEL, command, options)
            )
            assert record.original is not None, (command, record.describe())
            texts += words_of(record.original)
        await fake_discord.wait_for(  # the end is announced after the last move's commit
            lambda: any("🏁" in str(m.get("content")) for m in fake_discord.messages.values()),
            what="the end announcement",
        )
        posted = [*fake_discord.messages.values(), *fake_discord.deleted.values()]
        # every message but the board: turn pings (deleted as the next is posted), the end
        # announcement, the commands' answers
        texts += [t for m in posted if int(m["id"]) != board for t in words_of(m)]
        assert any("your turn in **Cheerio" in t for t in texts) and any("🏁" in t for t in texts)
        assert any("[Final board](https://discord.com/channels/" in t for t in texts)
        assert any("1 game ·" in t for t in texts), "the game counted in /stats, in the singular"
        assert faults(texts) == []
        no_errors(fake_discord)


NAMED = {ALICE: "**Al**_ice_", BOB: "<@7001> ~~Bob~~"}
"""Names with Markdown in them, one also looking like a mention of the other..."""
SHOWN = {ALICE: r"\*\*Al\*\*\_ice\_", BOB: r"\<@7001> \~\~Bob\~\~"}
"""...and as Orchard writes them, so that Discord shows them as typed."""


def raw_names(texts: list[str]) -> list[str]:
    """The texts carrying a name of :data:`NAMED` unescaped, which Discord would style."""
    return [text for text in texts for name in NAMED.values() if name in text]


async def test_names_show_as_typed_in_every_message_around_a_game(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Players named with Markdown: /games, the refusal naming whom the game waits for, the
    notice of a turn run out, the end announcement, /stats and /history (and /leaderboard,
    whose lines are mentions) all show the names as typed (the boards are test_boards')."""
    unpaced(fake_discord)
    server(fake_discord)
    for user, name in NAMED.items():
        fake_discord.add_user(user, name)
    alice, bob = SHOWN[ALICE], SHOWN[BOB]
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        (row,) = await bot.orchard.store.open_games(GUILD)
        listed = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "games", {}))
        assert f"{alice}, {bob}" in listed.embeds[0]["description"]
        wrong = await answered(
            await fake_discord.click(BOB, board, roll_button(fake_discord, board))
        )
        assert wrong.content == f"It is not your turn: it is {alice}'s."
        texts = [wrong.content, *words_of(listed.original)]
        bot.orchard.runner.clock = lambda: time.time() + 301  # Alice's turn runs out
        bot.orchard.scheduler.wake()
        notice = await fake_discord.wait_for_message(
            CHANNEL, lambda m: "ran out of time" in (m.get("content") or "")
        )
        assert notice["content"].startswith(f"⏰ {alice} ran out of time"), notice["content"]
        bot.orchard.runner.clock = time.time
        await play_out(bot, row.id, {0: ALICE, 1: BOB})
        end = await fake_discord.wait_for_message(
            CHANNEL, lambda m: "🏁" in (m.get("content") or "")
        )
        assert alice in end["content"] or bob in end["content"], end["content"]
        for command, options in (
            ("stats", {}),
            ("history", {}),
            ("leaderboard", {"game": "cheerio", "by": "wins"}),
        ):
            record = await answered(
                await fake_discord.slash(ALICE, GUILD, CHANNEL, command, options)
            )
            assert record.original is not None, (command, record.describe())
            texts += words_of(record.original)
        assert f"{alice}'s games here" in texts and f"{alice}'s recent games" in texts
        posted = [*fake_discord.messages.values(), *fake_discord.deleted.values()]
        texts += [t for m in posted if int(m["id"]) != board for t in words_of(m)]
        assert raw_names(texts) == []
        no_errors(fake_discord)


async def test_names_show_as_typed_on_the_daily_board(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """/daily-board, the board of names that are not mentions, styles no name."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        for user, name in NAMED.items():
            await finish_daily(bot, user, name)
        board = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "daily-board"))
        text = board.embeds[0]["description"]
        assert SHOWN[ALICE] in text and SHOWN[BOB] in text, text
        assert raw_names([text]) == []
        no_errors(fake_discord)


def roll_button(fake: FakeDiscord, board: int) -> Any:
    """Cheerio's roll button on the board, whatever the board code labels it."""
    from tests.fakediscord import components_of

    (button,) = [
        c for c in components_of(fake.message(board)) if (c.custom_id or "").split(":")[3] == "roll"
    ]
    return button


def test_a_date_is_written_without_a_leading_zero() -> None:
    day = datetime.date(2026, 1, 5)
    assert date_text(day) == "Monday 5 January"
    assert date_text(day, year=True) == "Monday 5 January 2026"
    assert date_text(day, weekday=False) == "5 January"
