"""One task that fires turn deadlines and lobby expiries, read from the store.

Deadlines are rows, not view timeouts, so they survive a restart: on start-up the scheduler
simply finds what is already due. It sleeps until the earliest deadline, or until a commit
brings a deadline earlier than the one it waits for (most commits set one five minutes away,
which changes nothing). Due games fire side by side, a bounded number at a time, so a game
whose channel is slow, or thousands overdue after downtime, hold up no other server's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from bot.runner import Runner, Snapshot

log = logging.getLogger(__name__)

MAX_SLEEP = 60.0
RETRY_SECONDS = 60.0
FIRING_AT_ONCE = 16  # enough to keep the store busy; few enough that clicks get their turn


class Scheduler:
    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._next: float | None = None  # the deadline the loop sleeps until
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
        deadline = snapshot.row.deadline
        if deadline is not None and (self._next is None or deadline < self._next):
            self._wake.set()

    async def run_due(self) -> int:
        """Fire everything due now, side by side; returns how many games it touched."""
        slots = asyncio.Semaphore(FIRING_AT_ONCE)
        due = await self.runner.store.due_games(self.runner.clock())
        fired = await asyncio.gather(*(self._fire(game_id, slots) for game_id in due))
        return sum(fired)

    async def _fire(self, game_id: int, slots: asyncio.Semaphore) -> bool:
        async with slots:
            try:
                return await self.runner.fire_deadline(game_id) is not None
            except Exception:
                log.exception("game %s: deadline failed; retrying in a minute", game_id)
                await self.runner.postpone(game_id, self.runner.clock() + RETRY_SECONDS)
                return False

    async def _loop(self) -> None:
        while True:
            self._wake.clear()
            await self.run_due()
            nearest = self._next = await self.runner.store.next_deadline()
            delay = MAX_SLEEP if nearest is None else nearest - self.runner.clock()
            delay = min(max(delay, 0.0), MAX_SLEEP)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):  # wait_for (3.11) can swallow a cancel
                    await self._wake.wait()
