"""Work a commit starts in the background (turn pings, tile DMs), drained at shutdown."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

DRAIN_SECONDS = 5.0  # how long closing waits for such work in flight


async def drain(tasks: Iterable[asyncio.Task[Any]], seconds: float = DRAIN_SECONDS) -> None:
    """Let ``tasks`` finish (and record what they did while the store is still open); cancel
    those still waiting on Discord after ``seconds``, or as soon as the close itself runs out
    of time (this wait is cancelled then), and wait for them to end. Left running, one would
    fail once the HTTP session closed, logged at ERROR with nobody to retrieve it."""
    waiting = set(tasks)
    if not waiting:
        return
    try:
        await asyncio.wait(waiting, timeout=seconds)
    finally:
        for task in waiting:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
