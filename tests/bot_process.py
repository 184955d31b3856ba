"""The real bot in a process of its own on a fake Discord, so a test can SIGKILL it.

``python -m tests.bot_process PORT DB [SHARDS COUNT]`` (the child) points discord.py at the
fake on 127.0.0.1:PORT exactly as ``FakeDiscord.install`` does, then runs
``bot.cli.serve`` unchanged, on the shards given (``0-0 2``: shard 0 of 2) or all.
:class:`BotProcess` (the parent's side) starts, kills and restarts that child on
the same database while the fake runs in the test's own event loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import logging
import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import discord.gateway
import discord.http
import yarl

from bot.app import OrchardBot
from bot.cli import serve
from bot.shards import ShardPlan, parse_plan, ranges_text
from db.connection import is_url
from tests.botharness import config
from tests.fakediscord import FakeDiscord

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ("-m", "tests.bot_process")  # another bot taking PORT DB (the benches' floor) may run
STALLS = "ORCHARD_STALLS"  # a file for the child to log its stalls in (see StallLog)
STALL = 0.015  # seconds: the loop running this long without a look at its events, or a
# collector pass this long, is logged


def point_at(port: int) -> None:
    """Send discord.py's REST calls and gateway connection to the fake on ``port``."""
    discord.http.Route.BASE = f"http://127.0.0.1:{port}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{port}/gw/")


def main(argv: list[str], held: Sequence[int] = ()) -> int:
    if len(argv) not in (2, 4) or not argv[0].isdigit():
        print("usage: python -m tests.bot_process PORT DB [SHARDS COUNT]", file=sys.stderr)
        return 2
    point_at(int(argv[0]))
    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # Its start and stop (a line each): a test can wait for a SIGTERM to have been taken.
    logging.getLogger("bot.cli").setLevel(logging.INFO)
    plan = parse_plan(*argv[2:]) if len(argv) == 4 else ShardPlan()
    database = argv[1] if is_url(argv[1]) else Path(argv[1])
    chosen = dataclasses.replace(config(database), shards=plan)
    bot = OrchardBot(chosen, guild_ready_timeout=0.05)
    return asyncio.run(run(bot, os.environ.get(STALLS), held))


async def run(bot: OrchardBot, stalls: str | None, held: Sequence[int] = ()) -> int:
    """Serve (acting on signals ``held`` while it started), logging the bot's stalls to the
    file ``stalls`` names, if any."""
    if not stalls:
        return await serve(bot, "fake-token", held)
    with open(stalls, "a", buffering=1) as out:
        log = StallLog(out, bot)
        try:
            return await serve(bot, "fake-token", held)
        finally:
            log.stop()


class StallLog:
    """When the bot's own loop stood still (``loop START SECONDS``) and the collector ran
    long (``gc START SECONDS GENERATION``), on ``time.monotonic()``: the same clock as the
    bench's clicks, so a slow click can be told from a stalled bot. Also when its exact
    players' tables were warm (``warm AT 0``): the bench measures no window before that.

    The loop is timed from inside, not woken to be timed: each time it goes back to wait for
    events, how long it ran since it last woke is noted. A timer of 10 ms, as this used to
    be, woke it 100 times a second, about 15 ms of the bot's CPU a second (a tenth of a
    millisecond a move of a game night), all counted as Orchard's.
    """

    def __init__(self, out: TextIO, bot: OrchardBot) -> None:
        self.out = out
        self._collecting = 0.0
        gc.callbacks.append(self._collector)
        # The loop's selector (private to asyncio): its select is where the loop waits.
        self._selector = asyncio.get_running_loop()._selector  # type: ignore[attr-defined]
        self._select = self._selector.select
        self._woke = time.monotonic()
        self._selector.select = self._timed_select
        self._warm = asyncio.create_task(self._warmed(bot))

    async def _warmed(self, bot: OrchardBot) -> None:
        while getattr(bot, "orchard", None) is None:  # made in the bot's setup_hook
            await asyncio.sleep(0.1)
        await bot.orchard.warmed.wait()
        self.out.write(f"warm {time.monotonic():.4f} 0\n")

    def _timed_select(self, timeout: float | None = None) -> Any:
        """The loop's wait for events, noting first how long it ran since the last one."""
        ran = time.monotonic() - self._woke
        if ran > STALL:
            self.out.write(f"loop {self._woke:.4f} {ran:.4f}\n")
        try:
            return self._select(timeout)
        finally:
            self._woke = time.monotonic()

    def _collector(self, phase: str, info: dict[str, Any]) -> None:
        now = time.monotonic()
        if phase == "start":
            self._collecting = now
        elif now - self._collecting > STALL:
            took = now - self._collecting
            self.out.write(f"gc {self._collecting:.4f} {took:.4f} {info['generation']}\n")

    def stop(self) -> None:
        gc.callbacks.remove(self._collector)
        del self._selector.select  # the selector's own method again
        self._warm.cancel()


class BotProcess:
    """The child process, restarted on the same database after every kill; output to ``log``."""

    def __init__(
        self,
        fake: FakeDiscord,
        db: Path | str,
        log: Path,
        program: Sequence[str] = PROGRAM,
        shards: ShardPlan | None = None,
    ) -> None:
        self.fake, self.db, self.log = fake, db, log
        self.program = tuple(program)  # what runs as ``python PROGRAM... PORT DB``
        self.shards = shards or ShardPlan()
        self.proc: asyncio.subprocess.Process | None = None

    @property
    def shard_ids(self) -> tuple[int, ...]:
        """The shards this process runs."""
        return self.shards.ids or tuple(range(self.shards.count or 1))

    def online(self) -> bool:
        return all(self.fake.connected(shard) for shard in self.shard_ids)

    def _args(self) -> tuple[str, ...]:
        if self.shards.count is None:
            return ()
        return (ranges_text(self.shard_ids), str(self.shards.count))

    async def start(self, wait: bool = True) -> float:
        """Start the bot; with ``wait``, until it is connected. Returns the seconds taken."""
        began = time.monotonic()
        before = len(self.fake.identifies)
        with self.log.open("ab") as sink:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                *self.program,
                str(self.fake.port),
                str(self.db),
                *self._args(),
                cwd=ROOT,
                stdout=sink,
                stderr=sink,
            )
        if wait:
            await self.ready(before)
        return time.monotonic() - began

    async def ready(self, identifies_before: int) -> None:
        """Wait until a bot identified after ``identifies_before`` identifies is connected."""
        await self.fake.wait_for(
            lambda: len(self.fake.identifies) > identifies_before and self.online(),
            60.0,
            "the bot process to connect",
        )

    async def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a crash or a pulled plug."""
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
            await self.proc.wait()
        await self.fake.wait_for(
            lambda: not any(self.fake.connected(s) for s in self.shard_ids),
            10.0,
            "the socket to close",
        )

    async def stop(self) -> None:
        """SIGTERM (a clean shutdown), SIGKILL after 10 s."""
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 10.0)
            except TimeoutError:
                self.proc.send_signal(signal.SIGKILL)
                await self.proc.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
