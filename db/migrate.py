"""Apply the numbered SQL files of ``db/migrations/<dialect>/`` in order, each inside one
transaction.

A file is applied once and recorded in ``schema_migrations`` (its number and file name); a fresh
database and an old one both end at the newest schema, and a failing file leaves the database
as it was. Each backend has its own folder, with the same numbers from 012 on (PostgreSQL's
first file is the SQLite schema as of 012): a change to the schema is one file in each folder,
under the same number. This module applies SQLite's; ``db.postgres`` applies PostgreSQL's
with the same bookkeeping, under an advisory lock.
"""

from __future__ import annotations

import re
import time
from functools import cache
from importlib import resources

import aiosqlite

from db.connection import Dialect

_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")
RECORD = "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)"
APPLIED = "SELECT 1 FROM schema_migrations WHERE version = ?"
NEWEST = "SELECT COALESCE(MAX(version), 0) FROM schema_migrations"


class NewerSchema(Exception):
    """The database was migrated by a newer Orchard than this one. Its rows then carry what
    this code would not keep up to date (a game's revision, its rules' edition), so this code
    refuses to run on it rather than write rows the newer one would misread."""

    def __init__(self, found: int, known: int) -> None:
        super().__init__(
            f"This database's schema is at migration {found}, newer than this Orchard knows "
            f"({known}): a newer version of Orchard upgraded it. Run that version here, and "
            "stop every older process that shares the database."
        )
        self.found = found
        self.known = known


def available(dialect: Dialect = Dialect.SQLITE) -> list[tuple[int, str, str]]:
    """Every migration shipped for ``dialect`` as (number, file name, SQL), in order."""
    found = []
    for entry in resources.files("db").joinpath("migrations", dialect.value).iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text("utf-8")))
    return sorted(found)


@cache
def newest(dialect: Dialect = Dialect.SQLITE) -> int:
    """The number of the last migration this code ships for ``dialect``."""
    return available(dialect)[-1][0]


def check_known(found: int, dialect: Dialect = Dialect.SQLITE) -> None:
    """Raise :class:`NewerSchema` if a database at migration ``found`` is past this code."""
    if found > newest(dialect):
        raise NewerSchema(found, newest(dialect))


def pending(
    version: int, upto: int | None = None, dialect: Dialect = Dialect.SQLITE
) -> list[tuple[int, str, str]]:
    """The migrations after ``version`` (up to ``upto``, default the newest), in order."""
    return [
        migration
        for migration in available(dialect)
        if version < migration[0] and (upto is None or migration[0] <= upto)
    ]


async def current_version(conn: aiosqlite.Connection) -> int:
    await conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
    )
    async with conn.execute(NEWEST) as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def migrate(conn: aiosqlite.Connection, upto: int | None = None) -> int:
    """Bring ``conn`` (opened in autocommit mode) to migration ``upto`` (default: newest).
    Another process may open the file at once: each file is applied by whichever takes the
    write lock first, and skipped by the other. A file a newer Orchard migrated is refused
    (:class:`NewerSchema`)."""
    version = await current_version(conn)
    check_known(version)
    for number, name, sql in pending(version, upto):
        await _apply(conn, number, name, sql)
        version = number
    return version


async def _apply(conn: aiosqlite.Connection, number: int, name: str, sql: str) -> None:
    """Apply one file in one transaction, unless it was applied since the version was read:
    that read took no lock, so it is made again once the write lock is held."""
    await conn.execute("BEGIN IMMEDIATE")
    try:
        async with conn.execute(APPLIED, (number,)) as cur:
            applied = await cur.fetchone() is not None
        if not applied:
            for statement in _statements(sql):
                await conn.execute(statement)
            await conn.execute(RECORD, (number, name, time.time()))
        await conn.execute("COMMIT")
    except BaseException:
        await conn.execute("ROLLBACK")
        raise


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (our files keep ';' out of strings and comments)."""
    lines = [line for line in sql.splitlines() if not line.lstrip().startswith("--")]
    return [part.strip() for part in "\n".join(lines).split(";") if part.strip()]
