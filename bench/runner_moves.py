"""Per-move cost of the runner in-process, with 1, 100 and 1,000 games in play at once.

    python bench/runner_moves.py [--moves 2000] [--sizes 1,100,1000] [--runs 1]
        [--postgres postgresql://…] [--flush MB]

The runner publishes to a Recorder (no Discord) on a real SQLite file (WAL, synchronous=FULL)
in a temporary folder. Moves are interleaved round-robin over the games; a finished game is
replaced by a new one. Side by side: one bare aiosqlite insert-and-commit on the same settings,
which is the floor a committed move cannot go below (one fsync'd transaction). One bare commit
follows each move, so both see the same moments of a shared machine; a move's p99 is given
as a multiple of the bare commits' p99, and its CPU (the process's, every thread: the commit
runs on the writer's) as a multiple of a bare commit's. One move at a time, so each commits
alone: no group shares its fsync. For PostgreSQL the CPU is the bot's side only.

With ``--flush MB``, that many megabytes are written (untimed) before each move and each bare
commit, pushing the code and data they use out of the processor's caches, as a busy bot's
other work between two moves does: does a move, which touches more code and data than a bare
commit, then pay more for it than the commit does?

With ``--postgres URL`` (default: ``ORCHARD_TEST_PG`` if set) each run measures PostgreSQL too,
right after SQLite, in a fresh schema on that server, beside a bare asyncpg insert-and-commit
of its own; the server's fsync and synchronous_commit are printed, since they decide what a
commit costs there. ``--runs`` repeats everything; the summary gives each figure's median over
the runs with the lowest and highest.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import aiosqlite  # noqa: E402

from bot.games.cheerio import ROLLS_PER_TURN, CheerioState, open_categories  # noqa: E402
from bot.runner import Snapshot  # noqa: E402
from tests.databases import fresh_schema  # noqa: E402
from tests.support import Table, orchard, player  # noqa: E402

GUILD = 100


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def figures(samples: list[float]) -> str:
    median = statistics.median(samples) * 1e3
    return f"median {median:6.2f} ms   p99 {p99(samples) * 1e3:6.2f} ms"


async def new_game(o: Table, n: int) -> Snapshot:
    """A solo Cheerio game in play, created by the runner itself (no lobby room check)."""
    lobby = await o.runner.create(
        "cheerio", GUILD, 10_000 + n, player(n), seed=n, options=None, variant="", deadline=None
    )
    return await o.lobby.start(lobby.id, n)


def next_action(state: CheerioState) -> tuple[str, str]:
    if state.rolls < ROLLS_PER_TURN:
        return "roll", ""
    return "score", open_categories(state.cards[state.turn])[0]


class Bare:
    """One aiosqlite insert-and-commit on a database of its own (same settings), timed."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn
        self.samples: list[float] = []
        self.cpu: list[float] = []  # the process's CPU (every thread) for each commit

    async def close(self) -> None:
        await self.conn.close()

    @classmethod
    async def open(cls, path: Path) -> Bare:
        conn = await aiosqlite.connect(str(path), isolation_level=None)
        await conn.execute("PRAGMA journal_mode = WAL")
        await conn.execute("PRAGMA synchronous = FULL")
        await conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, game INTEGER, body TEXT)")
        return cls(conn)

    async def commit(self) -> None:
        began, cpu = time.perf_counter(), time.process_time()
        await self.conn.execute("BEGIN IMMEDIATE")
        await self.conn.execute("INSERT INTO t (game, body) VALUES (?, ?)", (1, "x" * 300))
        await self.conn.execute("COMMIT")
        self.cpu.append(time.process_time() - cpu)
        self.samples.append(time.perf_counter() - began)


class BarePostgres:
    """One asyncpg insert-and-commit on a table of its own in the bench's schema, timed."""

    def __init__(self, conn) -> None:
        self.conn = conn
        self.samples: list[float] = []
        self.cpu: list[float] = []

    @classmethod
    async def open(cls, url: str) -> BarePostgres:
        import asyncpg

        conn = await asyncpg.connect(url)
        await conn.execute("CREATE TABLE bare (id BIGSERIAL PRIMARY KEY, game BIGINT, body TEXT)")
        return cls(conn)

    async def commit(self) -> None:
        began, cpu = time.perf_counter(), time.process_time()
        async with self.conn.transaction():
            await self.conn.execute("INSERT INTO bare (game, body) VALUES ($1, $2)", 1, "x" * 300)
        self.cpu.append(time.process_time() - cpu)
        self.samples.append(time.perf_counter() - began)

    async def close(self) -> None:
        await self.conn.close()


Timed = tuple[list[float], list[float]]  # each move's wall time, and the process's CPU for it


class Caches:
    """What pushes a move's code and data out of the processor's caches: ``megabytes``
    written (0: nothing; the core's own caches are about 1 MB, the shared one tens)."""

    def __init__(self, megabytes: int) -> None:
        self.buffer = bytearray(megabytes * 2**20)
        self.chunk = b"\x01" * 2**16

    def flush(self) -> None:
        view = memoryview(self.buffer)
        for offset in range(0, len(self.buffer), len(self.chunk)):
            view[offset : offset + len(self.chunk)] = self.chunk


async def runner_moves(target: Path | str, games: int, moves: int, bare, caches: Caches) -> Timed:
    """``moves`` moves round-robin over ``games`` games, each followed by a bare commit."""
    o = await orchard(target)
    try:
        table = [await new_game(o, n) for n in range(games)]
        made = games
        samples: list[float] = []
        cpu: list[float] = []
        while len(samples) < moves:
            for i, live in enumerate(table):
                kind, arg = next_action(live.state)
                user = live.row.players[0].user_id
                caches.flush()
                began, used = time.perf_counter(), time.process_time()
                live = await o.runner.act(live.id, user, kind, arg, version=live.row.version)
                cpu.append(time.process_time() - used)
                samples.append(time.perf_counter() - began)
                caches.flush()
                await bare.commit()
                if live.row.status != "active":
                    made += 1
                    live = await new_game(o, made)
                table[i] = live
                if len(samples) >= moves:
                    break
        o.shown.shown.clear()
        return samples, cpu
    finally:
        await o.close()


# (backend, games): the moves' wall times, the bare commits', the moves' CPU, the commits'
Figures = dict[tuple[str, int], tuple[list[float], list[float], list[float], list[float]]]


async def one_run(
    sizes: list[int], moves: int, folder: Path, url: str | None, caches: Caches
) -> Figures:
    """Each size on SQLite, then on PostgreSQL (if ``url``), printed as it goes."""
    found: Figures = {}
    for games in sizes:
        backends = [("sqlite", None)] + ([("postgres", url)] if url else [])
        for backend, server in backends:
            if server is None:
                bare = await Bare.open(folder / f"bare-{games}-{time.monotonic_ns()}.db")
                try:
                    target = folder / f"runner-{games}-{time.monotonic_ns()}.db"
                    samples, cpu = await runner_moves(target, games, moves, bare, caches)
                finally:
                    await bare.close()
            else:
                async with fresh_schema(server) as schema:
                    bare = await BarePostgres.open(schema)
                    try:
                        samples, cpu = await runner_moves(schema, games, moves, bare, caches)
                    finally:
                        await bare.close()
            found[backend, games] = (samples, bare.samples, cpu, bare.cpu)
            print(
                f"{backend:>8} runner.act, {games:>5} games in play: {figures(samples)}"
                f"  ({len(samples)} moves)\n"
                f"         bare insert + commit between them: {figures(bare.samples)}; "
                f"move p99 {p99(samples) / p99(bare.samples):.1f}× a bare commit's\n"
                f"         CPU: a move {statistics.mean(cpu) * 1e3:.3f} ms, a bare commit "
                f"{statistics.mean(bare.cpu) * 1e3:.3f} ms"
                f" ({statistics.mean(cpu) / statistics.mean(bare.cpu):.1f}×)"
            )
    return found


def spread(values: list[float], unit: float = 1e3, suffix: str = " ms") -> str:
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"{mid * unit:.2f}{suffix} ({low * unit:.2f}–{high * unit:.2f})"


def summary(runs: list[Figures]) -> None:
    print(f"\nover {len(runs)} run(s): median (lowest–highest)")
    for key in runs[0]:
        moves = [statistics.median(r[key][0]) for r in runs]
        tails = [p99(r[key][0]) for r in runs]
        bares = [statistics.median(r[key][1]) for r in runs]
        cpu = [statistics.mean(r[key][2]) / statistics.mean(r[key][3]) for r in runs]
        print(
            f"  {key[0]:>8}, {key[1]:>5} games: move median {spread(moves)}, p99 {spread(tails)};"
            f" bare commit median {spread(bares)}; CPU a move / a bare commit's"
            f" {spread(cpu, 1, '×')}"
        )


async def server_settings(url: str) -> str:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        names = ("server_version", "fsync", "synchronous_commit")
        values = [await conn.fetchval(f"SHOW {name}") for name in names]
        return ", ".join(f"{name} {value}" for name, value in zip(names, values, strict=True))
    finally:
        await conn.close()


async def run(
    sizes: list[int], moves: int, folder: Path | None, url: str | None, runs: int, flush: int
) -> None:
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        where = Path(tmp)
        print(f"database folder: {where}")
        if url:
            print(f"PostgreSQL: {await server_settings(url)}")
        if flush:
            print(f"{flush} MB written before each move and each bare commit")
        found = []
        for number in range(runs):
            print(f"run {number + 1} of {runs}")
            found.append(await one_run(sizes, moves, where, url, Caches(flush)))
        summary(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--sizes", default="1,100,1000")
    parser.add_argument("--dir", type=Path, default=None, help="where the databases go")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--flush", type=int, default=0, help="MB written before each, untimed")
    parser.add_argument(
        "--postgres",
        default=os.environ.get("ORCHARD_TEST_PG") or None,
        help="a PostgreSQL server's URL: measure it beside SQLite (a schema of its own)",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    asyncio.run(run(sizes, args.moves, args.dir, args.postgres, args.runs, args.flush))


if __name__ == "__main__":
    main()
