"""Orchard's own bookkeeping (``meta``, key and value): the digest of the slash commands last
synced with Discord, globally or to the development server; each process's gateway heartbeat
(:mod:`bot.health`); on PostgreSQL, the turns of the shared IDENTIFY bucket (:mod:`db.shared`).

/forget-me (:func:`forget`) and the purge of a departed server (:func:`purge`) delete nothing
here: no value is a person's or a server's data.
"""

from __future__ import annotations

from db.connection import Database, Transaction


async def get_meta(db: Database, key: str) -> str | None:
    rows = await db.fetchall("SELECT value FROM meta WHERE key = ?", (key,))
    return str(rows[0][0]) if rows else None


async def set_meta(tx: Transaction, key: str, value: str) -> None:
    await tx.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


PERSON_SERVERS: tuple[str, ...] = ()  # no value is a person's


async def forget(tx: Transaction, guild_id: int, user_id: int) -> int:
    """Nothing: no value is a person's."""
    return 0


async def purge(tx: Transaction, guild_id: int) -> None:
    """Nothing: no value is a server's (a digest names at most the development server)."""
