"""Work a commit starts in the background (turn pings, tile DMs), drained at shutdown."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Coroutine
from typing import Any

DRAIN_SECONDS = 5.0  # how long closing waits for such work in flight


def spawn(
    tasks: set[asyncio.Task[Any]], work: Coroutine[Any, Any, Any], name: str | None = None
) -> asyncio.Task[Any]:
    """Start ``work`` as a task kept in ``tasks`` until it ends (:func:`drain` waits for it)."""
    task = asyncio.create_task(work, name=name)
    tasks.add(task)
    task.add_done_callback(tasks.discard)
    return task


async def drain(tasks: Collection[asyncio.Task[Any]], seconds: float | None = None) -> None:
    """Let ``tasks`` finish (and record what they did while the store is still open); cancel
    those still waiting on Discord after ``seconds`` (:data:`DRAIN_SECONDS`), or as soon as
    the close itself runs out of time (this wait is cancelled then), and wait for them to end.
    Left running, one would fail once the HTTP session closed, logged at ERROR with nobody to
    retrieve it.

    ``tasks`` is the owner's live collection, read again as each wait ends: work in flight
    may start more (a turn ping posted tidies away the message before it), and that is
    drained too, within the same time."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + (DRAIN_SECONDS if seconds is None else seconds)
    try:
        while (running := _running(tasks)) and (left := deadline - loop.time()) > 0:
            await asyncio.wait(running, timeout=left)
    finally:
        while running := _running(tasks):  # a task cancelled may yet start another
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)


def _running(tasks: Collection[asyncio.Task[Any]]) -> set[asyncio.Task[Any]]:
    return {task for task in tasks if not task.done()}
