"""Injected failures: the next requests matching a pattern get an error, as Discord may send,
or wait unanswered until a test lets them through, as a slow Discord does."""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass

from aiohttp import web

from tests.fakediscord.protocol import DEFAULT_ERRORS, json_response
from tests.fakediscord.ratelimits import Window, bucket_hash, too_many
from tests.fakediscord.state import State


@dataclass
class Fault:
    method: str
    pattern: re.Pattern[str]
    status: int
    remaining: int
    retry_after: float
    code: int
    message: str
    is_global: bool

    def matches(self, method: str, path: str) -> bool:
        return (
            self.remaining > 0
            and self.method in ("*", method)
            and self.pattern.search(path) is not None
        )

    def response(self) -> web.Response:
        if self.status == 429:
            window = Window(5, self.retry_after, time.monotonic(), 5)
            bucket = bucket_hash(f"{self.method} {self.pattern.pattern}")
            headers = window.headers(bucket, time.monotonic())
            return too_many(self.retry_after, headers, is_global=self.is_global, code=self.code)
        return json_response({"code": self.code, "message": self.message}, self.status)


class Faults(State):
    """``fail`` queues errors and ``hold`` keeps requests waiting; routing serves both before
    any route answers."""

    def hold(self, method: str, pattern: str) -> asyncio.Event:
        """Keep every request matching (method or ``*``, path regex) unanswered until the event
        returned is set. Each is recorded as it arrives, with status 0 until answered."""
        released = asyncio.Event()
        self._holds.append((method, re.compile(pattern), released))
        return released

    async def _held(self, method: str, path: str) -> None:
        for held, pattern, released in self._holds:
            if held in ("*", method) and pattern.search(path):
                if not released.is_set():
                    self._notify()  # a wait for the held request (status 0) sees it now
                await released.wait()

    def fail(
        self,
        method: str,
        pattern: str,
        status: int,
        times: int = 1,
        *,
        retry_after: float = 0.01,
        code: int | None = None,
        message: str | None = None,
        is_global: bool = False,
    ) -> None:
        """Answer the next ``times`` requests matching (method or ``*``, path regex) with an error.

        429 comes with ``retry_after`` and the headers discord.py needs to retry; 403 defaults
        to code 50013, 404 to 10008. Note discord.py sleeps 1 s, 3 s, ... before retrying a 500.
        """
        default_code, default_message = DEFAULT_ERRORS.get(status, (0, f"{status}: error"))
        self._faults.append(
            Fault(
                method=method.upper(),
                pattern=re.compile(pattern),
                status=status,
                remaining=times,
                retry_after=retry_after,
                code=default_code if code is None else code,
                message=message or default_message,
                is_global=is_global,
            )
        )

    @property
    def pending_faults(self) -> int:
        """How many injected failures have not been served yet."""
        return sum(f.remaining for f in self._faults)

    def _take_fault(self, method: str, path: str) -> web.Response | None:
        """The error for this request if an injected failure matches it (one use spent)."""
        for fault in self._faults:
            if fault.matches(method, path):
                fault.remaining -= 1
                return fault.response()
        return None
