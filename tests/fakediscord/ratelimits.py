"""Discord's rate limits: per route and resource, and a global limit on everything else.

Why: a bot that ignores them works against a lenient fake and stalls on Discord, where a
burst of board edits in one channel is answered 429 and its edits wait. Every limited answer
carries the headers discord.py reads (``X-RateLimit-*``, and ``Via``: a 429 without it is
taken for a Cloudflare ban), so the real library paces itself as it would on Discord.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass, field

from aiohttp import web

from tests.fakediscord.models import Request
from tests.fakediscord.protocol import INTERACTION_ENDPOINT, JSON, json_response
from tests.fakediscord.state import State


@dataclass
class Window:
    """A fixed window: ``limit`` uses from the first one, then a fresh window."""

    limit: int
    per: float
    start: float = 0.0
    used: int = field(default=0)

    def take(self, now: float) -> bool:
        """Spend one use if any is left (opening a new window if this one ended)."""
        if now >= self.start + self.per:
            self.start, self.used = now, 0
        if self.used >= self.limit:
            return False
        self.used += 1
        return True

    def reset_after(self, now: float) -> float:
        return max(0.0, self.start + self.per - now)

    def headers(self, bucket: str, now: float) -> dict[str, str]:
        after = self.reset_after(now)
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(max(0, self.limit - self.used)),
            "X-RateLimit-Reset": f"{time.time() + after:.3f}",
            "X-RateLimit-Reset-After": f"{after:.3f}",
            "X-RateLimit-Bucket": bucket,
        }


def bucket_hash(name: str) -> str:
    return hashlib.sha1(name.encode()).hexdigest()[:16]


def too_many(
    retry_after: float, headers: dict[str, str], *, is_global: bool = False, code: int = 0
) -> web.Response:
    """Discord's 429: ``retry_after`` in the body, ``Via`` and the rate-limit headers."""
    body: JSON = {
        "code": code,
        "message": "You are being rate limited.",
        "retry_after": round(retry_after, 3),
        "global": is_global,
    }
    extra = {
        "Via": "1.1 google",
        "Retry-After": str(max(1, math.ceil(retry_after))),
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Scope": "global" if is_global else "user",
    }
    if is_global:
        extra["X-RateLimit-Global"] = "true"
    return json_response(body, 429, {**headers, **extra})


class RateLimits(State):
    """Counts every request against its route's window and the global one."""

    def _limited(self, record: Request) -> web.Response | None:
        """The 429 for this request if a limit is spent; else None, and the use is counted."""
        now = time.monotonic()
        if not INTERACTION_ENDPOINT.fullmatch(record.path):
            limit, per = self.global_limit
            window = self._windows.setdefault(("global", ""), Window(limit, per))
            if not window.take(now):
                headers = window.headers(bucket_hash("global"), now)
                return too_many(window.reset_after(now), headers, is_global=True)
        for route in self.route_limits:
            major = route.major(record.method, record.path)
            if major is None:
                continue
            window = self._windows.setdefault((route.name, major), Window(route.limit, route.per))
            bucket = bucket_hash(route.name)
            if not window.take(now):
                return too_many(window.reset_after(now), window.headers(bucket, now))
            record.limit = (route.name, major)
            return None
        return None

    def _limit_headers(self, record: Request) -> dict[str, str]:
        """What a limited route's answer says of its window, for discord.py to pace itself."""
        if record.limit is None:
            return {}
        window = self._windows[record.limit]
        return window.headers(bucket_hash(record.limit[0]), time.monotonic())
