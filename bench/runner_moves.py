"""Per-move cost of the runner in-process, with 1, 100 and 1,000 games in play at once.

    python bench/runner_moves.py [--moves 2000] [--sizes 1,100,1000]

The runner publishes to a Recorder (no Discord) on a real SQLite file (WAL, synchronous=FULL)
in a temporary folder. Moves are interleaved round-robin over the games; a finished game is
replaced by a new one. Side by side: one bare aiosqlite insert-and-commit on the same settings,
which is the floor a committed move cannot go below (one fsync'd transaction). One bare commit
follows each move, so both see the same moments of a shared machine; a move's p99 is given
as a multiple of the bare commits' p99.
"""

from __future__ import annotations

import argparse
import asyncio
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

    @classmethod
    async def open(cls, path: Path) -> Bare:
        conn = await aiosqlite.connect(str(path), isolation_level=None)
        await conn.execute("PRAGMA journal_mode = WAL")
        await conn.execute("PRAGMA synchronous = FULL")
        await conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, game INTEGER, body TEXT)")
        return cls(conn)

    async def commit(self) -> None:
        began = time.perf_counter()
        await self.conn.execute("BEGIN IMMEDIATE")
        await self.conn.execute("INSERT INTO t (game, body) VALUES (?, ?)", (1, "x" * 300))
        await self.conn.execute("COMMIT")
        self.samples.append(time.perf_counter() - began)


async def runner_moves(folder: Path, games: int, moves: int, bare: Bare) -> list[float]:
    """``moves`` moves round-robin over ``games`` games, each followed by a bare commit."""
    o = await orchard(folder / f"runner-{games}.db")
    try:
        table = [await new_game(o, n) for n in range(games)]
        made = games
        samples: list[float] = []
        while len(samples) < moves:
            for i, live in enumerate(table):
                kind, arg = next_action(live.state)
                user = live.row.players[0].user_id
                began = time.perf_counter()
                live = await o.runner.act(live.id, user, kind, arg, version=live.row.version)
                samples.append(time.perf_counter() - began)
                await bare.commit()
                if live.row.status != "active":
                    made += 1
                    live = await new_game(o, made)
                table[i] = live
                if len(samples) >= moves:
                    break
        o.shown.shown.clear()
        return samples
    finally:
        await o.close()


async def run(sizes: list[int], moves: int, folder: Path | None) -> None:
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        where = Path(tmp)
        print(f"database folder: {where}")
        for games in sizes:
            bare = await Bare.open(where / f"bare-{games}.db")
            try:
                samples = await runner_moves(where, games, moves, bare)
            finally:
                await bare.conn.close()
            print(
                f"runner.act, {games:>5} games in play: {figures(samples)}  ({len(samples)} moves)"
            )
            print(
                f"  bare insert + commit between them: {figures(bare.samples)}; "
                f"move p99 {p99(samples) / p99(bare.samples):.1f}× a bare commit's"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--sizes", default="1,100,1000")
    parser.add_argument("--dir", type=Path, default=None, help="where the databases go")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    asyncio.run(run(sizes, args.moves, args.dir))


if __name__ == "__main__":
    main()
