"""Bad words through discord.py against the fake: the word modal, /appletters play and new.

Like tests/test_bad_input.py, every property test reuses one bot and one fake for all its
examples, and each example must be answered privately and clearly, with nothing changed in
any game and nothing logged at ERROR level (an apology logs a traceback, so it fails too).
The word game's list holds one word no hand can lay (there is one Q), so no text is a move.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.app import OrchardBot
from bot.games.appletters import MAX_WORD, AppState, register_words
from bot.model import GameStatus
from bot.runner import Refusal, Snapshot
from db.connection import Target
from tests.botharness import config, new_game, no_errors, orchard_bot, private, snapshot
from tests.fakediscord import FakeDiscord, InteractionRecord, run_bot, text_of
from tests.test_discord_appletters import assert_private, public_texts, replies_by_user

GUILD, CHANNEL_A, CHANNEL_B = 5001, 6001, 6002
ALICE, BOB, CAROL = 7001, 7002, 7003
WORDS = register_words("test-bad-words", ["qqqq"])
ANSWER_TIMEOUT = 2.0
DISCORD_LIMIT = 2000

PROPERTY = settings(
    max_examples=75,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Texts issue 8 names, beside whatever hypothesis draws.
FIXED_WORDS = [
    "",
    " ",
    "A",
    "Q" * 4000,
    "QZ" * 300,
    "ab" * 21,
    "ÄPFEL",
    "straße",
    "яблоко",
    "تفاحة",
    "ap\u200bple",
    "\u200b\u200b",
    "\u202eelppa",
    "\u200fAB\u200e",
    "🍎🍏",
    "🍎" * 2000,
    "'; DROP TABLE games; --",
    "qqqq' OR '1'='1",
    "**bold** __under__ `code` ||spoiler|| @everyone <@7002> [x](https://a.b)",
    "> quote\n# heading",
    "ab:start:begins",
    "QQQQ:end",
    "AB:x:y:z",
    "\x00\x01",
    "\n\t",
]
WHO = st.sampled_from(["mover", "waiting", "stranger"])
END_TEXT = st.one_of(
    st.sampled_from(["", "start", "end", "s", " E ", "START", "middle"]), st.text(max_size=50)
)
F = TypeVar("F", bound=Callable[..., Any])


def with_fixed_words(test: F) -> F:
    """Each of :data:`FIXED_WORDS`, sent by the player whose turn it is, before the draws."""
    for word in FIXED_WORDS:
        test = example(word=word, end="", who="mover")(test)
    return example(word="Q" * 4000, end="x" * 4000, who="mover")(test)


@dataclass
class Tables:
    """Alice and Bob's Appletters game in channel A; Carol's Cheerio in channel B."""

    fake: FakeDiscord
    bot: OrchardBot
    letters: int
    cheerio: int
    board: int

    async def snapshot(self) -> list[Any]:
        return await snapshot(self.bot, self.letters, self.cheerio)

    async def user(self, who: str) -> int:
        """``mover``: whose turn it is; ``waiting``: the other player; else Carol."""
        live = await self.bot.orchard.runner.load(self.letters)
        state: AppState = live.state
        seats = {"mover": state.turn, "waiting": 1 - state.turn}
        return live.row.players[seats[who]].user_id if who in seats else CAROL

    async def modal_id(self, user: int) -> str:
        """The word modal's id: opened by the mover's button, typed out for anyone else."""
        live = await self.bot.orchard.runner.load(self.letters)
        if live.row.seat_of(user) != live.state.turn:
            return f"orcm:{self.letters}:{live.row.version}:play:"
        opened = await answer(await self.fake.click(user, self.board, self.button("Play a word")))
        assert opened.modal is not None, opened.describe()
        return str(opened.modal["custom_id"])

    def button(self, label: str) -> Any:
        return self.fake.find_button(self.board, label)


async def answer(record: InteractionRecord) -> InteractionRecord:
    return await record.wait(ANSWER_TIMEOUT)


def word_list_only(bot: OrchardBot, name: str) -> None:
    """New word games use list ``name`` (the cog is loaded anew per bot)."""

    async def options_for(guild_id: int) -> dict[str, Any]:
        return {"word_list": name}

    cog = bot.get_cog("AppLettersCog")
    assert cog is not None
    cog.options_for = options_for  # type: ignore[method-assign]


def one_server(fake: FakeDiscord) -> None:
    for user, name in ((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol")):
        fake.add_user(user, name)
    fake.add_guild(GUILD, [CHANNEL_A, CHANNEL_B], [ALICE, BOB, CAROL])


@pytest.fixture
async def tables(tmp_path: Path) -> AsyncIterator[Tables]:
    async with FakeDiscord.running() as fake:
        one_server(fake)
        bot = OrchardBot(config(tmp_path / "o.db"), guild_ready_timeout=0.05)
        async with run_bot(bot, fake):
            word_list_only(bot, WORDS)
            board = await new_game(fake, "appletters", ALICE, [BOB], channel=CHANNEL_A)
            await new_game(fake, "cheerio", CAROL, [], channel=CHANNEL_B)
            ids = {row.kind: row.id for row in await bot.orchard.store.open_games(GUILD)}
            yield Tables(fake, bot, ids["appletters"], ids["cheerio"], board)


def short_answer(reply: InteractionRecord, word: str) -> None:
    """A word longer than any legal one is not echoed back (a 4,000-letter reply helps no one)."""
    if len(word.strip()) > MAX_WORD:
        assert word.strip().upper() not in reply.content, reply.content[:200]
        assert len(reply.content) < 200, reply.content[:200]


# --------------------------------------------------------------------------- the word modal


@PROPERTY
@given(word=st.text(), end=END_TEXT, who=WHO)
@with_fixed_words
async def test_any_modal_text_is_refused_privately_and_changes_nothing(
    tables: Tables, word: str, end: str, who: str
) -> None:
    user = await tables.user(who)
    custom = await tables.modal_id(user)
    before = await tables.snapshot()
    sent = await tables.fake.submit_modal(user, CHANNEL_A, custom, {"word": word, "end": end})
    reply = await answer(sent)
    private(reply)
    short_answer(reply, word)
    assert await tables.snapshot() == before
    no_errors(tables.fake)


async def test_a_4000_character_word_gets_a_short_clear_answer(tables: Tables) -> None:
    user = await tables.user("mover")
    custom = await tables.modal_id(user)
    reply = await answer(
        await tables.fake.submit_modal(user, CHANNEL_A, custom, {"word": "QZ" * 2000})
    )
    private(reply)
    assert f"at most {MAX_WORD} letters" in reply.content
    no_errors(tables.fake)


@pytest.mark.parametrize("word", ["cat:start", "CAT:", ":end"])
async def test_a_colon_typed_in_the_word_is_refused_as_not_a_letter(
    tables: Tables, word: str
) -> None:
    """The way goes after a ":" in a move, so one typed in the word box read as a way: with
    "end" in the end box, "cat:start" was told to choose begins or ends."""
    user = await tables.user("mover")
    custom = await tables.modal_id(user)
    before = await tables.snapshot()
    sent = await tables.fake.submit_modal(user, CHANNEL_A, custom, {"word": word, "end": "end"})
    reply = await answer(sent)
    private(reply)
    assert "A word may only use the letters A to Z." in reply.content, reply.content
    assert await tables.snapshot() == before
    no_errors(tables.fake)


@pytest.mark.parametrize("who", ["player", "stranger"])
async def test_a_word_form_naming_a_cheerio_game_is_refused(tables: Tables, who: str) -> None:
    """``orcm:<cheerio id>:0:play:`` must not reach the word engine with a Cheerio state."""
    user = CAROL if who == "player" else ALICE
    before = await tables.snapshot()
    for version in (0, 1, 2):
        custom = f"orcm:{tables.cheerio}:{version}:play:"
        sent = await tables.fake.submit_modal(user, CHANNEL_B, custom, {"word": "AB", "end": ""})
        reply = await answer(sent)
        private(reply)
        assert "not a word game" in reply.content
    assert await tables.snapshot() == before
    no_errors(tables.fake)


async def test_a_refusal_longer_than_discord_allows_is_cut_short(
    tables: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any refusal, however long, arrives: clamped to Discord's limit with an ellipsis."""

    def long_refusal(text: str) -> str:
        raise Refusal("Start or end, please. " * 500)

    loaded = sys.modules["cogs.appletters"]  # the extension as the bot loaded it
    monkeypatch.setattr(loaded, "parse_end", long_refusal)
    user = await tables.user("mover")
    custom = await tables.modal_id(user)
    reply = await answer(await tables.fake.submit_modal(user, CHANNEL_A, custom, {"word": "AB"}))
    private(reply)
    assert len(reply.content) == DISCORD_LIMIT and reply.content.endswith("…")
    no_errors(tables.fake)


# --------------------------------------------------------------------------- slash options


@PROPERTY
@given(word=st.text(), end=st.one_of(st.none(), END_TEXT), who=WHO)
@with_fixed_words
async def test_any_appletters_play_options_are_refused_privately_and_change_nothing(
    tables: Tables, word: str, end: str | None, who: str
) -> None:
    """Discord's client keeps to the declared choices and lengths; a forged call may not."""
    user = await tables.user(who)
    options = {"word": word} if end is None else {"word": word, "end": end}
    before = await tables.snapshot()
    reply = await answer(
        await tables.fake.slash(user, GUILD, CHANNEL_A, "appletters play", options)
    )
    private(reply)
    short_answer(reply, word)
    assert await tables.snapshot() == before
    no_errors(tables.fake)


@pytest.mark.parametrize("variant", ["", "Appletters", "scrabble", "appleturnover", "🍎" * 30])
async def test_a_forged_play_variant_is_refused_privately_and_changes_nothing(
    tables: Tables, variant: str
) -> None:
    """Discord's client offers only the three variants' options; a forged call may not."""
    user = await tables.user("mover")
    before = await tables.snapshot()
    options = {"word": "qqqq", "variant": variant}
    reply = await answer(
        await tables.fake.slash(user, GUILD, CHANNEL_A, "appletters play", options)
    )
    private(reply)
    assert reply.content == "Choose one of the word games.", reply.content
    assert await tables.snapshot() == before
    no_errors(tables.fake)


async def test_turning_over_with_no_apple_turnover_game_here_says_so(tables: Tables) -> None:
    """Only plain Appletters is played here: /appletters turnover looks for nothing else."""
    user = await tables.user("mover")
    before = await tables.snapshot()
    said = await tables.fake.slash(user, GUILD, CHANNEL_A, "appletters turnover", {"word": "qqqq"})
    reply = await answer(said)
    private(reply)
    assert reply.content == "You have no Apple Turnover game in play in this channel."
    assert await tables.snapshot() == before
    no_errors(tables.fake)


@PROPERTY
@given(
    variant=st.one_of(st.sampled_from(["", "Appletters", "scrabble"]), st.text(max_size=30)),
    level=st.one_of(st.sampled_from(["", "HARD", "expert"]), st.text(max_size=30)),
)
async def test_forged_new_options_open_nothing(tables: Tables, variant: str, level: str) -> None:
    games = await tables.bot.orchard.store.open_games(GUILD)
    options = {"variant": variant, "opponent": "orchard", "level": level}
    reply = await answer(
        await tables.fake.slash(CAROL, GUILD, CHANNEL_B, "appletters new", options)
    )
    private(reply)
    assert await tables.bot.orchard.store.open_games(GUILD) == games
    no_errors(tables.fake)


async def test_the_word_option_is_declared_as_long_as_the_modal(tables: Tables) -> None:
    """Discord itself then stops over-long words before they are sent."""
    (group,) = [c for c in tables.fake.commands or [] if c["name"] == "appletters"]
    for sub in ("play", "turnover"):
        (command,) = [o for o in group["options"] if o["name"] == sub]
        word = next(o for o in command["options"] if o["name"] == "word")
        assert (word["min_length"], word["max_length"]) == (2, MAX_WORD)
        end = next(o for o in command["options"] if o["name"] == "end")
        assert [c["value"] for c in end["choices"]] == ["start", "end"]


# --------------------------------------------------------------------------- opponent:orchard


async def orchard_moved(bot: OrchardBot, game_id: int) -> Snapshot:
    """Orchard moves in its own tasks: wait (bounded) until it made a move and waits for
    Alice, or went out and ended the game (after Alice passed it may play its last tiles)."""
    for _ in range(1000):
        live = await bot.orchard.runner.load(game_id)
        moves = await bot.orchard.store.moves(game_id)
        waits = live.state.turn == 0 or live.row.status is not GameStatus.ACTIVE
        if any(m.source == "bot" for m in moves) and waits:
            return live
        await asyncio.sleep(0.01)
    raise AssertionError("Orchard did not play its turn")


@pytest.mark.parametrize(
    ("seed", "delay"),
    [
        pytest.param(3, 0.0, id="alice-starts"),
        pytest.param(1, 0.3, id="orchard-starts"),
        pytest.param(1, 0.0, id="orchard-starts-at-once"),
    ],
)
async def test_new_against_orchard_starts_at_once_and_orchard_plays(
    fake_discord: FakeDiscord,
    database: Target,
    monkeypatch: pytest.MonkeyPatch,
    seed: int,
    delay: float,
) -> None:
    """Seed 1 deals Orchard (seat 1) the lowest letter, seed 3 deals it to Alice."""
    monkeypatch.setattr("bot.lobby.secrets.randbits", lambda bits: seed)
    fake = fake_discord
    one_server(fake)
    async with orchard_bot(fake, database, delay=delay) as bot:
        options = {"variant": "applescore", "opponent": "orchard", "level": "hard"}
        opened = await answer(await fake.slash(ALICE, GUILD, CHANNEL_A, "appletters new", options))
        assert opened.type == 4 and not opened.ephemeral, opened.describe()
        assert opened.original is not None
        board = int(opened.original["id"])
        (row,) = await bot.orchard.store.open_games(GUILD)
        assert row.kind == "applescore" and row.status == "active"
        assert [(p.user_id, p.is_bot) for p in row.players] == [
            (ALICE, False),
            (row.players[1].user_id, True),
        ]
        assert row.players[1].level == "hard"
        if seed == 1 and delay == 0:  # Orchard starts at once: let it move, Alice pass, it again
            await orchard_moved(bot, row.id)
        live = await bot.orchard.runner.load(row.id)
        assert live.state.log[0].seat == (0 if seed == 3 else 1)  # who drew the lowest letter
        current = f"orc:{row.id}:{live.row.version}:"  # Orchard may have moved: await its board
        await fake.wait_for(lambda: current in str(fake.message(board)), what="the board shown")
        if live.state.turn == 0:
            passed = await answer(
                await fake.click(ALICE, board, fake.find_button(board, "Pick 3 tiles and pass"))
            )
            assert passed.type == 7, passed.describe()
        latest = await orchard_moved(bot, row.id)

        def boards() -> list[int]:
            return [int(m["id"]) for m in fake.channel_messages(CHANNEL_A) if m.get("components")]

        def shown() -> bool:
            on_board = f"orc:{row.id}:{latest.row.version}:" in str(fake.message(board))
            return on_board or len(boards()) > 1

        await fake.wait_for(shown, what="the board to show Orchard's move")
        if latest.row.status is GameStatus.ACTIVE:
            assert "Alice's turn" in str(text_of(fake.message(board)))
        assert boards() == [board]  # Orchard's move edited the one board, posted no other
        assert "Orchard (Hard)" in str(text_of(fake.message(board)))
        no_errors(fake)
        moves = await bot.orchard.store.moves(row.id)
        held = [bot.orchard.runner._replayed(live.row, moves[:n]) for n in range(len(moves) + 1)]
        orchards = {state.hands[1] for state in held}
        alices = {state.hands[0] for state in held}
    # Orchard's tiles are as secret as a person's: nowhere public, nothing sent to Alice.
    seen_by_alice = public_texts(fake) + replies_by_user(fake)[ALICE]
    seen_by_alice += [json.dumps(dm) for dm in fake.dms(ALICE)]
    # A hand of one tile is no secret pattern: Alice's own list of tiles may show that letter.
    assert_private(seen_by_alice, alices, {h for h in orchards if len(h) > 1}, ALICE)
