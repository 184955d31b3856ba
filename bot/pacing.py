"""Discord's global limit, kept by Orchard itself so that nobody's click waits behind it.

Discord allows a bot 50 requests a second across every route but the interaction endpoints. When
a bot goes over, discord.py holds *every* request, its answers to clicks included, until the
limit resets; after downtime, thousands of overdue boards would keep it over for minutes.
So every request discord.py's HTTP client sends, its own retries included (see
:func:`traced`), first takes a slot here: at most :data:`BURST` at once and :data:`PER_SECOND`
a second after that (together never more than 50 in any second; a process running some of
the shards takes its share of both), and a request made for the
backlog (:data:`BACKLOG`, set by the deadline scheduler's display workers, the redraws
/forget-me asks for and the midnight daily boards) goes only when no other request is waiting:
a game being played now is shown before a board that has been stale for an hour.

A route's own limit discord.py keeps, but it sleeps out a used-up bucket inside the request
that used it, after Discord's answer: :func:`until_answered` lets a caller go on at the answer,
and drops a request still waiting for its turn once it is no longer worth sending.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp

log = logging.getLogger(__name__)

PER_SECOND = 40.0
BURST = 5.0  # with 40 a second: at most 45 in any second, a margin for discord.py's retries
# Interaction endpoints, which Discord exempts from the global limit: the callback, and the
# follow-ups and edits made with the interaction's webhook token.
EXEMPT = re.compile(r"/interactions/.*/callback|/webhooks/.*")

BACKLOG: contextvars.ContextVar[bool] = contextvars.ContextVar("orchard_backlog", default=False)
"""True in a task whose Discord requests may wait for every other request."""


class Pacer:
    """A token bucket with two queues: requests now, and the backlog."""

    def __init__(
        self,
        per_second: float = PER_SECOND,
        burst: float = BURST,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_second = per_second
        self.burst = burst
        self.clock = clock
        self._tokens = burst
        self._last = clock()
        self._now: deque[asyncio.Future[None]] = deque()
        self._backlog: deque[asyncio.Future[None]] = deque()
        self._granting: asyncio.Task[None] | None = None

    @classmethod
    def shared(cls, share: float) -> Pacer:
        """The pace of a process that sends ``share`` of the bot's requests (its part of the
        shards): the 50 a second are the bot's, not each process's, so two processes paced
        alone at 45 sent up to 90 and were held by Discord together."""
        return cls(PER_SECOND * share, max(1.0, BURST * share))

    async def slot(self, backlog: bool = False) -> None:
        """Wait until one more request fits under the limit."""
        if not self._now and not self._backlog and self._take():
            return
        waiter = asyncio.get_running_loop().create_future()
        (self._backlog if backlog else self._now).append(waiter)
        if self._granting is None or self._granting.done():
            self._granting = asyncio.create_task(self._grant(), name="orchard-pacer")
        await waiter

    @property
    def waiting(self) -> int:
        return len(self._now) + len(self._backlog)

    def _take(self) -> bool:
        now = self.clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.per_second)
        self._last = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    async def _grant(self) -> None:
        """Hand out slots as they free up, requests now before the backlog."""
        while self._now or self._backlog:
            if not self._take():
                await asyncio.sleep((1 - self._tokens) / self.per_second)
                continue
            queue = self._now or self._backlog
            waiter = queue.popleft()
            if waiter.done():  # its request was cancelled while it waited
                self._tokens += 1
                continue
            waiter.set_result(None)


WORTH_IT_EVERY = 0.05  # seconds: how often a request waiting its turn asks if it still is


@dataclass
class _Progress:
    """How far one request made by :func:`until_answered` has got, told by aiohttp's trace."""

    started: asyncio.Future[None]  # on its way: from here on it may reach Discord
    answered: asyncio.Future[None]  # answered with success
    refused: asyncio.Future[None]  # refused by its route (429): not applied, retried later

    def refuse(self) -> None:
        """The attempt on its way was refused by its route: until discord.py sends it again
        it is waiting for its turn, and may still be dropped. Not for a global 429: discord.py
        holds every request until that one's pause is over, and a request cancelled in it
        would never lift the hold."""
        loop = self.started.get_loop()
        self.started = loop.create_future()
        if not self.refused.done():
            self.refused.set_result(None)


_PROGRESS: contextvars.ContextVar[_Progress | None] = contextvars.ContextVar(
    "orchard_progress", default=None
)
_BEHIND: set[asyncio.Task[Any]] = set()  # requests answered, still in discord.py's sleep


def traced(pacer: Pacer) -> aiohttp.TraceConfig:
    """For ``Client(http_trace=…)``: every request to Discord's API but the interaction
    endpoints takes a slot of ``pacer`` as it leaves, discord.py's own retries included (a
    channel's refused edits, retried together once its window is out, went over the global
    limit); and :func:`until_answered` is told when a request it made leaves and when Discord
    has answered it."""
    trace = aiohttp.TraceConfig()

    async def on_request_start(
        session: aiohttp.ClientSession, context: Any, params: aiohttp.TraceRequestStartParams
    ) -> None:
        path = params.url.path
        if path.startswith("/api/") and not EXEMPT.search(path):
            await pacer.slot(BACKLOG.get())
            if session.closed:
                # Closed while it waited (Orchard stopping): aiohttp checked before this hook
                # and only asserts after it, so fail as a request made after the close does.
                raise RuntimeError("Session is closed")
        progress = _PROGRESS.get()
        if progress is not None and not progress.started.done():
            progress.started.set_result(None)

    async def on_request_end(
        session: aiohttp.ClientSession, context: Any, params: aiohttp.TraceRequestEndParams
    ) -> None:
        progress = _PROGRESS.get()
        if progress is None or progress.answered.done():
            return
        response = params.response
        if response.status < 300:
            progress.answered.set_result(None)
        elif response.status == 429 and not response.headers.get("X-RateLimit-Global"):
            progress.refuse()

    trace.on_request_start.append(on_request_start)
    trace.on_request_end.append(on_request_end)
    return trace


async def until_answered(
    request: Callable[[], Awaitable[Any]], worth_it: Callable[[], bool] | None = None
) -> None:
    """Make one of discord.py's requests and return once Discord has answered it with success,
    or once ``worth_it`` says it no longer is while it still waits for its turn (dropped,
    never sent).

    A request that used the last of its route's bucket (a channel's five edits in five
    seconds, say) does not return until the bucket refills: discord.py sleeps the window out
    inside it, after the answer. Whoever waits for the request (the display of the board's
    next version, and the click that made that version) would wait for that sleep too, for
    nothing: the edit is applied. The sleep goes on here in the background, so discord.py's
    next request on the route still waits for it.

    The next request on that route waits for the window before it is sent, and so would
    whoever waits for it: a board edit that a newer version overtook meanwhile is dropped
    instead (asked every :data:`WORTH_IT_EVERY` s), so the newer version's display (a click's
    answer) goes at once. Only before the request leaves, or once its route has refused it
    (429: not applied, discord.py sleeps before sending it again): on its way, it may reach
    Discord.
    Needs :func:`traced` on the client; failures raise as usual (they come after
    discord.py's retries).
    """
    loop = asyncio.get_running_loop()
    progress = _Progress(loop.create_future(), loop.create_future(), loop.create_future())

    async def send() -> None:
        _PROGRESS.set(progress)  # this task's own context, which aiohttp's trace runs in
        await request()

    task = asyncio.create_task(send())
    try:
        while not await _answered_or_done(task, progress, worth_it):
            if not progress.started.done() and worth_it is not None and not worth_it():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                return
    except asyncio.CancelledError:
        task.cancel()  # as if the request had been made in the caller's own task
        raise
    if task.done():
        task.result()
        return
    _BEHIND.add(task)
    task.add_done_callback(_behind_done)


async def _answered_or_done(
    task: asyncio.Task[None], progress: _Progress, worth_it: Callable[[], bool] | None
) -> bool:
    """Wait until the request is answered or over: False if it was refused meanwhile, or
    after a while if it has not left (each time, the caller asks whether it is still worth it)."""
    waiting = worth_it is not None and not progress.started.done()
    if progress.refused.done():  # seen: the next refusal wakes the next wait
        progress.refused = asyncio.get_running_loop().create_future()
    await asyncio.wait(
        (task, progress.answered, progress.refused),
        timeout=WORTH_IT_EVERY if waiting else None,
        return_when=asyncio.FIRST_COMPLETED,
    )
    return task.done() or progress.answered.done()


def _behind_done(task: asyncio.Task[Any]) -> None:
    _BEHIND.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.debug("a request answered earlier then failed", exc_info=task.exception())
