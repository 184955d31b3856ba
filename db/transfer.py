"""``orchard migrate-db``: copy a SQLite database into an empty PostgreSQL one.

Every table, games in play included, ids kept (a game's buttons carry its id), in one
transaction on the target: it is refused if the target holds any row, and rolled back unless
every table's row count then equals the source's. The identity behind ``games.id`` is moved
past the largest id copied and any a purge deleted (:data:`db.games.ID_FLOOR`), so the next
game gets an id no game ever had.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg

from db.games import ID_FLOOR
from db.postgres import PostgresDatabase
from db.sqlite import SqliteDatabase

# Every table, parents before the tables that point at them.
TABLES = (
    "games",
    "game_players",
    "moves",
    "results",
    "ratings",
    "rating_history",
    "tile_dms",
    "turn_pings",
    "boards_to_draw",
    "guild_settings",
    "ping_choices",
    "guild_departures",
    "meta",
    "daily_plays",
    "daily_world",
    "daily_channels",
    "daily_boards",
)
BATCH = 10_000  # rows read from SQLite and sent by COPY at a time


class TransferError(Exception):
    """The copy was refused or did not verify; the target is left as it was."""


async def copy_database(source: Path, target: str) -> dict[str, int]:
    """Copy ``source`` (migrated first to the newest schema) into ``target``; returns each
    table's row count, verified equal on both sides."""
    await _only_orchards(target)
    lite = await SqliteDatabase.open(source)
    try:
        # No idle limit: the copy holds no game's lock, runs with every bot stopped, and
        # reads each batch from SQLite inside its one transaction.
        server = await PostgresDatabase.open(target, idle_timeout=None)
        try:
            return await _copy(lite, server)
        finally:
            await server.close()
    finally:
        await lite.close()


async def _only_orchards(target: str) -> None:
    """Refuse a target holding tables that are not Orchard's (a URL naming another program's
    database), before Orchard's own are made there."""
    conn = await asyncpg.connect(target)
    try:
        rows = await conn.fetch(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        )
    finally:
        await conn.close()
    others = sorted({str(r[0]) for r in rows} - {*TABLES, "schema_migrations"})
    if others:
        raise TransferError(
            f"the target database is not empty (it has tables that are not Orchard's: "
            f"{', '.join(others[:5])}); give an empty one"
        )


async def _copy(lite: SqliteDatabase, server: PostgresDatabase) -> dict[str, int]:
    counts: dict[str, int] = {}
    async with server.pool.acquire() as conn, conn.transaction():
        for table in TABLES:
            if await conn.fetchval(f"SELECT EXISTS (SELECT 1 FROM {table})"):
                raise TransferError(f"the target database is not empty (table {table} has rows)")
        for table in TABLES:
            columns = [str(r[1]) for r in await lite.fetchall(f"PRAGMA table_info({table})")]
            async for rows in _batches(lite, table, columns):
                await conn.copy_records_to_table(table, records=rows, columns=columns)
            (copied,) = (await lite.fetchall(f"SELECT COUNT(*) FROM {table}"))[0]
            arrived = await conn.fetchval(f"SELECT COUNT(*) FROM {table}")
            if arrived != copied:
                raise TransferError(f"{table}: {copied} rows in the source, {arrived} copied")
            counts[table] = int(copied)
        # Games' ids go on past the largest copied, and past any a purge deleted.
        await conn.execute(
            "SELECT setval(pg_get_serial_sequence('games', 'id'), GREATEST(last, 1), last > 0)"
            " FROM (SELECT GREATEST(COALESCE(MAX(id), 0), COALESCE((SELECT CAST(value AS BIGINT)"
            " FROM meta WHERE key = $1), 0)) AS last FROM games) AS copied",
            ID_FLOOR,
        )
    return counts


async def _batches(
    lite: SqliteDatabase, table: str, columns: list[str]
) -> AsyncIterator[list[tuple[object, ...]]]:
    """The table's rows in rowid order, ``BATCH`` at a time (a big move log never sits in
    memory whole)."""
    after = -(2**63)
    while True:
        rows = await lite.fetchall(
            f"SELECT rowid, {', '.join(columns)} FROM {table} WHERE rowid > ?"
            " ORDER BY rowid LIMIT ?",
            (after, BATCH),
        )
        if not rows:
            return
        after = rows[-1][0]
        yield [tuple(row[1:]) for row in rows]
