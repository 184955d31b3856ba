"""The Review button through discord.py and the fake Discord: each player's own review,
privately, once the game is over."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bot.ai.appletters_players import choose as appletters_choose
from bot.ai.cheerio_players import hard as cheerio_hard
from bot.app import OrchardBot
from bot.specs import ENGINES, SPEC_OF
from tests.botharness import (
    ALICE,
    BOB,
    CAROL,
    GUILD,
    answered,
    new_game,
    no_errors,
    orchard_bot,
    press,
    private,
    server,
    unpaced,
)
from tests.fakediscord import FakeDiscord

USERS = (ALICE, BOB)


async def game_id_of(bot: OrchardBot, kind: str) -> int:
    (row,) = [g for g in await bot.orchard.store.open_games(GUILD) if g.kind == kind]
    return row.id


async def play_out(bot: OrchardBot, game_id: int, decide: Any) -> None:
    """Both players play (through the runner, as their clicks would) until the game ends."""
    runner = bot.orchard.runner
    live = await runner.load(game_id)
    while live.row.status == "active":
        engine = ENGINES[live.row.kind]
        seat = min(engine.to_act(live.state))
        verb, arg = engine.format(decide(engine, live.state, seat))
        live = await runner.act(game_id, USERS[seat], verb, arg)


def cheerio_move(engine: Any, state: Any, seat: int) -> Any:
    return cheerio_hard(state, seat)


def appletters_move(engine: Any, state: Any, seat: int) -> Any:
    return appletters_choose(engine.view_for(state, seat), seat, "easy", 0)


async def test_each_player_gets_their_own_review_privately(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    unpaced(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        game_id = await game_id_of(bot, "cheerio")
        early = await answered(await fake_discord.forge(ALICE, board, f"orc:{game_id}:1:review:"))
        assert early.ephemeral and "once it is over" in early.content
        await play_out(bot, game_id, cheerio_move)
        row = await bot.orchard.store.get_game(game_id)
        assert row is not None
        moves = await bot.orchard.store.moves(game_id)
        review = SPEC_OF["cheerio"].review
        assert review is not None
        for seat, user in enumerate(USERS):
            reply = await press(fake_discord, user, board, "Review")
            private(reply)
            assert reply.content == review("cheerio", row.seed, 2, row.options, moves, seat)
            assert "accuracy 100%" in reply.content  # Hard played both seats
        outsider = await press(fake_discord, CAROL, board, "Review")
        assert outsider.ephemeral and "Only the players" in outsider.content
        no_errors(fake_discord)


async def test_an_appletters_review_reads_only_the_askers_tiles(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    unpaced(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(fake_discord, "appletters", ALICE, [BOB])
        game_id = await game_id_of(bot, "appletters")
        await play_out(bot, game_id, appletters_move)
        row = await bot.orchard.store.get_game(game_id)
        assert row is not None and row.status == "finished"
        reply = await press(fake_discord, ALICE, board, "Review")
        private(reply)
        assert reply.content.startswith("**Your review**") and "Turn 1:" in reply.content
        state = ENGINES["appletters"].load(row.state)
        moves = await bot.orchard.store.moves(game_id)
        bobs_words = {
            m.arg.split("-")[0].upper() for m in moves if m.seat == 1 and m.verb == "play"
        }
        alices_words = {
            m.arg.split("-")[0].upper() for m in moves if m.seat == 0 and m.verb == "play"
        }
        assert all(f": {w} ·" not in reply.content for w in bobs_words - alices_words)
        shown = set(re.findall(r"[A-Z]{2,}", reply.content))  # words, not a lone letter
        assert state.hands[1] not in shown  # Bob's tiles left are never a word shown
        no_errors(fake_discord)
