"""Discord's global limit kept by the bot itself (bot/pacing.py).

Going over it makes discord.py hold every request, answers to clicks included; the fake
answers a 51st request in a second with a global 429 just as Discord does.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from pathlib import Path

import aiohttp
import discord
import pytest

from bot.app import OrchardBot
from bot.config import Config
from bot.pacing import BACKLOG, Pacer, traced
from bot.shards import ShardPlan
from tests.botharness import CHANNEL, GUILD, config, orchard_bot, server, unpaced
from tests.fakediscord import FakeDiscord, run_bot


async def test_the_backlog_waits_for_every_request_made_now() -> None:
    pacer = Pacer(per_second=500, burst=1)
    await pacer.slot()  # the one token is gone: everyone below queues
    order: list[str] = []

    async def request(name: str, backlog: bool) -> None:
        await pacer.slot(backlog)
        order.append(name)

    await asyncio.gather(
        request("old board 1", True),
        request("old board 2", True),
        request("click 1", False),
        request("click 2", False),
    )
    assert order == ["click 1", "click 2", "old board 1", "old board 2"]


async def test_a_cancelled_wait_gives_its_slot_to_the_next() -> None:
    pacer = Pacer(per_second=50, burst=1)
    await pacer.slot()
    gone = asyncio.create_task(pacer.slot())
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.wait_for(pacer.slot(True), 1.0)
    assert pacer.waiting == 0


async def _sends(bot: discord.Client, count: int) -> None:
    channel = bot.get_partial_messageable(CHANNEL)
    await asyncio.gather(*(channel.send(f"board {i}") for i in range(count)))


def _global_refusals(fake: FakeDiscord) -> int:
    return sum(1 for r in fake.requests if r.status == 429 and r.headers.get("X-RateLimit-Global"))


async def test_orchard_stays_under_the_global_limit(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    unpaced(fake_discord)  # one channel for all: only the global limit is in play
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        await _sends(bot, 80)
    assert _global_refusals(fake_discord) == 0
    assert len([r for r in fake_discord.requests if r.method == "POST" and r.status == 200]) >= 80


async def test_two_processes_stay_under_the_bots_one_global_limit(tmp_path: Path) -> None:
    """The 50 a second are the bot's (its token's), not each process's: two processes, each
    running one of the two shards, share them (alone, each would take 45 and draw global
    429s together)."""
    async with contextlib.AsyncExitStack() as stack:
        fake = await stack.enter_async_context(FakeDiscord.running(shard_count=2))
        server(fake)
        unpaced(fake)
        bots = [
            await stack.enter_async_context(
                run_bot(OrchardBot(sharded(tmp_path / f"{shard}.db", shard)), fake)
            )
            for shard in (0, 1)
        ]
        await asyncio.gather(*(_sends(bot, 80) for bot in bots))
        assert _global_refusals(fake) == 0
        assert len([r for r in fake.requests if r.method == "POST" and r.status == 200]) >= 160


def sharded(database: Path, shard: int) -> Config:
    """A process of Orchard's that runs shard ``shard`` of two."""
    return replace(config(database), shards=ShardPlan((shard,), 2))


async def test_a_plain_bot_goes_over_it_in_the_same_case(fake_discord: FakeDiscord) -> None:
    """The check above can fail: without pacing, the same sends draw global 429s."""
    server(fake_discord)
    unpaced(fake_discord)
    bot = discord.Client(intents=discord.Intents.none(), guild_ready_timeout=0.05)
    async with run_bot(bot, fake_discord):
        await _sends(bot, 80)
    assert _global_refusals(fake_discord) > 0


async def test_backlog_is_a_task_local_mark() -> None:
    async def inside() -> bool:
        BACKLOG.set(True)
        return BACKLOG.get()

    assert await asyncio.create_task(inside())
    assert not BACKLOG.get(), "the mark stays in the task that set it"


async def test_retries_after_a_channels_429_stay_under_the_global_limit_too(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """discord.py retries a request its channel refused by itself, once the refusal's
    ``retry_after`` is out: each retry takes a slot too, or the retries, falling due while
    new requests go out, make more than 50 in a second."""
    channels = list(range(CHANNEL, CHANNEL + 60))
    fake_discord.add_user(1, "Alice")
    fake_discord.add_guild(GUILD, channels, [1])
    fake_discord.fail("POST", r"^/channels/\d+/messages$", 429, times=60, retry_after=0.5)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        await asyncio.gather(*(bot.get_partial_messageable(c).send("board") for c in channels))
    assert fake_discord.pending_faults == 0, "every channel refused its first send"
    assert _global_refusals(fake_discord) == 0
    sent = [r for r in fake_discord.requests if r.method == "POST" and r.status == 200]
    assert len(sent) >= 60


async def test_a_request_waiting_its_turn_as_the_session_closes_fails_as_after_it() -> None:
    """aiohttp checks that its session is open before the trace hook, and asserts it is still
    open after (its connector is gone once closed): a request that waited in the pacer while
    the bot closed failed with a bare AssertionError, which nobody expects. It fails with
    aiohttp's own "Session is closed" instead, as one made after the close does."""
    now = [0.0]
    pacer = Pacer(per_second=50, burst=1, clock=lambda: now[0])
    await pacer.slot()  # the one token is gone, and none comes while the clock stands still
    session = aiohttp.ClientSession(trace_configs=[traced(pacer)])
    request = asyncio.create_task(session.get("http://127.0.0.1:9/api/v10/gateway"))
    while not pacer.waiting:
        await asyncio.sleep(0)
    await session.close()
    now[0] += 1.0  # a slot at last
    with pytest.raises(RuntimeError, match="Session is closed"):
        await asyncio.wait_for(request, 5.0)
