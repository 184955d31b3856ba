"""One task that fires turn deadlines and lobby expiries, read from the store.

Deadlines are rows, not view timeouts, so they survive a restart: on start-up the scheduler
simply finds what is already due. It sleeps until the earliest deadline, or until a commit
brings a deadline earlier than the one it waits for (most commits set one five minutes away,
which changes nothing). Due games are written side by side, a bounded number at a time, and
shown afterwards by a few display workers, apart from the writing: a channel that is slow or
rate-limited, or thousands of boards to redraw after downtime, hold up no deadline and no
other server's game. The workers' Discord requests are the backlog
(:data:`bot.pacing.BACKLOG`): they go when nothing being played now is waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque

from bot.pacing import BACKLOG
from bot.runner import Runner, Snapshot

log = logging.getLogger(__name__)

MAX_SLEEP = 60.0
RETRY_SECONDS = 60.0
BATCH = 100  # due games written in one transaction: a few ms, so clicks wait little
BATCHES_AT_ONCE = 2  # one being written while the next is read and planned
SHOWING_AT_ONCE = 8  # display workers: more only queue on Discord's limit (bot.pacing)


class Scheduler:
    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._next: float | None = None  # the deadline the loop sleeps until
        self._to_show: asyncio.Queue[Snapshot] = asyncio.Queue()
        self._workers: list[asyncio.Task[None]] = []
        runner.on_commit.append(self._changed)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="orchard-deadlines")

    async def stop(self) -> None:
        """Stop firing; boards not yet shown stay as they were (their next click redraws)."""
        tasks = [t for t in (self._task, *self._workers) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._task, self._workers = None, []

    def wake(self) -> None:
        self._wake.set()

    def _changed(self, snapshot: Snapshot) -> None:
        deadline = snapshot.row.deadline
        if deadline is not None and (self._next is None or deadline < self._next):
            self._wake.set()

    async def run_due(self) -> int:
        """Fire everything due now and show it; returns how many games it touched."""
        fired = await self.fire_due()
        await self.shown()
        return fired

    async def fire_due(self) -> int:
        """Write everything due now; their displays are queued, not awaited.

        Due games are written in batches of :data:`BATCH`, each in one read and one
        transaction (after downtime, thousands are due and a transaction each would take
        minutes); a game someone is moving right now, or a batch whose guard fails, is
        written on its own. A few workers share the list, not a task per game: 10,000 tasks
        would slow every walk over the loop's tasks.
        """
        due = await self.runner.store.due_games(self.runner.clock())
        batches = deque(due[start : start + BATCH] for start in range(0, len(due), BATCH))
        fired = 0

        async def worker() -> None:
            nonlocal fired
            while batches:
                done = await self._fire_batch(batches.popleft())  # not `fired += await`: it
                fired += done  # would read ``fired`` before the await, losing others' counts

        await asyncio.gather(*(worker() for _ in range(min(BATCHES_AT_ONCE, len(batches)))))
        return fired

    async def shown(self) -> None:
        """Wait until every queued display has been shown."""
        await self._to_show.join()

    async def _fire_batch(self, game_ids: list[int]) -> int:
        try:
            fresh, left = await self.runner.expire_many(game_ids)
        except Exception:
            log.exception(
                "deadlines of %s games failed together; firing them one by one", len(game_ids)
            )
            fresh, left = [], game_ids
        for snapshot in fresh:
            self._queue(snapshot)
        return len(fresh) + sum([await self._fire(game_id) for game_id in left])

    async def _fire(self, game_id: int) -> bool:
        try:
            fresh = await self.runner.expire(game_id)
        except Exception:
            log.exception("game %s: deadline failed; retrying in a minute", game_id)
            await self.runner.postpone(game_id, self.runner.clock() + RETRY_SECONDS)
            return False
        if fresh is None:
            return False
        self._queue(fresh)
        return True

    def _queue(self, snapshot: Snapshot) -> None:
        """Show ``snapshot`` soon, through the display workers (started at the first)."""
        if not self._workers:
            self._workers = [
                asyncio.create_task(self._show(), name=f"orchard-deadline-display-{i}")
                for i in range(SHOWING_AT_ONCE)
            ]
        self._to_show.put_nowait(snapshot)

    async def _show(self) -> None:
        """A display worker: its requests wait for everything being played now."""
        BACKLOG.set(True)
        while True:
            snapshot = await self._to_show.get()
            try:
                await self.runner.shown(snapshot)  # skips a version a later write overtook
            except Exception:
                log.exception("game %s: could not show its deadline", snapshot.id)
            finally:
                self._to_show.task_done()

    async def _loop(self) -> None:
        while True:
            self._wake.clear()
            await self.fire_due()
            nearest = self._next = await self.runner.store.next_deadline()
            delay = MAX_SLEEP if nearest is None else nearest - self.runner.clock()
            delay = min(max(delay, 0.0), MAX_SLEEP)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):  # wait_for (3.11) can swallow a cancel
                    await self._wake.wait()
