"""The databases tests run on: a SQLite file, or a schema of its own on a PostgreSQL server.

PostgreSQL tests carry the ``postgres`` marker and use the server whose URL is in
``ORCHARD_TEST_PG`` (any database the user may create schemas in). Each test gets a fresh,
empty schema, named in its URL's ``search_path`` (asyncpg passes unknown URL parameters to the
server as settings), and dropped after: tests never share tables, on one worker or several.
Without ``ORCHARD_TEST_PG`` they skip, unless ``ORCHARD_REQUIRE_PG`` is set (CI sets it),
where a skip would hide that they never ran: then they fail.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest

from db.backends import open_database
from db.connection import Database, Dialect, Target, Transaction, is_url
from db.sqlite import SqliteDatabase
from db.store import Store

SERVER = "ORCHARD_TEST_PG"
REQUIRED = "ORCHARD_REQUIRE_PG"
BACKENDS = (
    pytest.param(Dialect.SQLITE, id="sqlite"),
    pytest.param(Dialect.POSTGRES, id="postgres", marks=pytest.mark.postgres),
)


def server_url() -> str:
    """The test server's URL; skips the test (fails it, where required) without one."""
    url = os.environ.get(SERVER, "").strip()
    if not url:
        message = f"no PostgreSQL server: set {SERVER} to a postgresql:// URL"
        if os.environ.get(REQUIRED):
            pytest.fail(f"{message} ({REQUIRED} is set: these tests must run)")
        pytest.skip(message)
    return url


def with_schema(url: str, schema: str) -> str:
    """``url`` with ``schema`` as the connection's ``search_path``."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "search_path"]
    return urlunsplit(parts._replace(query=urlencode([*query, ("search_path", schema)])))


@asynccontextmanager
async def fresh_schema(url: str | None = None) -> AsyncIterator[str]:
    """A new empty schema on the test server, as a URL whose tables live in it; dropped after."""
    import asyncpg

    url = url or server_url()
    schema = f"test_{uuid.uuid4().hex[:16]}"
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f"CREATE SCHEMA {schema}")
        try:
            yield with_schema(url, schema)
        finally:
            await conn.execute(f"DROP SCHEMA {schema} CASCADE")
    finally:
        await conn.close()


@asynccontextmanager
async def written(target: Target) -> AsyncIterator[Transaction]:
    """One transaction on ``target`` beside whatever else has it open: rows a test writes by
    hand, committed on exit. The SQL is the topic modules' kind (``?``), on either backend."""
    db = await open_database(target)
    try:
        async with db.transaction() as tx:
            yield tx
    finally:
        await db.close()


async def query(target: Target, sql: str, *params: object) -> list[tuple[Any, ...]]:
    """The rows of one read of ``target``, as tuples (a test's view of what is stored)."""
    db = await open_database(target)
    try:
        return [tuple(row) for row in await db.fetchall(sql, params)]
    finally:
        await db.close()


async def table_columns(target: Target) -> dict[str, list[str]]:
    """Every table of ``target`` (its migrations' bookkeeping too) with its columns."""
    if is_url(target):
        found: dict[str, list[str]] = {}
        for table, column in await query(
            target,
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position",
        ):
            found.setdefault(table, []).append(column)
        return found
    tables = await query(target, "SELECT name FROM sqlite_master WHERE type = 'table'")
    return {
        table: [r[1] for r in await query(target, f"PRAGMA table_info({table})")]
        for (table,) in tables
    }


class Killed(BaseException):
    """The process dying mid-transaction: no ``except Exception`` catches it, and nothing of
    that transaction is committed."""


class _Dying:
    """A transaction in which a statement starting with ``statement`` kills the process."""

    def __init__(self, tx: Transaction, statement: str) -> None:
        self._tx, self._statement = tx, statement

    def _check(self, sql: str) -> None:
        if sql.lstrip().startswith(self._statement):
            raise Killed(sql)

    async def execute(self, sql: str, params: Any = ()) -> int:
        self._check(sql)
        return await self._tx.execute(sql, params)

    async def executemany(self, sql: str, rows: Any) -> int:
        self._check(sql)
        return await self._tx.executemany(sql, rows)

    async def insert(self, sql: str, params: Any = ()) -> int:
        self._check(sql)
        return await self._tx.insert(sql, params)

    def __getattr__(self, name: str) -> Any:  # its reads and dialect
        return getattr(self._tx, name)


def kill_at(monkeypatch: pytest.MonkeyPatch, db: Database, statement: str) -> None:
    """A fault injected at the database: a statement on ``db`` that starts with ``statement``
    raises :class:`Killed` inside its transaction, which is rolled back, as in a process
    killed there. The restart is the test's: close, and open the database again."""
    real = db.transaction

    @asynccontextmanager
    async def transaction(large: bool = False) -> AsyncIterator[Any]:
        async with real(large) as tx:
            yield _Dying(tx, statement)

    monkeypatch.setattr(db, "transaction", transaction)


# Every read of the results table sleeps once, in the database: a leaderboard's aggregate as
# slow as a big server's, with the Store, its connections and its SQL as they are.
SLOW_RESULTS = """
ALTER TABLE results RENAME TO results_stored;
CREATE FUNCTION slowly() RETURNS boolean LANGUAGE sql VOLATILE
    AS 'SELECT pg_sleep({seconds}); SELECT true';
CREATE VIEW results AS SELECT * FROM results_stored WHERE (SELECT slowly());
"""


async def slowed_results(store: Store, seconds: float) -> None:
    """Make every read of ``store``'s results table take ``seconds`` longer (reads only: the
    table is a view from then on). On SQLite the sleep runs on the read connection's thread."""
    db = store.db
    if isinstance(db, SqliteDatabase):
        for reader in db.readers:
            await reader.create_function("slowly", 0, lambda: time.sleep(seconds) or 1)
        async with db.transaction() as tx:
            await tx.execute("ALTER TABLE results RENAME TO results_stored")
            await tx.execute(
                "CREATE VIEW results AS SELECT * FROM results_stored WHERE (SELECT slowly())"
            )
        return
    async with db.transaction() as tx:
        await tx.execute(SLOW_RESULTS.format(seconds=seconds))
