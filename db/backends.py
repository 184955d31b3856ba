"""Open the backend a target names: a ``postgresql://`` URL or a SQLite file's path."""

from __future__ import annotations

from db.connection import Database, Target, is_url
from db.sqlite import SqliteDatabase


async def open_database(target: Target) -> Database:
    """Open (creating and migrating as needed) the database ``target`` names."""
    if is_url(target):
        from db.postgres import PostgresDatabase  # asyncpg is an optional extra

        return await PostgresDatabase.open(str(target))
    return await SqliteDatabase.open(target)
