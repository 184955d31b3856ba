"""Where a bot's event loop spends its CPU, step by step: a launcher for the benches' bots.

    python bench/loop_steps.py OUT -m tests.bot_process PORT DB     (Orchard)
    python bench/loop_steps.py OUT bench/floor_bot.py PORT DB       (the floor)

Runs the program as Python would, with every callback of its event loop timed on the loop
thread's own CPU clock (``time.thread_time``), while measuring is on: SIGUSR1 turns it on,
SIGUSR2 off, and each SIGUSR2 writes the totals so far to OUT as JSON. A task's step is named
by the task (numbers folded to N) and by where it then waited (the function and line of its
innermost coroutine outside the standard library and aiohttp), or DONE: so a click's handler
shows as the part before its commit, the part between the commit and its answer's request,
and the part after Discord answered. The loop thread's CPU in all is read at each start and
stop too, so what the loop does between callbacks (select, scheduling) is the difference.

A sampling profiler counts a thread that waits for a core as busy, and on a shared 2-core
machine that is much of the time; this counts only CPU the loop thread used. Other threads
(the commit's) it does not time. Its own cost (two clock reads and a name per callback, a
few microseconds) is counted in the steps, more of it in the bot with more callbacks a move:
compare the bots' steps with each other, not with a run without it.
"""

from __future__ import annotations

import asyncio.events
import json
import os
import re
import runpy
import signal
import sys
import sysconfig
import time
from pathlib import Path
from types import FrameType
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
DIGITS = re.compile(r"[0-9]+")
DEPTH = 50  # awaits followed down a task's coroutine chain, at most
PLUMBING = (sysconfig.get_paths()["stdlib"], str(Path(aiohttp.__file__).parent))

Steps = dict[str, list[float]]  # step -> [CPU seconds, callbacks]


def waiting_at(task: asyncio.Task[Any]) -> str:
    """Where ``task`` now waits: the function and line of its innermost coroutine outside
    the standard library and aiohttp (whose ``sleep`` or ``read`` says less than who called
    it), or DONE."""
    if task.done():
        return "DONE"
    awaitable: Any = task.get_coro()
    where = "?"
    for _ in range(DEPTH):
        frame = getattr(awaitable, "cr_frame", None) or getattr(awaitable, "ag_frame", None)
        if frame is not None and not frame.f_code.co_filename.startswith(PLUMBING):
            where = f"{frame.f_code.co_qualname}:{frame.f_lineno}"
        awaitable = getattr(awaitable, "cr_await", None) or getattr(awaitable, "ag_await", None)
        if awaitable is None:
            break
    return where


def step_of(callback: Any) -> str:
    """The step a callback just ran: a task's, by its name and where it waits; else the
    callback's own name."""
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        return f"{DIGITS.sub('N', owner.get_name())} | {waiting_at(owner)}"
    return str(getattr(callback, "__qualname__", type(callback).__name__))


class Meter:
    """The loop's callbacks timed while on; the totals written to ``out`` at each stop."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.on = False
        self.steps: Steps = {}
        self.seconds = 0.0  # measured, on the wall clock
        self.loop_cpu = 0.0  # ... the loop thread's CPU in all, callbacks or not
        self._since = (0.0, 0.0)

    def install(self) -> None:
        run = asyncio.events.Handle._run
        meter = self

        def timed(handle: asyncio.events.Handle) -> None:
            if not meter.on:
                return run(handle)
            began = time.thread_time()
            try:
                return run(handle)
            finally:
                meter.add(step_of(getattr(handle, "_callback", None)), time.thread_time() - began)

        asyncio.events.Handle._run = timed  # type: ignore[method-assign,assignment]
        signal.signal(signal.SIGUSR1, self.start)
        signal.signal(signal.SIGUSR2, self.stop)

    def add(self, step: str, cpu: float) -> None:
        total = self.steps.get(step)
        if total is None:
            self.steps[step] = [cpu, 1.0]
        else:
            total[0] += cpu
            total[1] += 1

    def start(self, signum: int = 0, frame: FrameType | None = None) -> None:
        """(A signal handler: it runs on the main thread, the loop's.)"""
        self.on, self._since = True, (time.monotonic(), time.thread_time())

    def stop(self, signum: int = 0, frame: FrameType | None = None) -> None:
        if self.on:
            self.seconds += time.monotonic() - self._since[0]
            self.loop_cpu += time.thread_time() - self._since[1]
        self.on = False
        totals = {"seconds": self.seconds, "loop_cpu": self.loop_cpu, "steps": self.steps}
        self.out.write_text(json.dumps(totals))


def read(out: Path) -> tuple[float, Steps]:
    """What a bot's meter wrote: the loop thread's CPU in all, and its steps."""
    data = json.loads(out.read_text())
    return float(data["loop_cpu"]), {k: [float(x) for x in v] for k, v in data["steps"].items()}


def launcher(out: Path, program: tuple[str, ...]) -> tuple[str, ...]:
    """``program`` (as a BotProcess runs it) run under this module, writing to ``out``."""
    return (str(ROOT / "bench" / "loop_steps.py"), str(out), *program)


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        sys.exit("usage: python bench/loop_steps.py OUT (-m MODULE | SCRIPT) ARGS...")
    Meter(Path(argv[0])).install()
    run_program(argv[1:])


def run_program(program: list[str]) -> None:
    """Run ``(-m MODULE | SCRIPT) ARGS...`` in this process, as ``python`` would run it."""
    if program[0] == "-m":
        sys.path[0] = os.getcwd()  # as ``python -m`` has it
        sys.argv = [program[1], *program[2:]]
        runpy.run_module(program[1], run_name="__main__", alter_sys=True)
    else:
        sys.path[0] = str(Path(program[0]).resolve().parent)
        sys.argv = program
        runpy.run_path(program[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
