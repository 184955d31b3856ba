"""The one interface every storage topic speaks, whichever database is behind it.

Two backends implement it: SQLite (``db.sqlite``, the zero-setup default: a file) and
PostgreSQL (``db.postgres``, through asyncpg, when ``ORCHARD_DB`` is a ``postgresql://`` URL);
``db.backends.open_database`` opens the one a target names.
Topic modules write their SQL once, with ``?`` placeholders; where the two dialects need
different SQL, the topic keeps both forms side by side, keyed by :class:`Dialect`, and picks
by ``db.dialect`` (or ``tx.dialect``). Parameterised SQL only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

Row = Sequence[Any]
Params = Sequence[Any]
Target = str | Path
"""Where the database is: a SQLite file's path, or a ``postgresql://`` URL."""

URL_SCHEMES = ("postgresql://", "postgres://")
"""The URLs that name a PostgreSQL server (in any case, as libpq reads them)."""
SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:")
"""How any URL starts: a scheme of two characters or more (one would be a drive letter)."""


class Dialect(StrEnum):
    SQLITE = "sqlite"
    POSTGRES = "postgres"


class Reader(Protocol):
    """Anything that reads: a database (the last commit), or a transaction (its own view)."""

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]: ...

    async def lookup(self, sql: str, params: Params = ()) -> list[Row]:
        """A read of a few rows by their key (a game and its seats): cheap enough that SQLite
        runs it on the loop rather than pay a trip to a reader's thread."""
        ...


class Transaction(Protocol):
    """One transaction's statements: every write, and the reads a write depends on."""

    dialect: Dialect

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; returns the rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Iterable[Params]) -> int:
        """Run one statement once per row of parameters; returns the rows changed in all."""
        ...

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]: ...

    async def lookup(self, sql: str, params: Params = ()) -> list[Row]: ...

    async def insert(self, sql: str, params: Params = ()) -> int:
        """Run an ``INSERT … RETURNING id``; returns the new row's id."""
        ...


class Database(Protocol):
    """An open database: transactions for writes, reads outside any transaction."""

    dialect: Dialect

    def transaction(self, large: bool = False) -> AbstractAsyncContextManager[Transaction]:
        """Committed on exit, rolled back on error. ``large``: it may touch many rows (erasing
        a person or a server), so its statements must not run on the event loop."""
        ...

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        """One read of the last commit; it never waits for a write."""
        ...

    async def lookup(self, sql: str, params: Params = ()) -> list[Row]:
        """One read by key of the last commit (see :meth:`Reader.lookup`)."""
        ...

    async def checkpoint(self) -> None:
        """Leave no old copy of deleted rows in the database's own files (where it can)."""
        ...

    async def close(self) -> None: ...


def is_url(target: Target) -> bool:
    """True when ``target`` names a PostgreSQL server rather than a SQLite file."""
    return isinstance(target, str) and target.lower().startswith(URL_SCHEMES)


def looks_like_url(text: str) -> bool:
    """True when ``text`` starts as a URL does (``mysql://``, ``postgres:/host``,
    ``postgresql+asyncpg://``): as a file's path it would be a mistake made silently."""
    return SCHEME.match(text) is not None


def redacted(target: Target) -> str:
    """``target`` as it may be printed or logged: a URL (even one Orchard does not take)
    without its password, in the user part or a ``password=`` parameter."""
    if "://" not in str(target):
        return str(target)
    parts = urlsplit(str(target))
    user, at, host = parts.netloc.rpartition("@")
    netloc = f"{user.partition(':')[0]}{at}{host}"
    query = "&".join(
        pair for pair in parts.query.split("&") if pair.partition("=")[0].lower() != "password"
    )
    return urlunsplit(parts._replace(netloc=netloc, query=query))
