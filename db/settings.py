"""Per-server settings (``guild_settings``), each person's own choice of turn pings there
(``ping_choices``), and the servers Orchard has left (``guild_departures``, kept 30 days before
the purge).

/forget-me (:func:`forget`) deletes the person's ping choice in that server (used in a direct
message, in every server holding one: :data:`PERSON_SERVERS`); the server's settings name no
person and stay. The purge of a departed server (:func:`purge`) deletes its settings, its
people's ping choices and its departure.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from db.connection import Database, Dialect, Transaction


async def guild_settings(db: Database, guild_id: int) -> dict[str, Any]:
    """A server's settings, by key: a move reads them (on a shared store, once 5 s old), so
    the read never waits behind leaderboards' aggregates."""
    rows = await db.lookup("SELECT settings FROM guild_settings WHERE guild_id = ?", (guild_id,))
    return dict(json.loads(rows[0][0])) if rows else {}


async def guilds_settings(db: Database, guild_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    """Many servers' settings in one query (those stored; a server absent has the defaults):
    a shard's servers all arrive at start-up, and one read each would be a query per server
    before play."""
    if not guild_ids:
        return {}
    marks = ", ".join("?" * len(guild_ids))
    rows = await db.fetchall(
        f"SELECT guild_id, settings FROM guild_settings WHERE guild_id IN ({marks})",
        tuple(guild_ids),
    )
    return {int(r[0]): dict(json.loads(r[1])) for r in rows}


async def ping_choice(db: Database, guild_id: int, user_id: int) -> bool | None:
    """True: the person wants turn pings by DM here; False: in the channel; None: no choice."""
    rows = await db.lookup(
        "SELECT dm FROM ping_choices WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
    )
    return bool(rows[0][0]) if rows else None


async def departed(db: Database) -> set[int]:
    """The servers Orchard has left (a few rows: they go after 30 days)."""
    return {int(r[0]) for r in await db.fetchall("SELECT guild_id FROM guild_departures")}


async def take_departed(tx: Transaction, before: float) -> list[int]:
    """The servers Orchard left before ``before``, due for the purge, their departures taken
    in the purge's own transaction: a server back meanwhile has none left to take."""
    rows = await tx.fetchall(
        "DELETE FROM guild_departures WHERE left_at < ? RETURNING guild_id", (before,)
    )
    return sorted(int(r[0]) for r in rows)


Change = Callable[[dict[str, Any]], dict[str, Any]]
"""A change of a server's stored settings: from what is stored to what to store."""


async def update_guild_settings(
    tx: Transaction, guild_id: int, change: Change, now: float
) -> dict[str, Any]:
    """Read, change and write a server's settings in one transaction, so that two updates at
    once each start from the other's result, never both from the same old settings: SQLite's
    writer runs transactions one at a time; PostgreSQL locks the row (``FOR UPDATE``), first
    inserting it if missing, as there must be a row to lock (a second inserter waits for the
    first to commit, then reads its row). ``change`` raising writes nothing."""
    lock = ""
    if tx.dialect is Dialect.POSTGRES:
        lock = " FOR UPDATE"
        await tx.execute(
            "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, '{}', ?)"
            " ON CONFLICT (guild_id) DO NOTHING",
            (guild_id, now),
        )
    rows = await tx.fetchall(
        f"SELECT settings FROM guild_settings WHERE guild_id = ?{lock}", (guild_id,)
    )
    new = change(dict(json.loads(rows[0][0])) if rows else {})
    await set_guild_settings(tx, guild_id, new, now)
    return new


async def set_guild_settings(
    tx: Transaction, guild_id: int, settings: dict[str, Any], now: float
) -> None:
    await tx.execute(
        "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, ?, ?)"
        " ON CONFLICT (guild_id) DO UPDATE SET settings = excluded.settings,"
        " updated_at = excluded.updated_at",
        (guild_id, json.dumps(settings, sort_keys=True), now),
    )


async def set_ping_choice(
    tx: Transaction, guild_id: int, user_id: int, dm: bool, now: float
) -> None:
    await tx.execute(
        "INSERT INTO ping_choices (guild_id, user_id, dm, updated_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (guild_id, user_id) DO UPDATE SET dm = excluded.dm,"
        " updated_at = excluded.updated_at",
        (guild_id, user_id, int(dm), now),
    )


async def guild_left(tx: Transaction, guild_id: int, when: float) -> None:
    """Start the 30 days; leaving twice keeps the first date."""
    await tx.execute(
        "INSERT INTO guild_departures (guild_id, left_at) VALUES (?, ?)"
        " ON CONFLICT (guild_id) DO NOTHING",
        (guild_id, when),
    )


async def guild_returned(tx: Transaction, guild_id: int) -> None:
    await tx.execute("DELETE FROM guild_departures WHERE guild_id = ?", (guild_id,))


PERSON_SERVERS: tuple[str, ...] = ("SELECT guild_id FROM ping_choices WHERE user_id = ?",)
"""The servers where a person has rows here (each query takes their id)."""


async def forget(tx: Transaction, guild_id: int, user_id: int) -> int:
    """The person's ping choice here (a server's own settings are not a person's data)."""
    return await tx.execute(
        "DELETE FROM ping_choices WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
    )


async def purge(tx: Transaction, guild_id: int) -> None:
    for table in ("guild_settings", "ping_choices", "guild_departures"):
        await tx.execute(f"DELETE FROM {table} WHERE guild_id = ?", (guild_id,))
