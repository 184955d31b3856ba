"""Per-server settings (``guild_settings``) and the servers Orchard has left
(``guild_departures``, kept 30 days before the purge).

/forget-me (:func:`forget`) deletes nothing here: settings belong to the server and name no
person. The purge of a departed server (:func:`purge`) deletes its settings and its departure.
"""

from __future__ import annotations

import json
from typing import Any

import aiosqlite

from db.connection import Database


async def guild_settings(db: Database, guild_id: int) -> dict[str, Any]:
    rows = await db.fetchall("SELECT settings FROM guild_settings WHERE guild_id = ?", (guild_id,))
    return dict(json.loads(rows[0][0])) if rows else {}


async def departed(db: Database, before: float) -> list[int]:
    """The servers Orchard left before ``before``: the ones due for the purge."""
    rows = await db.fetchall("SELECT guild_id FROM guild_departures WHERE left_at < ?", (before,))
    return [int(r[0]) for r in rows]


async def set_guild_settings(
    conn: aiosqlite.Connection, guild_id: int, settings: dict[str, Any], now: float
) -> None:
    await conn.execute(
        "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, ?, ?)"
        " ON CONFLICT (guild_id) DO UPDATE SET settings = excluded.settings,"
        " updated_at = excluded.updated_at",
        (guild_id, json.dumps(settings, sort_keys=True), now),
    )


async def guild_left(conn: aiosqlite.Connection, guild_id: int, when: float) -> None:
    """Start the 30 days; leaving twice keeps the first date."""
    await conn.execute(
        "INSERT INTO guild_departures (guild_id, left_at) VALUES (?, ?)"
        " ON CONFLICT (guild_id) DO NOTHING",
        (guild_id, when),
    )


async def guild_returned(conn: aiosqlite.Connection, guild_id: int) -> None:
    await conn.execute("DELETE FROM guild_departures WHERE guild_id = ?", (guild_id,))


async def forget(conn: aiosqlite.Connection, guild_id: int, user_id: int) -> int:
    """Nothing: a server's settings are not a person's data."""
    return 0


async def purge(conn: aiosqlite.Connection, guild_id: int) -> None:
    for table in ("guild_settings", "guild_departures"):
        await conn.execute(f"DELETE FROM {table} WHERE guild_id = ?", (guild_id,))
