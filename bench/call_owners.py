"""Whose code makes a bot's calls: a launcher for the benches' bots, like ``loop_steps.py``.

    python bench/call_owners.py OUT -m tests.bot_process PORT DB     (Orchard)
    python bench/call_owners.py OUT bench/floor_bot.py PORT DB       (the floor)

Runs the program as Python would, counting every call its main thread (the event loop's)
makes, in Python or in C, while counting is on: SIGUSR1 turns it on, SIGUSR2 off, and each
SIGUSR2 writes the counts so far to OUT as JSON. Each call is charged to the nearest frame of
the bot's own code on the stack (Orchard's ``bot/``, ``cogs/`` and ``db/``, the floor's
``bench/floor_bot.py``), grouped by :data:`PARTS`; a call with none of it on the stack (the
event loop, the gateway's reading) goes to the loop. A coroutine's resumption counts as a
call of each frame it passes through, as the profilers count it.

Counts, not times: the hook costs every call more than the call, slowing a bot several-fold,
so what it measures is how much work each part asks of Python, the same way for both bots.
"""

from __future__ import annotations

import json
import signal
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.loop_steps import run_program  # noqa: E402

OWN = tuple(f"{ROOT}/{folder}" for folder in ("bot/", "cogs/", "db/", "bench/floor_bot.py"))
LOOP = "the gateway's read of the click, and the event loop"
PARTS = (
    ("bot/answers.py", "the click's answer"),
    ("bot/pacing.py", "the click's answer"),
    ("bench/floor_bot.py:FloorBot.on_interaction", "the click's answer"),
    ("bot/app.py", LOOP),
    ("bot/cli.py", LOOP),
    ("bench/floor_bot.py:main", LOOP),
    ("bot/pings.py", "turn messages"),
    ("cogs/", "drawing the board"),
    ("bot/boards.py", "drawing the board"),
    ("bot/components.py", "drawing the board"),
    ("bot/dice_", "drawing the board"),
    ("bot/wording.py", "drawing the board"),
    ("bench/floor_bot.py:board", "drawing the board"),
    ("bot/runner.py", "the runner: lock, checks, change, hooks"),
    ("bot/locks.py", "the runner: lock, checks, change, hooks"),
    ("bot/interface.py", "the runner: lock, checks, change, hooks"),
    ("bot/model.py", "the runner: lock, checks, change, hooks"),
    ("db/", "the store"),
    ("bot/games/", "the engines"),
)
"""The part a call's owner (``folder/file.py:function``) belongs to: the first that starts it."""
REST = "the rest"


def part_of(owner: str) -> str:
    return next((part for prefix, part in PARTS if owner.startswith(prefix)), REST)


class Counting:
    """The calls counted while on, by owner; written to ``out`` at each stop."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.calls: Counter[str] = Counter()
        self._parts: dict[Any, str] = {}  # code object -> its owner, or "" if not own code

    def install(self) -> None:
        signal.signal(signal.SIGUSR1, self.start)
        signal.signal(signal.SIGUSR2, self.stop)

    def start(self, signum: int = 0, frame: FrameType | None = None) -> None:
        """(A signal handler: it runs on the main thread, the loop's.)"""
        sys.setprofile(self._count)

    def stop(self, signum: int = 0, frame: FrameType | None = None) -> None:
        sys.setprofile(None)
        self.out.write_text(json.dumps(dict(self.calls)))

    def _count(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" or event == "c_call":  # a C call's frame is its caller's
            self.calls[self._owner(frame)] += 1

    def _owner(self, frame: FrameType | None) -> str:
        while frame is not None:
            code = frame.f_code
            owner = self._parts.get(code)
            if owner is None:
                name = code.co_filename
                own = name.startswith(OWN)
                owner = f"{name[len(str(ROOT)) + 1 :]}:{code.co_qualname}" if own else ""
                self._parts[code] = owner
            if owner:
                return owner
            frame = frame.f_back
        return "(the loop)"


def read(out: Path) -> Counter[str]:
    """The calls a bot's counter wrote, by part."""
    parts: Counter[str] = Counter()
    for owner, calls in json.loads(out.read_text()).items():
        parts[LOOP if owner == "(the loop)" else part_of(owner)] += calls
    return parts


def launcher(out: Path, program: tuple[str, ...]) -> tuple[str, ...]:
    """``program`` (as a BotProcess runs it) run under this module, writing to ``out``."""
    return (str(ROOT / "bench" / "call_owners.py"), str(out), *program)


def report(counted: tuple[Counter[str], Counter[str]], moves: tuple[int, int]) -> None:
    """Calls a move by part, Orchard beside the floor."""
    print("  calls a move in the slices, by whose code made them (a hook counting every call):")
    print(f"  {'Orchard':>9} {'floor':>7}")
    mine, floors = (
        {k: n / max(1, m) for k, n in c.items()} for c, m in zip(counted, moves, strict=True)
    )
    for part in sorted({*mine, *floors}, key=lambda k: -mine.get(k, 0.0)):
        print(f"  {mine.get(part, 0.0):9.0f} {floors.get(part, 0.0):7.0f}  {part}")
    print(f"  {sum(mine.values()):9.0f} {sum(floors.values()):7.0f}  in all")


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        sys.exit("usage: python bench/call_owners.py OUT (-m MODULE | SCRIPT) ARGS...")
    Counting(Path(argv[0])).install()
    run_program(argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
