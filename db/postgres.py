"""The PostgreSQL backend of :class:`db.connection.Database`, through asyncpg.

A pool of connections: each transaction takes one for its duration, and reads take one for a
statement. Reads that may scan many rows are bounded (:data:`READS`), so however many
leaderboards are asked for, a move never queues behind their aggregates. Topic modules write
``?`` placeholders; :func:`numbered` rewrites them to PostgreSQL's ``$1, $2…`` once per
distinct statement (cached), and asyncpg prepares each statement once per connection.
Migrations (``db/migrations/postgres/``) run under an advisory lock, so processes starting
together on one database migrate it once.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from functools import lru_cache
from typing import cast

import asyncpg

from db.connection import Dialect, Params, Row
from db.migrate import NEWEST, RECORD, check_known, pending

POOL_SIZE = 10
# Connections transactions may never take: the leader's advisory lock keeps one for as long
# as it leads, and a read made inside a transaction (a settings cache miss in a move) needs
# another. Were every connection held by a transaction waiting for such a read, none would
# ever come back: the process would hang (seen on two processes restarted mid-game night).
RESERVED = 2
# Reads outside a transaction (``fetchall``: a leaderboard's aggregate, /stats, /history) that
# may hold a connection at once. An aggregate holds one for 20-55 ms, and someone repeating
# /leaderboard asked for them faster than they finished: unbounded, they held every connection
# and moves queued behind them, in every server. Bounded, the leader and these leave the rest
# of the pool to transactions. Reads by key (``lookup``: a game, a server's settings) are
# not counted: moves make them, and they never hold a connection for long.
READS = 4
IDLE_IN_TRANSACTION_SECONDS = 60.0
"""How long the server lets a pooled connection sit idle inside a transaction before it ends
the session, and with it the transaction and the game locks it holds. A process stopped
mid-transaction (SIGSTOP, a network partition) otherwise holds its games' locks until TCP
notices, which can be hours, and every click on those games in the other processes waits for
them. Orchard's own longest idle gap in a transaction is far shorter: Orchard's seat deciding
its move in a thread (up to ~50 ms for a word search); the IDENTIFY turn is sub-second, and
migrations send their statements back to back."""
# Keys of the session-level advisory locks Orchard takes (one number space per database).
MIGRATION_LOCK = 0x4F52_4348_0001  # "ORCH", 1: applying migrations
IDLE_SETTING = "idle_in_transaction_session_timeout"  # in milliseconds

_LITERAL = re.compile(r"('(?:[^']|'')*')")  # a quoted string: its '?' are not placeholders


@lru_cache(maxsize=1024)
def numbered(sql: str) -> str:
    """``sql`` with each ``?`` placeholder (outside quoted strings) as ``$1``, ``$2``…"""
    count = itertools.count(1)
    return "".join(
        part if index % 2 else re.sub(r"\?", lambda _: f"${next(count)}", part)
        for index, part in enumerate(_LITERAL.split(sql))
    )


def changed(status: str) -> int:
    """The rows a statement changed, from its status ("UPDATE 1", "INSERT 0 1", "DELETE 3")."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class PostgresTransaction:
    """One pooled connection inside one transaction."""

    dialect = Dialect.POSTGRES

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    async def execute(self, sql: str, params: Params = ()) -> int:
        return changed(await self.conn.execute(numbered(sql), *params))

    async def executemany(self, sql: str, rows: Iterable[Params]) -> int:
        """One prepared statement run per row (asyncpg's own ``executemany`` cannot say how
        many rows changed, and a guarded batch must know)."""
        statement = numbered(sql)
        return sum([changed(await self.conn.execute(statement, *row)) for row in rows])

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        return cast(list[Row], await self.conn.fetch(numbered(sql), *params))

    async def lookup(self, sql: str, params: Params = ()) -> list[Row]:
        return await self.fetchall(sql, params)

    async def insert(self, sql: str, params: Params = ()) -> int:
        return int(await self.conn.fetchval(numbered(sql), *params))


class PostgresDatabase:
    """A pool on one database, migrated when opened."""

    dialect = Dialect.POSTGRES

    def __init__(self, pool: asyncpg.Pool, pool_size: int = POOL_SIZE) -> None:
        self.pool = pool
        self._transactions = asyncio.Semaphore(max(1, pool_size - RESERVED))
        self._reads = asyncio.Semaphore(max(1, min(READS, pool_size - RESERVED - 1)))

    @classmethod
    async def open(
        cls,
        url: str,
        pool_size: int = POOL_SIZE,
        idle_timeout: float | None = IDLE_IN_TRANSACTION_SECONDS,
    ) -> PostgresDatabase:
        """Connect to ``url`` (any libpq-style URL asyncpg accepts) and migrate it. A session
        idle in a transaction for ``idle_timeout`` seconds is ended by the server (None: the
        server's own setting)."""
        settings = {} if idle_timeout is None else {IDLE_SETTING: f"{round(idle_timeout * 1000)}"}
        pool = await asyncpg.create_pool(
            url, min_size=1, max_size=pool_size, reset=_session_kept, server_settings=settings
        )
        try:
            async with pool.acquire() as conn:
                await migrate(conn)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, pool_size)

    async def close(self) -> None:
        await self.pool.close()

    @asynccontextmanager
    async def transaction(self, large: bool = False) -> AsyncIterator[PostgresTransaction]:
        """A connection of the pool in one transaction (READ COMMITTED): committed on exit,
        rolled back on error. Writes that must not interleave lock their rows. (``large``
        changes nothing here: the server does the work, never this process's loop.) At most
        the pool's size less :data:`RESERVED` at once, so a read never waits for ever."""
        async with self._transactions, self.pool.acquire() as conn, conn.transaction():
            yield PostgresTransaction(conn)

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        """One read, at most :data:`READS` at once: it may scan many rows."""
        async with self._reads:
            return cast(list[Row], await self.pool.fetch(numbered(sql), *params))

    async def lookup(self, sql: str, params: Params = ()) -> list[Row]:
        """One read by key, never waiting for a read slot: a move makes them, and a
        leaderboard's aggregate must not delay one."""
        return cast(list[Row], await self.pool.fetch(numbered(sql), *params))

    async def checkpoint(self) -> None:
        """Nothing to do: PostgreSQL's write-ahead log is recycled by the server itself, and
        VACUUM (autovacuum) reclaims deleted rows' space; neither can be forced cheaply here."""


async def _session_kept(conn: asyncpg.Connection) -> None:
    """A connection goes back to the pool as it is (asyncpg has rolled back any transaction).
    asyncpg's default reset is one more round trip per read and per transaction (a query that
    releases advisory locks, closes cursors, unlistens and resets settings), a twelfth of a
    bot process's time in a game night; Orchard leaves none of those behind, and the two
    session locks it takes are released by name (migrations) or on resigning (the leader)."""


async def migrate(conn: asyncpg.Connection, upto: int | None = None) -> int:
    """Bring the database (the schema first on the connection's search_path) to migration
    ``upto`` (default: newest), holding :data:`MIGRATION_LOCK` throughout. A schema a newer
    Orchard migrated is refused (:class:`db.migrate.NewerSchema`)."""
    await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    try:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
            " name TEXT NOT NULL, applied_at DOUBLE PRECISION NOT NULL)"
        )
        version = int(await conn.fetchval(NEWEST))
        check_known(version, Dialect.POSTGRES)
        for number, name, sql in pending(version, upto, Dialect.POSTGRES):
            async with conn.transaction():
                await conn.execute(sql)
                await conn.execute(numbered(RECORD), number, name, time.time())
            version = number
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
    return version
