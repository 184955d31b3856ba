"""The tasks that fire games as they fall due: turn deadlines and lobby expiries, and, on a
database several processes share, Orchard's moves.

Deadlines are rows, not view timeouts, so they survive a restart: on start-up the scheduler
simply finds what is already due. It sleeps until the earliest deadline, or until a commit
brings a deadline earlier than the one it waits for (most commits set one five minutes away,
which changes nothing). Due games are written side by side, a bounded number at a time, and
shown afterwards by a few display workers, apart from the writing: a channel that is slow or
rate-limited, or thousands of boards to redraw after downtime, hold up no deadline and no
other server's game. The loop's Discord requests, and those of what its commits set off (turn
pings, Orchard's next move), are the backlog (:data:`bot.pacing.BACKLOG`): they go when
nothing being played now is waiting.

On a shared database (PostgreSQL) every process runs these loops, and a due game is a row one
of them claims (``FOR UPDATE SKIP LOCKED``) inside the transaction that fires it: each fires
exactly once, and a process that dies mid-way gives its claims back as its transaction ends.
Another process's commits are not heard here, so the loop also looks every ``SHARED_POLL`` s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable

from bot.model import Due
from bot.pacing import BACKLOG
from bot.runner import Act, Claim, FireFailed, Runner, Snapshot

log = logging.getLogger(__name__)

MAX_SLEEP = 60.0
SHARED_POLL = 2.0  # a shared store: how long another process's due game may wait for us
BUSY_RETRY = 0.05  # a due game another process held: look again this soon
RETRY_SECONDS = 60.0
FAILED_PASS_RETRY = 1.0  # a pass that failed: the next one this long after, doubling up to
FAILED_PASS_MAX = 10.0  # this: a broken database is retried without a spin of tracebacks
BATCH = 50  # due games written in one transaction: a click committed beside them waits little
BATCHES_AT_ONCE = 2  # one being written while the next is read and planned
CLAIMING_AT_ONCE = 16  # shared stores: claims fired side by side, each its own transaction
SHOWING_AT_ONCE = 8  # display workers, one channel each: more only queue on Discord's limit
SHOWING_AT_STOP = 2.0  # seconds a stop waits for the boards being shown (of SIGTERM's 10)


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
        self._next: float | None = None  # when the loop wakes by itself (None: not known)
        self._failed = False  # the pass failed, or left a due game it could not put off either
        self._to_show = ChannelQueue()
        self._workers: list[asyncio.Task[None]] = []
        if due is Due.DEADLINE:
            runner.on_commit.append(self._changed)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name=f"orchard-due-{self.due.name}")
            self.runner.stoppers.append(self.stop)

    async def stop(self) -> None:
        """Stop firing, and give the boards being shown :data:`SHOWING_AT_STOP` s to finish
        (a ping waits for its board); any not shown by then stay as they were (their next
        click redraws them)."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(SHOWING_AT_STOP):
                await self._to_show.join()
        for worker in self._workers:
            worker.cancel()
        await asyncio.gather(*self._workers, return_exceptions=True)
        self._task, self._workers = None, []
        if self.stop in self.runner.stoppers:
            self.runner.stoppers.remove(self.stop)

    def wake(self) -> None:
        self._wake.set()

    def due_by(self, when: float | None) -> None:
        """A game here falls due at ``when``: wake up for it if that is sooner."""
        if when is not None and (self._next is None or when < self._next):
            self._wake.set()

    def _changed(self, snapshot: Snapshot) -> None:
        self.due_by(snapshot.row.deadline)

    async def run_due(self) -> int:
        """Fire everything due now and show it; returns how many games it moved."""
        fired = await self.fire_due()
        await self.displays_done()
        return fired

    async def fire_due(self) -> int:
        """Write everything due now; their displays are queued, not awaited.

        Due games are written in batches of :data:`BATCH`, each in one read and one
        transaction (after downtime, thousands are due and a transaction each would take
        minutes); a game someone is moving right now, or a batch whose guard fails, is
        written on its own. A few workers share the list, not a task per game: 10,000 tasks
        would slow every walk over the loop's tasks. On a shared store each is claimed.
        """
        if self.runner.store.shared:
            return await self._claim_due()
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

    async def displays_done(self) -> None:
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
            await self._postpone(game_id)
            return False
        if fresh is None:
            return False
        self._queue(fresh)
        return True

    async def _claim_due(self) -> int:
        """Claim and fire due games until none is left, a few side by side. Most passes find
        none, at the cost of one query: the other claimers start once a first was found."""
        skip: set[int] = set()
        fired = 0

        async def claiming() -> None:
            nonlocal fired
            while (found := await self._claim(skip)) is not Claim.NOTHING:
                fired += found is Claim.FIRED

        first = await self._claim(skip)
        if first is not Claim.NOTHING:
            fired += first is Claim.FIRED
            await asyncio.gather(*(claiming() for _ in range(CLAIMING_AT_ONCE)))
        return fired

    async def _claim(self, skip: set[int]) -> Claim:
        upto = self.runner.clock() - self.lag()
        try:
            found, fresh = await self.runner.fire_claimed(self.due, upto, self.act, skip)
        except FireFailed as err:
            log.exception("game %s: %s failed; retrying in a minute", err.game_id, self.due.name)
            skip.add(err.game_id)
            await self._postpone(err.game_id)
            return Claim.IDLE
        except Exception:
            log.exception("claiming games due for %s failed; trying again soon", self.due.name)
            self._failed = True  # the game is still due: without a pause the loop would spin
            return Claim.NOTHING
        if fresh is not None:
            self._queue(fresh)
        return found

    async def _postpone(self, game_id: int) -> None:
        """Retry a game that failed to fire in a minute, not at once. If even that write fails
        the game stays due, and the loop pauses before its next pass rather than spin on it;
        the other due games of this pass fire all the same."""
        try:
            await self.runner.postpone(game_id, self.runner.clock() + RETRY_SECONDS, self.due)
        except Exception:
            log.exception("game %s: could not put off its %s either", game_id, self.due.name)
            self._failed = True

    def _queue(self, snapshot: Snapshot) -> None:
        """Show ``snapshot`` soon, through the display workers (started at the first)."""
        if not self._workers:
            self._workers = [
                asyncio.create_task(self._show(), name=f"orchard-due-display-{i}")
                for i in range(SHOWING_AT_ONCE)
            ]
        self._to_show.put(snapshot)

    async def _show(self) -> None:
        """A display worker: its requests wait for everything being played now."""
        BACKLOG.set(True)
        while True:
            channel, snapshot = await self._to_show.get()
            try:
                # It skips a version a later write overtook.
                await self.runner.display_in_order(snapshot)
            except Exception:
                log.exception("game %s: could not show it", snapshot.id)
            finally:
                self._to_show.done(channel)

    async def _loop(self) -> None:
        """Pass after pass until stopped. A pass that fails (a read error: disk I/O, a locked
        file, a dropped connection) is logged and the next one follows after a short pause:
        one bad moment must not stop every deadline until the process restarts."""
        # What firing sets off (boards, turn pings, Orchard's next move) is the backlog too.
        BACKLOG.set(True)
        longest = SHARED_POLL if self.runner.store.shared else MAX_SLEEP
        pause = FAILED_PASS_RETRY
        while True:
            self._wake.clear()
            self._failed = False
            try:
                delay = await self._pass(longest)
            except Exception:
                log.exception(
                    "a pass over games due for %s failed; the next in %.0f s", self.due.name, pause
                )
                self._failed = True
            if self._failed:
                await asyncio.sleep(pause)  # not woken early: each commit would bring a pass
                pause = min(pause * 2, FAILED_PASS_MAX)
                continue
            pause = FAILED_PASS_RETRY
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):  # wait_for (3.11) can swallow a cancel
                    await self._wake.wait()

    async def _pass(self, longest: float) -> float:
        """Fire what is due; how long to wait for the next (unless woken sooner)."""
        await self.fire_due()
        # Unknown while it is read: a deadline committed meanwhile, which the read may miss,
        # then wakes the loop (due_by), and the next pass reads it.
        self._next = None
        nearest = await self.runner.store.next_due(self.due)
        self._next = None if nearest is None else nearest + self.lag()
        delay = longest if self._next is None else self._next - self.runner.clock()
        # On a shared store the soonest due game may be one another process holds (a claim
        # skips it, seen or not): look again soon, not at once, pass after pass.
        soonest = BUSY_RETRY if self.runner.store.shared else 0.0
        return min(max(delay, soonest), longest)


class ChannelQueue:
    """The displays to show, taken a channel at a time, channels in turn. Discord edits and
    posts in a channel at most 5 per 5 s: with one queue, every worker could wait on one busy
    channel (24 games there due at once after downtime) while another server's board waited
    behind them. Here a channel is shown by one worker at a time, and goes to the back of the
    line after each display."""

    def __init__(self) -> None:
        self._waiting: dict[int, deque[Snapshot]] = {}  # per channel in line or being shown
        self._channels: asyncio.Queue[int] = asyncio.Queue()  # in line, none being shown
        self._left = 0
        self._empty = asyncio.Event()
        self._empty.set()

    def put(self, snapshot: Snapshot) -> None:
        channel = snapshot.row.channel_id
        waiting = self._waiting.get(channel)
        if waiting is None:
            waiting = self._waiting[channel] = deque()
            self._channels.put_nowait(channel)
        waiting.append(snapshot)
        self._left += 1
        self._empty.clear()

    async def get(self) -> tuple[int, Snapshot]:
        """The next channel in line and its oldest display; :meth:`done` when shown."""
        channel = await self._channels.get()
        return channel, self._waiting[channel].popleft()

    def done(self, channel: int) -> None:
        """That channel's display is shown: its next goes to the back of the line."""
        if self._waiting[channel]:
            self._channels.put_nowait(channel)
        else:
            del self._waiting[channel]
        self._left -= 1
        if not self._left:
            self._empty.set()

    async def join(self) -> None:
        """Until every display put is shown."""
        await self._empty.wait()
