"""Orchard at the table, through discord.py: it plays its own turns and the board follows."""

import asyncio

import pytest

from bot.games.cheerio import open_categories
from bot.runner import Snapshot
from db.connection import Target
from tests.botharness import (
    ALICE,
    BOB,
    CHANNEL,
    GUILD,
    answered,
    choose,
    no_errors,
    orchard_bot,
    press,
    private,
    select_of,
    server,
    unpaced,
)
from tests.fakediscord import FakeDiscord, components_of, text_of


async def until_alice_or_over(bot, game_id: int, fake: FakeDiscord | None = None) -> None:
    """Orchard moves in its own tasks: wait (bounded) until it hands the turn back, and (with
    ``fake``) until the game's message shows that version: the edit follows the commit."""
    for _ in range(1000):
        now = await bot.orchard.runner.load(game_id)
        if now.row.status != "active":
            return
        if now.state.turn == 0 and (fake is None or _shows(fake, now)):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("Orchard did not finish its turn")


def _shows(fake: FakeDiscord, live: Snapshot) -> bool:
    message = fake.messages.get(live.row.message_id or 0)
    ids = [c.custom_id or "" for c in components_of(message)] if message else []
    return any(i.split(":")[1:3] == [str(live.id), str(live.row.version)] for i in ids)


async def test_opponent_orchard_plays_its_turns(
    fake_discord: FakeDiscord, database: Target
) -> None:
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        opened = await answered(
            await fake_discord.slash(
                ALICE, GUILD, CHANNEL, "cheerio new", {"opponent": "orchard", "level": "hard"}
            )
        )
        board = int(opened.original["id"])
        (row,) = await bot.orchard.store.open_games(GUILD)
        assert [p.is_bot for p in row.players] == [False, True]
        assert row.players[1].level == "hard"
        for _ in range(7):
            live = await bot.orchard.runner.load(row.id)
            category = open_categories(live.state.cards[0])[0]
            await choose(fake_discord, ALICE, board, "score", [category])
            await until_alice_or_over(bot, row.id, fake_discord)
        live = await bot.orchard.runner.load(row.id)
        assert live.row.status == "finished"
        moves = await bot.orchard.store.moves(row.id)
        assert sum(m.source == "bot" for m in moves) >= 7
        assert "Orchard (Hard)" in text_of(fake_discord.message(board))


@pytest.mark.parametrize(
    ("command", "options"),
    [("hotscore new", {"level": "easy"}), ("appletters new", {"level": "hard"})],
)
async def test_a_level_alone_plays_orchard_at_once(
    fake_discord: FakeDiscord, database: Target, command: str, options: dict[str, str]
) -> None:
    """``level`` is how well Orchard plays: someone who chose one wants to play Orchard, so
    it seats Orchard at that level and starts, as ``opponent:orchard`` does. It used to be
    dropped without a word, and a plain lobby opened."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, command, options))
        assert not opened.ephemeral, opened.describe()
        (row,) = await bot.orchard.store.open_games(GUILD)
        assert row.status == "active"
        assert [(p.is_bot, p.level) for p in row.players][1] == (True, options["level"])


async def test_add_orchard_from_the_lobby(fake_discord: FakeDiscord, database: Target) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "hotscore new"))
        lobby = int(opened.original["id"])
        outsider = await choose(fake_discord, BOB, lobby, "lobby_addbot", ["easy"])
        assert (
            outsider.ephemeral
            and outsider.content == f"Only the host, <@{ALICE}>, can add Orchard."
        )
        added = await choose(fake_discord, ALICE, lobby, "lobby_addbot", ["easy"])
        assert "Orchard (Easy)" in text_of(added.original)
        await press(fake_discord, ALICE, lobby, "Start")
        (row,) = await bot.orchard.store.open_games(GUILD)
        assert row.status == "active" and row.players[1].is_bot


async def test_orchard_chosen_from_a_lobby_filled_meanwhile_is_refused(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Alice opens the Add Orchard menu of her Hot Score lobby (two seats), and Bob joins
    before she chooses: the lobby is full, so her choice is refused and seats nobody, and
    Start plays Alice against Bob."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "hotscore new"))
        lobby = int(opened.original["id"])
        menu = select_of(fake_discord, lobby, "lobby_addbot")
        await press(fake_discord, BOB, lobby, "Join")
        late = await answered(
            await fake_discord.forge(ALICE, lobby, menu.custom_id or "", values=["easy"])
        )
        private(late)
        assert late.content == "This game is full.", late.describe()
        (game,) = await bot.orchard.store.open_games(GUILD)
        assert [p.user_id for p in game.players] == [ALICE, BOB]
        started = await press(fake_discord, ALICE, lobby, "Start")
        assert started.type == 7, started.describe()
        (game,) = await bot.orchard.store.open_games(GUILD)
        assert game.status == "active" and not any(p.is_bot for p in game.players)
        no_errors(fake_discord)


async def test_cheerio_hint_is_private_own_turn_only_and_marks_the_game(
    fake_discord: FakeDiscord, database: Target
) -> None:
    from tests.botharness import new_game
    from tests.databases import query

    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        await new_game(fake_discord, "cheerio", ALICE, [BOB])
        early = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "cheerio hint"))
        assert early.ephemeral and "your own turn" in early.content
        hint = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio hint"))
        assert hint.ephemeral and hint.content.count("expected final score") == 3
        assert all(
            m.get("flags", 0) & 64 or "expected" not in (m.get("content") or "")
            for m in fake_discord.channel_messages(CHANNEL)
        )
        await bot.orchard.settings.update(GUILD, hints=False)
        off = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio hint"))
        assert off.ephemeral and "turned off" in off.content
    assert await query(database, "SELECT hinted FROM games") == [(1,)]


async def test_cheerio_hint_finds_the_game_where_it_is_your_turn(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """With two Cheerio games allowed per channel, Alice plays in two: it is Carol's turn in
    the first and Alice's in the second. Her hint is for the second, which it marks."""
    from tests.botharness import CAROL, new_game

    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        await bot.orchard.settings.update(GUILD, open_games_per_channel=2)
        await new_game(fake_discord, "cheerio", ALICE, [CAROL])
        await new_game(fake_discord, "cheerio", BOB, [ALICE])
        first, second = [g.id for g in await bot.orchard.store.open_games(GUILD)]
        await bot.orchard.runner.act(first, ALICE, "score", "ones")
        await bot.orchard.runner.act(second, BOB, "score", "ones")
        hint = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio hint"))
        assert hint.ephemeral and hint.content.count("expected final score") == 3, hint.content
        assert f"game {second}" in hint.content, hint.content
        hinted = [(await bot.orchard.store.get_game(g)).hinted for g in (first, second)]
        assert hinted == [False, True]


def _seat_labels(fake: FakeDiscord, lobby: int) -> list[str]:
    """What the lobby's Remove Orchard select offers, as the host reads it."""
    return [o["label"] for o in select_of(fake, lobby, "lobby_removebot").raw["options"]]


async def test_the_host_removes_orchard_from_the_lobby(
    fake_discord: FakeDiscord, database: Target
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "hotscore new"))
        lobby = int(opened.original["id"])
        await choose(fake_discord, ALICE, lobby, "lobby_addbot", ["hard"])
        (game,) = await bot.orchard.store.open_games(GUILD)
        row = await bot.orchard.store.get_game(game.id)
        menu = select_of(fake_discord, lobby, "lobby_removebot")
        assert _seat_labels(fake_discord, lobby) == ["Orchard (Hard)"]
        with pytest.raises(LookupError):  # Hot Score seats two: the lobby is full
            select_of(fake_discord, lobby, "lobby_addbot")
        outsider = await choose(fake_discord, BOB, lobby, "lobby_removebot", menu.options)
        private(outsider)
        assert outsider.content == f"Only the host, <@{ALICE}>, can remove Orchard."
        assert await bot.orchard.store.get_game(row.id) == row, "refused: nothing changed"
        removed = await choose(fake_discord, ALICE, lobby, "lobby_removebot", menu.options)
        assert removed.type == 7 and "Orchard (Hard)" not in text_of(fake_discord.message(lobby))
        assert select_of(fake_discord, lobby, "lobby_addbot"), "Orchard can be added again"
        with pytest.raises(LookupError):
            select_of(fake_discord, lobby, "lobby_removebot")
        again = await answered(
            await fake_discord.forge(ALICE, lobby, menu.custom_id or "", values=menu.options)
        )
        private(again)
        assert "changed since you chose" in again.content
        alone = await press(fake_discord, ALICE, lobby, "Start")
        private(alone)
        assert "at least 2 players" in alone.content
        await press(fake_discord, BOB, lobby, "Join")
        await press(fake_discord, ALICE, lobby, "Start")
        (started,) = await bot.orchard.store.open_games(GUILD)
        assert started.status == "active" and not any(p.is_bot for p in started.players)
        no_errors(fake_discord)


async def test_orchard_seats_come_out_after_a_restart_until_the_game_starts(
    fake_discord: FakeDiscord, database: Target
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database):
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        lobby = int(opened.original["id"])
        for level in ("easy", "hard", "hard"):
            await choose(fake_discord, ALICE, lobby, "lobby_addbot", [level])
    async with orchard_bot(fake_discord, database) as bot:  # a restart: the board is as it was
        menu = select_of(fake_discord, lobby, "lobby_removebot")
        labels = ["Orchard (Easy)", "Orchard (Hard)", "Orchard (Hard) 2"]
        assert _seat_labels(fake_discord, lobby) == labels
        first_hard = menu.options[1]
        removed = await choose(fake_discord, ALICE, lobby, "lobby_removebot", [first_hard])
        assert removed.type == 7
        assert _seat_labels(fake_discord, lobby) == labels[:2], "the second Hard is the first now"
        (row,) = await bot.orchard.store.open_games(GUILD)
        assert [p.level for p in row.players] == ["", "easy", "hard"]
        double = await answered(
            await fake_discord.forge(ALICE, lobby, menu.custom_id or "", values=[first_hard])
        )
        private(double)
        assert "changed since you chose" in double.content
        again = await bot.orchard.store.get_game(row.id)
        assert again is not None and again.players == row.players, "the other Hard seat stays"
        shown = select_of(fake_discord, lobby, "lobby_removebot").options
        await press(fake_discord, ALICE, lobby, "Start")
        late = await answered(
            await fake_discord.forge(ALICE, lobby, menu.custom_id or "", values=shown[:1])
        )
        private(late)
        assert "already started" in late.content
        (started,) = await bot.orchard.store.open_games(GUILD)
        assert started.status == "active" and started.players == row.players
        no_errors(fake_discord)
