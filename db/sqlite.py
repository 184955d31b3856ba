"""The SQLite backend of :class:`db.connection.Database`: a file, and how it is used safely.

One writer in autocommit mode: every write that must be atomic runs inside an explicit
``BEGIN IMMEDIATE`` under the lock, because coroutines share it and must not interleave
statements inside each other's transactions. Reads go to read-only connections of their own,
each on its own thread: WAL lets them read the last commit while the writer writes, so a
leaderboard's aggregate never queues a move behind it. Parameterised SQL only.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import cast

import aiosqlite

from db.connection import Dialect, Params, Row
from db.migrate import migrate

log = logging.getLogger(__name__)

PRAGMAS = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = FULL",
    "PRAGMA foreign_keys = ON",
    "PRAGMA busy_timeout = 5000",
    "PRAGMA secure_delete = ON",  # deleted and overwritten rows are zeroed, not left in free space
)


READERS = 2  # read connections: one per core is enough for reads that wait on the disk
READER_PRAGMAS = ("PRAGMA query_only = ON", "PRAGMA busy_timeout = 5000")


class SqliteTransaction:
    """The writer inside one ``BEGIN IMMEDIATE``: each call is one trip to its thread."""

    dialect = Dialect.SQLITE

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn

    async def execute(self, sql: str, params: Params = ()) -> int:
        return (await self.conn.execute(sql, params)).rowcount

    async def executemany(self, sql: str, rows: Iterable[Params]) -> int:
        return (await self.conn.executemany(sql, rows)).rowcount

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        return cast(list[Row], list(await self.conn.execute_fetchall(sql, params)))

    async def insert(self, sql: str, params: Params = ()) -> int:
        rows = await self.conn.execute_fetchall(sql, params)
        return int(next(iter(rows))[0])


class SqliteDatabase:
    """The writer, its lock, the readers, and the two ways in: a transaction and a read."""

    dialect = Dialect.SQLITE

    def __init__(
        self, conn: aiosqlite.Connection, readers: Sequence[aiosqlite.Connection] = ()
    ) -> None:
        self.conn = conn
        self.readers = tuple(readers)
        self._lock = asyncio.Lock()
        self._turn = itertools.count()
        self._tx = SqliteTransaction(conn)

    @classmethod
    async def open(cls, path: str | Path, readers: int = READERS) -> SqliteDatabase:
        """Open (creating folders and schema as needed) the database at ``path``, and its
        read connections (none for an in-memory database, which only the writer can see)."""
        memory = str(path) == ":memory:"
        if not memory:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(str(path), isolation_level=None)
        for pragma in PRAGMAS:
            await conn.execute(pragma)
        await migrate(conn)
        return cls(conn, [] if memory else [await _reader(path) for _ in range(readers)])

    async def close(self) -> None:
        for reader in self.readers:
            await reader.close()
        await self.conn.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SqliteTransaction]:
        """The writer in one ``BEGIN IMMEDIATE``: committed on exit, rolled back on error."""
        async with self._lock:
            try:
                # Inside the try: a task cancelled while awaiting BEGIN (at shutdown) still
                # has it run on the thread, and must not leave it open for the next writer.
                await self.conn.execute("BEGIN IMMEDIATE")
                yield self._tx
            except BaseException:
                await _rollback(self.conn)
                raise
            await self.conn.execute("COMMIT")

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        """One read, on a read connection (taking turns), in one trip to its thread."""
        if not self.readers:
            async with self._lock:
                return cast(list[Row], list(await self.conn.execute_fetchall(sql, params)))
        reader = self.readers[next(self._turn) % len(self.readers)]
        return cast(list[Row], list(await reader.execute_fetchall(sql, params)))

    async def checkpoint(self) -> None:
        """Copy the -wal file into the database and empty it (TRUNCATE).

        Until then the -wal file keeps old copies of pages, with rows since deleted or
        overwritten: /forget-me and the purge call this once their rows are gone.
        ``secure_delete`` zeroes deleted rows and freed pages, but not the unused gap of a page
        SQLite rebuilt when it rebalanced its tree, where an older copy of a row can (rarely)
        remain; only VACUUM rewrites those, and it would hold every game for about a second
        per 50 MB, so it is not run here.
        """
        async with self._lock:
            rows = await self.conn.execute_fetchall("PRAGMA wal_checkpoint(TRUNCATE)")
        if any(row[0] for row in rows):
            log.warning("a reader blocked the checkpoint: old pages stay in the -wal file for now")


async def _rollback(conn: aiosqlite.Connection) -> None:
    """Roll back whatever is open; queued behind a BEGIN still running, so it follows it."""
    with contextlib.suppress(sqlite3.OperationalError):  # the BEGIN failed: nothing is open
        await conn.execute("ROLLBACK")


async def _reader(path: str | Path) -> aiosqlite.Connection:
    """A connection that only reads: it sees every commit made before each of its reads."""
    conn = await aiosqlite.connect(str(path), isolation_level=None)
    for pragma in READER_PRAGMAS:
        await conn.execute(pragma)
    return conn
