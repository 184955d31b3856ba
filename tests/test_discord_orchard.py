"""Orchard at the table, through discord.py: it plays its own turns and the board follows."""

import asyncio
from pathlib import Path

from bot.games.cheerio import open_categories
from tests.botharness import (
    ALICE,
    BOB,
    CHANNEL,
    GUILD,
    answered,
    choose,
    orchard_bot,
    press,
    server,
)
from tests.fakediscord import FakeDiscord


async def until_alice_or_over(bot, game_id: int) -> None:
    """Orchard moves in its own tasks: wait (bounded) until it hands the turn back."""
    for _ in range(1000):
        now = await bot.runner.load(game_id)
        if now.row.status != "active" or now.state.turn == 0:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("Orchard did not finish its turn")


async def test_opponent_orchard_plays_its_turns(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        opened = await answered(
            await fake_discord.slash(
                ALICE, GUILD, CHANNEL, "cheerio new", {"opponent": "orchard", "level": "hard"}
            )
        )
        board = int(opened.original["id"])
        (row,) = await bot.store.open_games(GUILD)
        assert [p.is_bot for p in row.players] == [False, True]
        assert row.players[1].level == "hard"
        for _ in range(7):
            live = await bot.runner.load(row.id)
            category = open_categories(live.state.cards[0])[0]
            await choose(fake_discord, ALICE, board, "score", [category])
            await until_alice_or_over(bot, row.id)
        live = await bot.runner.load(row.id)
        assert live.row.status == "finished"
        moves = await bot.store.moves(row.id)
        assert sum(m.source == "bot" for m in moves) >= 7
        assert "Orchard (hard)" in fake_discord.message(board)["embeds"][0]["description"]


async def test_add_orchard_from_the_lobby(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "hotscore new"))
        lobby = int(opened.original["id"])
        outsider = await choose(fake_discord, BOB, lobby, "lobby_addbot", ["easy"])
        assert outsider.ephemeral and "Only the host" in outsider.content
        added = await choose(fake_discord, ALICE, lobby, "lobby_addbot", ["easy"])
        assert "Orchard (easy)" in added.original["embeds"][0]["fields"][0]["value"]
        await press(fake_discord, ALICE, lobby, "Start")
        (row,) = await bot.store.open_games(GUILD)
        assert row.status == "active" and row.players[1].is_bot
