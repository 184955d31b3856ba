"""People first: Orchard's seats and the turn pings wait while a click is being handled, and
never longer than the foreground's limit."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from bot.app import OrchardBot
from bot.foreground import Foreground
from bot.model import Player
from bot.opponents import Opponents
from tests.botharness import (
    ALICE,
    BOB,
    CAROL,
    GUILD,
    answered,
    new_game,
    no_errors,
    orchard_bot,
    server,
    unpaced,
)
from tests.fakediscord import FakeDiscord
from tests.support import CHANNEL as TABLE_CHANNEL
from tests.support import GUILD as TABLE_GUILD
from tests.support import orchard, player

HELD = 0.3  # seconds a click is kept in hand while the test looks for what must wait


async def test_with_no_click_in_hand_nothing_waits() -> None:
    foreground = Foreground(most=5.0)
    began = time.monotonic()
    await foreground.after_clicks()
    assert time.monotonic() - began < 0.1


async def test_waiting_ends_when_the_last_click_in_hand_ends() -> None:
    foreground = Foreground(most=5.0)
    foreground.begin()
    foreground.begin()
    waiting = asyncio.create_task(foreground.after_clicks())
    await asyncio.sleep(0.05)
    foreground.end()
    await asyncio.sleep(0.05)
    assert not waiting.done(), "one click is still in hand"
    foreground.end()
    await asyncio.wait_for(waiting, 1.0)
    assert foreground.clicks == 0


async def test_waiting_gives_up_after_the_limit_while_clicks_go_on() -> None:
    foreground = Foreground(most=0.1)
    foreground.begin()
    began = time.monotonic()
    await asyncio.wait_for(foreground.after_clicks(), 2.0)
    assert 0.09 <= time.monotonic() - began < 1.0
    foreground.end()


async def test_orchards_seat_moves_only_once_no_click_is_in_hand(tmp_path: Path) -> None:
    table = await orchard(tmp_path / "o.db")
    runner = table.runner
    runner.foreground.most = 10.0
    Opponents(runner, delay=0)
    live = await table.lobby.open("cheerio", TABLE_GUILD, TABLE_CHANNEL, player(1))
    await table.lobby.add_seat(live.id, 1, Player(0, 999, "Orchard (easy)", True, level="easy"))
    live = await table.lobby.start(live.id, 1)
    runner.foreground.begin()  # what the bot does for a person's click (OrchardBot)
    live = await runner.act(live.id, 1, "score", "cheerio", version=live.row.version)
    await asyncio.sleep(HELD)
    assert (await runner.load(live.id)).state.turn == 1, "Orchard waits for the click"
    runner.foreground.end()
    for _ in range(500):
        if (await runner.load(live.id)).state.turn == 0:
            break
        await asyncio.sleep(0.01)
    assert (await runner.load(live.id)).state.turn == 0, "then it plays, and hands back"
    await table.close()


async def test_a_turn_ping_waits_for_a_click_in_hand_in_another_game(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Carol's click is held in hand (her game's lock taken) while Alice's move passes the
    turn to Bob in another game: Bob is told once Carol's click is answered."""
    fake = fake_discord
    server(fake)
    unpaced(fake)
    async with orchard_bot(fake, tmp_path / "o.db") as bot:
        runner = bot.orchard.runner
        runner.foreground.most = 10.0
        cheerio = await new_game(fake, "cheerio", ALICE, [BOB])
        hotscore = await new_game(fake, "hotscore", CAROL, [ALICE])
        await fake.wait_for(lambda: len(fake.notifications) == 2, what="both first turns told")
        assert told(fake, BOB) == 0
        cheerio_game, hotscore_game = await games(bot, cheerio, hotscore)
        async with runner.lock(hotscore_game):
            click = await fake.click(CAROL, hotscore, fake.find_button(hotscore, "Throw 2 dice"))
            await fake.wait_for(lambda: runner.foreground.clicks == 1, what="Carol's click")
            live = await runner.load(cheerio_game)
            await runner.act(cheerio_game, ALICE, "score", "cheerio", version=live.row.version)
            await asyncio.sleep(HELD)
            assert told(fake, BOB) == 0, "Bob's ping waits for the click in hand"
        await answered(click)
        await fake.wait_for(lambda: told(fake, BOB) == 1, what="Bob's ping")
        no_errors(fake)


def told(fake: FakeDiscord, user: int) -> int:
    return sum(1 for who, _ in fake.notifications if who == user)


async def games(bot: OrchardBot, *boards: int) -> list[int]:
    """The ids of the games shown on these boards."""
    rows = await bot.orchard.store.open_games(GUILD)
    return [next(r.id for r in rows if r.message_id == board) for board in boards]
