"""Waiting for the bot: re-check a condition after every request and gateway change.

The bot runs in the same event loop, so a test that polls would slow it; instead every change
wakes the waiters, and a timeout says what the bot did lately and what it logged.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from tests.fakediscord.lookups import Lookups
from tests.fakediscord.protocol import JSON


class ErrorLog(logging.Handler):
    """Keeps ERROR log records (discord.py logs handler exceptions instead of raising)."""

    def __init__(self, sink: list[logging.LogRecord], changed: Callable[[], None]) -> None:
        super().__init__(logging.ERROR)
        self.sink = sink
        self.changed = changed

    def emit(self, record: logging.LogRecord) -> None:
        self.sink.append(record)
        self.changed()


class Waiting(Lookups):
    """``wait_for`` and the wake-ups every part of the fake sends it."""

    def watch(self, task: asyncio.Task[Any]) -> None:
        """Make waits fail fast (with its exception) if this task, e.g. the bot's, ends."""
        self._watched.append(task)

    def _notify(self) -> None:
        waiters, self._waiters = self._waiters, []
        for w in waiters:
            if not w.done():
                w.set_result(None)

    def _notify_threadsafe(self) -> None:
        """Wake waiters from any thread (discord.py logs from its heartbeat thread too)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._notify()
        else:
            loop.call_soon_threadsafe(self._notify)

    async def wait_for(
        self, predicate: Callable[[], bool], timeout: float = 5.0, what: str = "a condition"
    ) -> None:
        """Wait until ``predicate()`` holds; re-checked after every request and gateway change.

        Fails fast if a watched task (the bot) died, and on timeout says what the bot did
        lately and which errors it logged, since handler exceptions never reach the test.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            for task in self._watched:
                if task.done():
                    exc = None if task.cancelled() else task.exception()
                    raise RuntimeError(f"the bot stopped while waiting for {what}") from exc
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(self._timeout_report(what, timeout))
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append(waiter)
            await asyncio.wait(
                [waiter, *self._watched], timeout=remaining, return_when=asyncio.FIRST_COMPLETED
            )

    def _timeout_report(self, what: str, timeout: float) -> str:
        lines = [f"timed out after {timeout}s waiting for {what}"]
        lines += [
            f"  recent request: {r.method} {r.path} -> {r.status}" for r in self.requests[-5:]
        ]
        for record in self.errors[-3:]:
            lines.append(f"  bot logged: {record.getMessage()}")
            if record.exc_info and record.exc_info[1] is not None:
                lines.append(f"    {record.exc_info[1]!r}")
        return "\n".join(lines)

    async def wait_for_message(
        self,
        channel_id: int,
        predicate: Callable[[JSON], bool] | None = None,
        timeout: float = 5.0,
    ) -> JSON:
        """The first live message in the channel matching ``predicate`` (waits for it)."""
        found: list[JSON] = []

        def check() -> bool:
            found[:] = [
                m for m in self.channel_messages(channel_id) if not predicate or predicate(m)
            ]
            return bool(found)

        await self.wait_for(check, timeout, f"a matching message in channel {channel_id}")
        return found[0]
