"""The tasks that fire games as they fall due: turn deadlines and lobby expiries, and, on a
database several processes share, Orchard's moves.

Deadlines are rows, not view timeouts, so they survive a restart: on start-up the scheduler
simply finds what is already due. It sleeps until the earliest deadline, or until a commit
brings a deadline earlier than the one it waits for (most commits set one five minutes away,
which changes nothing). Due games fire side by side, a bounded number at a time, so a game
whose channel is slow, or thousands overdue after downtime, hold up no other server's.

On a shared database (PostgreSQL) every process runs these loops, and a due game is a row one
of them claims (``FOR UPDATE SKIP LOCKED``) inside the transaction that fires it: each fires
exactly once, and a process that dies mid-way gives its claims back as its transaction ends.
Another process's commits are not heard here, so the loop also looks every ``SHARED_POLL`` s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from bot.model import Due
from bot.runner import Act, Claim, FireFailed, Runner, Snapshot

log = logging.getLogger(__name__)

MAX_SLEEP = 60.0
SHARED_POLL = 2.0  # a shared store: how long another process's due game may wait for us
BUSY_RETRY = 0.05  # a due game another process held: look again this soon
RETRY_SECONDS = 60.0
FIRING_AT_ONCE = 16  # enough to keep the store busy; few enough that clicks get their turn


def no_lag() -> float:
    return 0.0


class Scheduler:
    """Fires games due for ``due``; ``act`` fires a claimed one (shared stores), ``lag`` is
    how long after its stored time a game falls due (Orchard's pause)."""

    def __init__(
        self,
        runner: Runner,
        due: Due = Due.DEADLINE,
        *,
        act: Act | None = None,
        lag: Callable[[], float] = no_lag,
    ) -> None:
        self.runner = runner
        self.due = due
        self.act: Act = act or runner.fire_held_deadline
        self.lag = lag
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._next: float | None = None  # when the loop wakes by itself
        self._busy = False  # the last pass left a due game another process held
        if due is Due.DEADLINE:
            runner.on_commit.append(self._changed)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name=f"orchard-due-{self.due.name}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    def wake(self) -> None:
        self._wake.set()

    def due_by(self, when: float | None) -> None:
        """A game here falls due at ``when``: wake up for it if that is sooner."""
        if when is not None and (self._next is None or when < self._next):
            self._wake.set()

    def _changed(self, snapshot: Snapshot) -> None:
        self.due_by(snapshot.row.deadline)

    async def run_due(self) -> int:
        """Fire everything due now, side by side; returns how many games it moved."""
        if self.runner.store.shared:
            return await self._claim_due()
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

    async def _claim_due(self) -> int:
        """Claim and fire due games side by side until none is left. Most passes find none,
        at the cost of one query: the other claimers start once a first game is committed
        (before its board is drawn, which may hang on a slow channel)."""
        skip: set[int] = set()
        fired = 0
        helpers: list[asyncio.Task[None]] = []

        def found() -> None:
            if not helpers:
                helpers.extend(asyncio.create_task(claiming()) for _ in range(FIRING_AT_ONCE - 1))

        async def claiming() -> None:
            nonlocal fired
            while (result := await self._claim(skip, found)) is not Claim.NOTHING:
                fired += result is Claim.FIRED

        try:
            await claiming()
        finally:
            await asyncio.gather(*helpers)
        self._busy = bool(skip)
        return fired

    async def _claim(self, skip: set[int], found: Callable[[], None]) -> Claim:
        upto = self.runner.clock() - self.lag()
        try:
            return await self.runner.fire_claimed(self.due, upto, self.act, skip, found)
        except FireFailed as err:
            log.exception("game %s: %s failed; retrying in a minute", err.game_id, self.due.name)
            skip.add(err.game_id)
            await self.runner.postpone(err.game_id, self.runner.clock() + RETRY_SECONDS, self.due)
            return Claim.IDLE
        except Exception:
            log.exception("claiming games due for %s failed; trying again soon", self.due.name)
            return Claim.NOTHING

    async def _loop(self) -> None:
        shared = self.runner.store.shared
        longest = SHARED_POLL if shared else MAX_SLEEP
        while True:
            self._wake.clear()
            await self.run_due()
            nearest = await self.runner.store.next_due(self.due)
            self._next = None if nearest is None else nearest + self.lag()
            delay = longest if self._next is None else self._next - self.runner.clock()
            delay = min(max(delay, BUSY_RETRY if self._busy else 0.0), longest)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):  # wait_for (3.11) can swallow a cancel
                    await self._wake.wait()
