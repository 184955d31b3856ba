"""The one SQLite connection every storage topic shares, and how it is used safely.

One connection in autocommit mode; every write that must be atomic runs inside an explicit
``BEGIN IMMEDIATE`` under the lock, because coroutines share the connection and must not
interleave statements inside each other's transactions. Parameterised SQL only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from db.migrate import migrate

log = logging.getLogger(__name__)

PRAGMAS = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = FULL",
    "PRAGMA foreign_keys = ON",
    "PRAGMA busy_timeout = 5000",
    "PRAGMA secure_delete = ON",  # deleted and overwritten rows are zeroed, not left in free space
)


class Database:
    """The connection, its lock, and the two ways in: a transaction and a read."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str | Path) -> Database:
        """Open (creating folders and schema as needed) the database at ``path``."""
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(str(path), isolation_level=None)
        for pragma in PRAGMAS:
            await conn.execute(pragma)
        await migrate(conn)
        return cls(conn)

    async def close(self) -> None:
        await self.conn.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """The connection in one ``BEGIN IMMEDIATE``: committed on exit, rolled back on error."""
        async with self._lock:
            await self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                await self.conn.execute("ROLLBACK")
                raise
            await self.conn.execute("COMMIT")

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        async with self._lock:  # one trip to the database thread, not two
            return list(await self.conn.execute_fetchall(sql, tuple(params)))

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
