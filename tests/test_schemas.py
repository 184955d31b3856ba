"""The two backends' migrations end at the same schema: tables, columns (nullability and a
type family each), and indexes by name with their table, columns, uniqueness and the rows a
partial one covers (its condition, written alike: a partial index of the wrong rows would
still give right answers, slowly, on one backend only).

SQLite's files and PostgreSQL's are written apart (their types differ); this is what keeps a
change made to one from being forgotten in the other.
"""

from __future__ import annotations

import re
from pathlib import Path

import asyncpg
import pytest

from db.connection import Dialect
from db.migrate import available
from db.postgres import PostgresDatabase
from db.sqlite import SqliteDatabase
from tests.databases import fresh_schema

pytestmark = pytest.mark.postgres

Columns = dict[str, dict[str, tuple[str, bool]]]  # table: column: (family, nullable)
Indexes = dict[
    str, tuple[str, tuple[str, ...], bool, tuple[str, ...]]
]  # name: table, columns, unique, condition (see predicate)

FAMILY = {
    "INTEGER": "integer",
    "BIGINT": "integer",
    "SMALLINT": "integer",
    "TEXT": "text",
    "REAL": "float",
    "DOUBLE PRECISION": "float",
}


def predicate(condition: str | None) -> tuple[str, ...]:
    """A partial index's condition as words and values, either backend's spelling: ``status
    IN ('lobby', 'active')`` and PostgreSQL's ``(status = ANY (ARRAY['lobby'::text,
    'active'::text]))`` both read ``status 'lobby' 'active'``, and ``NOT IN`` and ``<> ALL``
    both ``not``. Empty: not partial."""
    if condition is None:
        return ()
    plain = re.sub(r"::[a-z ]+", "", re.sub(r"<>\s*all\b", "not", condition.lower()))
    words = re.findall(r"'[^']*'|\w+|<>|[<>]=?|!=", plain)
    return tuple(word for word in words if word not in ("in", "any", "array"))


async def sqlite_schema(path: Path) -> tuple[Columns, Indexes]:
    db = await SqliteDatabase.open(path)
    try:
        tables = [
            r[0]
            for r in await db.fetchall(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name <> 'schema_migrations'"
            )
        ]
        columns: Columns = {}
        indexes: Indexes = {}
        for table in tables:
            info = await db.fetchall(f"PRAGMA table_info({table})")
            # (cid, name, type, notnull, default, pk): a primary key's columns are never NULL
            columns[table] = {r[1]: (FAMILY[r[2]], not (r[3] or r[5])) for r in info}
            for _, name, unique, origin, partial in await db.fetchall(
                f"PRAGMA index_list({table})"
            ):
                if origin == "c":  # created by CREATE INDEX, not a primary key's
                    cols = tuple(r[2] for r in await db.fetchall(f"PRAGMA index_info({name})"))
                    where = await condition(db, name)
                    assert bool(where) == bool(partial), f"{name}'s condition was read"
                    indexes[name] = (table, cols, bool(unique), where)
        return columns, indexes
    finally:
        await db.close()


async def condition(db: SqliteDatabase, index: str) -> tuple[str, ...]:
    """A SQLite index's condition (see predicate), from the statement that made it."""
    (sql,) = await db.fetchall("SELECT sql FROM sqlite_master WHERE name = ?", (index,))
    _, where, rest = sql[0].partition(" WHERE ")
    return predicate(rest if where else None)


async def postgres_schema(url: str) -> tuple[Columns, Indexes]:
    conn = await asyncpg.connect(url)
    try:
        columns: Columns = {}
        for table, column, kind, nullable in await conn.fetch(
            "SELECT table_name, column_name, upper(data_type), is_nullable = 'YES'"
            " FROM information_schema.columns WHERE table_schema = current_schema()"
            " AND table_name <> 'schema_migrations'"
        ):
            columns.setdefault(table, {})[column] = (FAMILY[kind], nullable)
        indexes: Indexes = {}
        for name, table, cols, unique, partial in await conn.fetch(
            "SELECT ic.relname, tc.relname, array_agg(a.attname ORDER BY k.ord),"
            " i.indisunique, pg_get_expr(i.indpred, i.indrelid)"
            " FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid"
            " JOIN pg_class tc ON tc.oid = i.indrelid"
            " JOIN pg_namespace n ON n.oid = ic.relnamespace"
            " CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)"
            " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum"
            " WHERE n.nspname = current_schema() AND NOT i.indisprimary"
            " GROUP BY ic.relname, tc.relname, i.indisunique, i.indpred, i.indrelid"
        ):
            indexes[name] = (table, tuple(cols), unique, predicate(partial))
        return columns, indexes
    finally:
        await conn.close()


async def test_both_backends_migrate_to_the_same_schema(tmp_path: Path) -> None:
    lite_columns, lite_indexes = await sqlite_schema(tmp_path / "o.db")
    async with fresh_schema() as url:
        await (await PostgresDatabase.open(url)).close()
        pg_columns, pg_indexes = await postgres_schema(url)
    assert len(lite_columns) >= 12 and len(lite_indexes) >= 12, "the schema was read"
    assert pg_columns == lite_columns
    assert pg_indexes == lite_indexes


def test_later_migrations_carry_the_same_number_on_both_backends() -> None:
    """PostgreSQL's first file is SQLite's schema as of 012; from there on they go in step."""
    lite = [number for number, _, _ in available(Dialect.SQLITE)]
    pg = [number for number, _, _ in available(Dialect.POSTGRES)]
    assert pg[0] == 12 and lite[: lite.index(12) + 1] == list(range(1, 13))
    assert pg == lite[lite.index(12) :]


def test_each_migration_has_a_number_of_its_own() -> None:
    """A database records the numbers it applied, not the files: a second file under a number
    already applied would be passed over for good. So numbers run 1, 2, 3... with no two the
    same, and from 013 on each number names one change on both backends."""
    lite = available(Dialect.SQLITE)
    pg = available(Dialect.POSTGRES)
    assert [number for number, _, _ in lite] == list(range(1, len(lite) + 1))
    assert [number for number, _, _ in pg] == list(range(12, 12 + len(pg)))
    assert [name for number, name, _ in lite if number > 12] == [name for _, name, _ in pg[1:]]
