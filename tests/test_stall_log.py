"""The benches' stall log (``tests.bot_process.StallLog``): a loop that stood still is noted
with when and how long, a loop that only waited is not, and the loop is left as it was."""

from __future__ import annotations

import asyncio
import io
import time
from types import SimpleNamespace
from typing import Any, cast

from bot.app import OrchardBot
from tests.bot_process import STALL, StallLog


def a_bot() -> tuple[OrchardBot, asyncio.Event]:
    """Just what the log reads of a bot: ``orchard.warmed``."""
    warmed = asyncio.Event()
    return cast(OrchardBot, SimpleNamespace(orchard=SimpleNamespace(warmed=warmed))), warmed


def logged(out: io.StringIO, kind: str) -> list[tuple[float, float]]:
    lines = (line.split() for line in out.getvalue().splitlines())
    return [(float(start), float(took)) for k, start, took, *_ in lines if k == kind]


async def test_a_loop_that_stood_still_is_logged_with_when_and_how_long() -> None:
    out = io.StringIO()
    bot, _ = a_bot()
    log = StallLog(out, bot)
    try:
        await asyncio.sleep(4 * STALL)  # waiting for events is not standing still
        # (A busy machine may pause the process for a moment: never for the whole wait.)
        assert all(took < 4 * STALL for _, took in logged(out, "loop"))
        before = time.monotonic()
        time.sleep(2 * STALL)  # the loop runs this task and nothing else meanwhile
        after = time.monotonic()
        await asyncio.sleep(0)  # back to the loop, which looks at its events
        stalls = logged(out, "loop")  # to 0.1 ms, as written
        assert any(
            start <= before + 1e-4 and start + took >= after - 2e-4 for start, took in stalls
        )
    finally:
        log.stop()


async def test_the_tables_warm_is_noted_and_stopping_leaves_the_loop_as_it_was() -> None:
    out = io.StringIO()
    bot, warmed = a_bot()
    selector: Any = asyncio.get_running_loop()._selector  # type: ignore[attr-defined]
    log = StallLog(out, bot)
    warmed.set()
    await asyncio.sleep(0.01)
    assert [took for _, took in logged(out, "warm")] == [0.0]
    log.stop()
    assert "select" not in vars(selector)  # the selector's own method again
    began = time.monotonic()
    time.sleep(2 * STALL)
    await asyncio.sleep(0)
    assert all(start < began for start, _ in logged(out, "loop"))
