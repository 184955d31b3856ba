"""Run a discord.py client against the fake until the test is done with it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

import discord

from tests.fakediscord.server import FakeDiscord


@asynccontextmanager
async def run_bot(
    bot: discord.Client,
    fake: FakeDiscord | None = None,
    *,
    token: str = "fake-token",
    timeout: float = 5.0,
) -> AsyncIterator[discord.Client]:
    """Log the bot in, connect it, wait for on_ready; close it on exit.

    This is ``bot.start`` in two steps: ``login`` (runs ``setup_hook``, so its errors raise
    here) and ``connect`` as a task raced against ``wait_until_ready``, because a gateway
    payload discord.py cannot parse kills that task without any other sign.
    """
    try:
        await bot.login(token)
    except BaseException:
        await bot.close()
        raise
    connecting = asyncio.create_task(bot.connect(reconnect=True), name="bot.connect")
    ready = asyncio.create_task(bot.wait_until_ready(), name="bot.wait_until_ready")
    done, _ = await asyncio.wait(
        {connecting, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
    )
    if ready not in done:
        ready.cancel()
        await bot.close()
        if connecting in done:
            connecting.result()  # raises what killed it
            raise RuntimeError("bot.connect() returned before the bot was ready")
        connecting.cancel()
        with suppress(asyncio.CancelledError):
            await connecting
        raise TimeoutError(f"the bot was not ready after {timeout}s")
    if fake is not None:
        fake.watch(connecting)
    try:
        yield bot
    finally:
        if fake is not None and connecting in fake._watched:
            fake._watched.remove(connecting)
        await bot.close()
        try:
            await asyncio.wait_for(asyncio.shield(connecting), 2.0)
        except TimeoutError:
            connecting.cancel()
            with suppress(asyncio.CancelledError):
                await connecting
