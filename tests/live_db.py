"""The SQLite connections a running Store holds, found by type rather than by attribute name.

The store's insides are its own (one connection today, perhaps a read connection beside it
tomorrow); a test that reads the live connection's pragmas back, or a bench that turns fsync
off while it only fills a database, looks for every SQLite connection reachable from the store
(the writer is a plain ``sqlite3.Connection``, the readers ``aiosqlite`` ones) instead of
naming a private attribute.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

import aiosqlite

DEPTH = 4


Connection = aiosqlite.Connection | sqlite3.Connection


def connections(store: object) -> list[Connection]:
    """Every SQLite connection reachable from ``store`` through attributes, lists and
    dicts of Orchard's own objects (``db``, ``bot``), at most ``DEPTH`` steps away."""
    found: list[Connection] = []
    seen: set[int] = set()

    def visit(value: Any, depth: int) -> None:
        if id(value) in seen or depth > DEPTH:
            return
        seen.add(id(value))
        if isinstance(value, aiosqlite.Connection | sqlite3.Connection):
            found.append(value)
        elif isinstance(value, list | tuple | set | frozenset):
            for item in value:
                visit(item, depth + 1)
        elif isinstance(value, Mapping):
            for item in value.values():
                visit(item, depth + 1)
        elif type(value).__module__.split(".")[0] in ("db", "bot") and hasattr(value, "__dict__"):
            for item in vars(value).values():
                visit(item, depth + 1)

    visit(store, 0)
    return found


async def pragma(conn: Connection, name: str) -> Any:
    """One pragma's value as this connection sees it (``synchronous`` is per connection)."""
    if isinstance(conn, sqlite3.Connection):  # the writer: only ever used with nothing open
        return conn.execute(f"PRAGMA {name}").fetchone()[0]
    async with conn.execute(f"PRAGMA {name}") as cursor:
        row = await cursor.fetchone()
    assert row is not None
    return row[0]


async def fill_without_fsync(store: object) -> None:
    """For a bench's set-up only: the store's connections stop waiting for the disk."""
    for conn in connections(store):
        if isinstance(conn, sqlite3.Connection):
            conn.execute("PRAGMA synchronous = OFF")
        else:
            await conn.execute("PRAGMA synchronous = OFF")
