"""One task that fires turn deadlines and lobby expiries, read from the store.

Deadlines are rows, not view timeouts, so they survive a restart: on start-up the scheduler
simply finds what is already due. It sleeps until the earliest deadline, or until a commit
wakes it because a nearer one may now exist.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from bot.runner import Runner, Snapshot

log = logging.getLogger(__name__)

MAX_SLEEP = 60.0
RETRY_SECONDS = 60.0


class Scheduler:
    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        runner.on_commit.append(self._changed)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="orchard-deadlines")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    def wake(self) -> None:
        self._wake.set()

    def _changed(self, snapshot: Snapshot) -> None:
        self._wake.set()

    async def run_due(self) -> int:
        """Fire everything due now; returns how many games it touched."""
        fired = 0
        for game_id in await self.runner.store.due_games(self.runner.clock()):
            try:
                fired += await self.runner.fire_deadline(game_id) is not None
            except Exception:
                log.exception("game %s: deadline failed; retrying in a minute", game_id)
                await self.runner.postpone(game_id, self.runner.clock() + RETRY_SECONDS)
        return fired

    async def _loop(self) -> None:
        while True:
            self._wake.clear()
            await self.run_due()
            nearest = await self.runner.store.next_deadline()
            delay = MAX_SLEEP if nearest is None else nearest - self.runner.clock()
            delay = min(max(delay, 0.0), MAX_SLEEP)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):  # wait_for (3.11) can swallow a cancel
                    await self._wake.wait()
