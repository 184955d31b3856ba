"""What the load benches measure with: processes' CPU and memory, the machine's load, the fake's
own lateness, click latencies and the moves a database committed in a window.

The bot runs in a process of its own (``tests/bot_process.py``); the fake Discord and the
players driving it run in the bench's process. So the bot's CPU is read from ``/proc/PID/stat``
alone, and the bench's own share (the fake and the driver) and everything else on the machine
are reported beside it: on a shared 2-core machine they are what a figure must be read against.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import platform
import sqlite3
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

TICK = os.sysconf("SC_CLK_TCK")
LATE = 3.0  # seconds: Discord refuses a callback after this ("This interaction failed")
SETTLED = 15.0  # seconds after the bot connects before any window is measured


def cpu_seconds(pid: int | str = "self") -> float:
    """User + system CPU seconds of a process, all its threads included (``/proc/PID/stat``)."""
    after_name = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(after_name[11]) + int(after_name[12])) / TICK  # fields 14 and 15: utime, stime


def machine_cpu() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, every core summed."""
    ticks = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle, iowait
    total = sum(ticks[:8])  # user .. steal (guest time is already inside user)
    return (total - idle) / TICK, total / TICK


def memory_mib(pid: int, field: str = "VmRSS") -> float:
    """A process's ``VmRSS`` (resident now) or ``VmHWM`` (its peak), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cores() -> int:
    return os.cpu_count() or 1


@dataclass(frozen=True)
class Usage:
    """CPU seconds spent over a wall-clock span: the bot (every process of it), this process
    (fake and driver), the database server (PostgreSQL's processes; none for SQLite, whose
    work is inside the bot's), the whole machine (so what else ran is the rest)."""

    seconds: float
    bot: float
    bench: float
    machine: float
    server: float = 0.0

    FIELDS = ("seconds", "bot", "bench", "machine", "server")

    @property
    def other(self) -> float:
        return max(0.0, self.machine - self.bot - self.bench - self.server)

    @property
    def elsewhere(self) -> float:
        """What else the machine ran, in cores (CPU seconds a second)."""
        return self.other / self.seconds

    def shares(self) -> str:
        """Each as a share of one core, and the machine as a share of all of them."""

        def pct(cpu: float) -> str:
            return f"{100 * cpu / self.seconds:.0f}%"

        busy = 100 * self.machine / (self.seconds * cores())
        server = f", PostgreSQL {pct(self.server)}" if self.server else ""
        return (
            f"bot {pct(self.bot)} of a core, fake and driver {pct(self.bench)}{server}, "
            f"anything else {pct(self.other)}; machine {busy:.0f}% busy ({cores()} cores)"
        )


def server_pids(postmaster: int | None) -> list[int]:
    """The database server's processes: the postmaster and its children (none for SQLite)."""
    if postmaster is None:
        return []
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # exited meanwhile
        if ppid == postmaster:
            children.append(int(stat.parent.name))
    return [postmaster, *children]


def cpu_of(pids: Iterable[int]) -> dict[int, float]:
    """Each live process's CPU seconds (one that exited meanwhile is left out)."""
    seconds = {}
    for pid in pids:
        try:
            seconds[pid] = cpu_seconds(pid)
        except OSError:
            continue
    return seconds


class CpuMeter:
    """CPU used between :meth:`start` and :meth:`stop` by the bot's processes, this one, the
    database server's (given its postmaster's pid) and the machine. A server process started
    meanwhile counts whole; one that ended meanwhile is lost (its pooled connections live on)."""

    def __init__(self, bot_pids: Sequence[int], postmaster: int | None = None) -> None:
        self.bot_pids = list(bot_pids)
        self.postmaster = postmaster
        self._began = (0.0, 0.0, 0.0, 0.0)
        self._server: dict[int, float] = {}

    def _now(self) -> tuple[float, float, float, float]:
        busy, _ = machine_cpu()
        bot = sum(cpu_seconds(pid) for pid in self.bot_pids)
        return time.monotonic(), bot, cpu_seconds(), busy

    def start(self) -> CpuMeter:
        self._server = cpu_of(server_pids(self.postmaster))
        self._began = self._now()
        return self

    def stop(self) -> Usage:
        now = self._now()
        server = cpu_of(server_pids(self.postmaster))
        spent = sum(cpu - self._server.get(pid, 0.0) for pid, cpu in server.items())
        return Usage(*(b - a for a, b in zip(self._began, now, strict=True)), server=spent)


@contextmanager
def no_collection() -> Iterator[None]:
    """This process's garbage collector is off inside (and collects, then freezes what is
    left, on the way out). The fake keeps every request, interaction and message version: a
    full collection of those millions of objects stops this process's loop for seconds, and
    the clicks in flight would be timed as if the bot had been slow."""
    gc.disable()
    try:
        yield
    finally:
        gc.collect()
        gc.freeze()
        gc.enable()


class LoopLag:
    """How late this process's event loop wakes a 20 ms sleep: the fake and driver's own delay,
    the floor under every latency this bench reports."""

    def __init__(self, period: float = 0.02) -> None:
        self.period = period
        self.samples: list[tuple[float, float]] = []  # (when, seconds late)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> LoopLag:
        self._task = asyncio.create_task(self._run())
        return self

    async def _run(self) -> None:
        while True:
            began = time.monotonic()
            await asyncio.sleep(self.period)
            now = time.monotonic()
            self.samples.append((now, now - began - self.period))

    def between(self, began: float, ended: float) -> list[float]:
        """How late the loop woke, for each wake-up due in [began, ended): a stall belongs to
        the window it began in. (By when the loop woke, the collection this bench runs between
        two slices, up to half a second, was counted in the next slice, whose clicks had not
        started yet.)"""
        return [late for when, late in self.samples if began <= when - late < ended]

    def stalls(self, longer: float = 0.015) -> list[tuple[float, float]]:
        """When this loop stood still longer than ``longer`` seconds: [began, ended)."""
        return [(when - late, when) for when, late in self.samples if late > longer]

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


def bot_stalls(path: Path) -> dict[str, list[tuple[float, float]]]:
    """The stalls a bot process logged (``tests.bot_process.StallLog``), as [began, ended):
    its loop standing still, its collector's long passes, and when its tables were warm."""
    found: dict[str, list[tuple[float, float]]] = {"loop": [], "gc": [], "warm": []}
    lines = path.read_text().splitlines() if path.exists() else []
    for kind, began, took, *_ in (line.split() for line in lines):
        found[kind].append((float(began), float(began) + float(took)))
    return found


def quantile(ordered: Sequence[float], q: float) -> float:
    """Nearest-rank quantile of sorted values (0.0 when there are none)."""
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass(frozen=True)
class Latencies:
    """A sample of answer times in seconds; ``missing`` counts the ones never answered."""

    values: tuple[float, ...]
    missing: int = 0

    @classmethod
    def of(cls, values: Iterable[float | None]) -> Latencies:
        listed = list(values)
        got = sorted(v for v in listed if v is not None)
        return cls(tuple(got), len(listed) - len(got))

    @property
    def n(self) -> int:
        return len(self.values) + self.missing

    @property
    def median(self) -> float:
        return statistics.median(self.values) if self.values else 0.0

    @property
    def p99(self) -> float:
        """Over every answer, the never-answered ranked last (infinitely late)."""
        return quantile([*self.values, *[float("inf")] * self.missing], 0.99)

    @property
    def max(self) -> float:
        return float("inf") if self.missing else (self.values[-1] if self.values else 0.0)

    def late(self, limit: float = LATE) -> int:
        """Answers later than ``limit`` seconds, the never-answered counted in."""
        return sum(v > limit for v in self.values) + self.missing

    def text(self) -> str:
        if not self.n:
            return "no samples"
        return (
            f"median {ms(self.median)}, p99 {ms(self.p99)}, max {ms(self.max)} "
            f"({self.n} clicks; {self.late()} answered later than {LATE:.0f} s or never)"
        )


def query(db: Path, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
    """A read-only query from outside the bot (in WAL mode a reader neither waits for the
    bot's writes nor blocks them)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return list(conn.execute(sql, params))
    finally:
        conn.close()


async def moves_committed(
    db: Path | str, began: float, ended: float, source: bool = True
) -> dict[str, int]:
    """Rows of the ``moves`` table written between two wall-clock times, by source (``db``: a
    SQLite file, or a PostgreSQL URL)."""
    by = "source" if source else "'move'"
    sql = f"SELECT {by}, COUNT(*) FROM moves WHERE created_at >= ? AND created_at < ? GROUP BY 1"
    if isinstance(db, str):
        rows = await pg_query(db, sql.replace("?", "$1", 1).replace("?", "$2", 1), began, ended)
    else:
        rows = await asyncio.to_thread(query, db, sql, (began, ended))
    return {str(kind): int(n) for kind, n in rows}


async def pg_query(url: str, sql: str, *params: object) -> list[tuple[Any, ...]]:
    """One query on its own connection, from outside the bot."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        return [tuple(row) for row in await conn.fetch(sql, *params)]
    finally:
        await conn.close()


async def postmaster(url: str) -> int:
    """The pid of the PostgreSQL server ``url`` names (its data directory's ``postmaster.pid``;
    needs a superuser, as ``pg_virtualenv`` makes), so its CPU can be read beside the bot's."""
    [(directory,)] = await pg_query(url, "SHOW data_directory")
    return int((Path(directory) / "postmaster.pid").read_text().split()[0])


@dataclass(frozen=True)
class Window:
    """A measured span: its clock times, the CPU spent, and the moves the database committed."""

    began: float
    ended: float
    usage: Usage
    moves: dict[str, int]

    @property
    def committed(self) -> int:
        return sum(self.moves.values())

    @property
    def per_second(self) -> float:
        return self.committed / self.usage.seconds

    @property
    def cpu_per_move(self) -> float:
        return self.usage.bot / max(1, self.committed)

    @property
    def server_per_move(self) -> float:
        """The database server's CPU a move (PostgreSQL's; SQLite's is in the bot's)."""
        return self.usage.server / max(1, self.committed)

    def text(self) -> str:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(self.moves.items()))
        return (
            f"{self.committed} moves committed in {self.usage.seconds:.0f} s ({kinds}): "
            f"{self.per_second:.0f} moves/s, bot CPU {self.cpu_per_move * 1e3:.2f} ms a move"
        )

    @classmethod
    def total(cls, windows: list[Window]) -> Window:
        """Several windows as one: their time, CPU and moves added up."""
        moves: dict[str, int] = {}
        for w in windows:
            for kind, n in w.moves.items():
                moves[kind] = moves.get(kind, 0) + n
        usage = Usage(*(sum(getattr(w.usage, f) for w in windows) for f in Usage.FIELDS))
        return cls(windows[0].began, windows[-1].ended, usage, moves)


async def measure(
    pids: Sequence[int],
    db: Path | str,
    seconds: float,
    *,
    by_source: bool = True,
    server: int | None = None,
) -> Window:
    """``seconds`` of a bot at work (in one process or several, with the database server whose
    postmaster is ``server``): its CPU (and the rest), and the moves its database committed
    meanwhile (Orchard's by source; the floor's table has none)."""
    wall, began = time.time(), time.monotonic()
    meter = CpuMeter(pids, server).start()
    await asyncio.sleep(seconds)
    usage = meter.stop()
    moves = await moves_committed(db, wall, time.time(), source=by_source)
    return Window(began, time.monotonic(), usage, moves)


def spread(values: Sequence[float], show: Callable[[float], str]) -> str:
    """Runs' figures as 'median (min–max)', the form every summary line takes."""
    if not values:
        return "-"
    ordered = sorted(values)
    middle = statistics.median(ordered)
    if len(ordered) == 1:
        return show(middle)
    return f"{show(middle)} ({show(ordered[0])}–{show(ordered[-1])})"


def seconds(value: float) -> str:
    return "never" if value == float("inf") else f"{value:.2f} s"


def ms(value: float) -> str:
    return "never" if value == float("inf") else f"{value * 1e3:.1f} ms"


def times(value: float) -> str:
    return f"{value:.2f}×"


def machine() -> str:
    """One line on where the figures come from: cores, CPU model, kernel, Python, libraries."""
    model = "unknown CPU"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    load = Path("/proc/loadavg").read_text().split()[:3]
    return (
        f"{cores()} cores ({model}), Linux {platform.release()}, Python "
        f"{platform.python_version()}, discord.py {version('discord.py')}, aiosqlite "
        f"{version('aiosqlite')}, aiohttp {version('aiohttp')}; load average before: "
        + " ".join(load)
    )


async def quiet(below: float, longest: float, sample: float = 5.0) -> str:
    """Wait (at most ``longest`` s) until the whole machine was busy less than ``below`` (a
    share of all cores) over ``sample`` s: on a shared machine, a run should at least start
    when nobody else is busy. Says what it found."""
    waited = 0.0
    while True:
        busy0, total0 = machine_cpu()
        await asyncio.sleep(sample)
        busy1, total1 = machine_cpu()
        share = (busy1 - busy0) / max(1e-9, total1 - total0)
        waited += sample
        if share < below:
            return f"machine {100 * share:.0f}% busy before the run (waited {waited:.0f} s)"
        if waited >= longest:
            return f"machine still {100 * share:.0f}% busy after {waited:.0f} s: run anyway"


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """``--runs``, ``--dir`` and the options of :func:`quiet`, as every load bench has them."""
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None, help="keep databases and logs here")
    parser.add_argument(
        "--quiet", type=float, default=30.0, help="start a run when the machine is below this %%"
    )
    parser.add_argument(
        "--quiet-wait", type=float, default=300.0, help="... busy, waiting at most this long (s)"
    )


Row = tuple[str, list[float], Callable[[float], str]]


def summarise(runs: int, rows: list[Row]) -> None:
    """The summary every load bench ends with: each figure over the runs, median (min–max)."""
    print(f"over {runs} runs: median (min–max)")
    width = max(len(name) for name, _, _ in rows)
    for name, values, show in rows:
        print(f"  {name:<{width}} {spread(values, show)}")


def count(value: float) -> str:
    return f"{value:.0f}"
