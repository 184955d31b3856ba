"""What processes sharing one PostgreSQL database coordinate through: advisory locks and rows.

- A game's lock, taken first in the transaction that loads, changes and commits the game
  (``pg_advisory_xact_lock``): one change to a game at a time, whichever process makes it.
  The version check of every write stays the guarantee against a stale write.
- Claims: a game due (its deadline, or Orchard's move) is a row locked ``FOR UPDATE SKIP
  LOCKED`` by the transaction that fires it, so each fires once; a process that dies drops its
  transaction and with it the claim. A due game whose lock another transaction holds (a click
  on it) is skipped, not waited for: the claim holds the row and the click waits for the row,
  so waiting for the click's lock as well would deadlock the two.
- The leader: one session-level advisory lock, held on a connection of its own for as long as
  the process leads; PostgreSQL releases it when that session ends, so another takes over.
- IDENTIFY turns: Discord lets each ``max_concurrency`` bucket of shards IDENTIFY once per 5 s;
  a per-bucket transaction lock queues the processes while each takes the bucket's next turn,
  and ``meta`` keeps each bucket's last turn taken, timed by the database's clock, so
  machines' clocks never disagree about it; each waits for its turn outside the transaction.

Advisory locks belong to the whole database, but Orchard's tables may live in one schema of
it (the tests give each test a schema): every key carries the schema's number, so Orchards in
two schemas never wait for each other. A game's key is one bigint (the schema's number and the
game id's low 32 bits: ids 2^32 apart share a lock, which only makes them take turns); the
leader's and the IDENTIFY buckets' use the two-integer form, a key space of its own.
"""

from __future__ import annotations

import contextlib
import logging
import zlib
from typing import Any

from bot.model import Due
from db.connection import Transaction
from db.games import OPEN

log = logging.getLogger(__name__)

LEADER = 1  # second integer of the leader's key
# A leader's session silent this long is ended by the server (PostgreSQL 14+), its lock with
# it: a leader frozen or cut off without its connection reset would otherwise hold the lock
# for hours. A live leader checks it still leads every bot.leader.RETRY s (10), well within.
LEADER_SILENCE = 30.0
IDENTIFY = 16  # IDENTIFY bucket n's second integer is IDENTIFY + n
IDENTIFY_EVERY = 5.5  # Discord's 5 s per bucket, and a margin: the turn is taken before sending


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


class SharedLocks:
    """The locks of Orchard's tables in one schema of one database."""

    def __init__(self, schema: str) -> None:
        self.schema = schema
        self.namespace = _signed(zlib.crc32(schema.encode()), 32)
        self._leading: Any = None  # the connection holding the leader's lock (asyncpg's)

    def game_key(self, game_id: int) -> int:
        return _signed((self.namespace << 32) | (game_id & 0xFFFF_FFFF), 64)

    async def lock_game(self, tx: Transaction, game_id: int) -> None:
        """Wait for, then hold until the transaction ends, the game's lock."""
        await tx.fetchall("SELECT pg_advisory_xact_lock(?)", (self.game_key(game_id),))

    async def claim_due(self, tx: Transaction, due: Due, upto: float, skip: set[int]) -> int | None:
        """Claim (lock until the transaction ends) the open game soonest due by ``upto`` that
        no transaction holds, then take its game lock if free. Returns its id, or None; a game
        whose lock another holds is added to ``skip`` instead (the caller rolls back)."""
        column = Due(due).value  # a column's name, never user input
        rows = await tx.fetchall(
            f"SELECT id FROM games WHERE {column} <= ? AND {OPEN} AND NOT (id = ANY(?))"
            f" ORDER BY {column} LIMIT 1 FOR UPDATE SKIP LOCKED",
            (upto, sorted(skip)),
        )
        if not rows:
            return None
        game_id = int(rows[0][0])
        locked = await tx.fetchall("SELECT pg_try_advisory_xact_lock(?)", (self.game_key(game_id),))
        if not locked[0][0]:
            skip.add(game_id)
            return None
        return game_id

    async def try_lead(self, pool: Any) -> bool:
        """Take the leader's lock on a connection of ``pool`` kept for it, if the lock is free."""
        if self._leading is not None:
            return True
        conn = await pool.acquire()
        try:
            got = await conn.fetchval("SELECT pg_try_advisory_lock($1, $2)", self.namespace, LEADER)
        except BaseException:
            await pool.release(conn)
            raise
        if not got:
            await pool.release(conn)
            return False
        self._leading = conn
        await self._limit_silence(conn, LEADER_SILENCE)
        return True

    @staticmethod
    async def _limit_silence(conn: Any, seconds: float) -> None:
        """Set how long the leader's session may stay silent (0: for ever, as the pool's other
        connections); a server older than PostgreSQL 14 has no such limit."""
        try:  # a SET takes no parameters: the value is a number formatted here
            await conn.execute(f"SET idle_session_timeout = {round(seconds * 1000)}")
        except Exception as err:  # asyncpg's UndefinedObjectError, before PostgreSQL 14
            log.info("the leader's session has no silence limit here: %s", err)

    async def still_leading(self, pool: Any) -> bool:
        """The leader's connection is alive (else the lock is gone: let it go here too)."""
        if self._leading is None:
            return False
        try:
            await self._leading.fetchval("SELECT 1")
            return True
        except Exception:
            await self.resign(pool)
            return False

    async def resign(self, pool: Any) -> None:
        """Give the leader's lock up: another process takes over. A session the server ended
        took the lock with it, and asyncpg has already given its connection back to the pool:
        neither the unlock nor the release can then succeed, and neither is needed (raising
        here kept a process that no longer leads saying it did, and its store from closing)."""
        conn, self._leading = self._leading, None
        if conn is None:
            return
        try:
            await conn.execute("SELECT pg_advisory_unlock($1, $2)", self.namespace, LEADER)
            await self._limit_silence(conn, 0)  # back in the pool, it may idle again
        except Exception:
            log.warning("the leader's session was gone already", exc_info=True)
            with contextlib.suppress(Exception):
                await pool.release(conn)
            return
        await pool.release(conn)

    async def identify_turn(self, tx: Transaction, bucket: int) -> float:
        """Take IDENTIFY ``bucket``'s next turn, :data:`IDENTIFY_EVERY` s after the last one
        any process took (or now), holding the bucket's lock only while it reads and records
        it (the database's clock). Returns the seconds until that turn, for the caller to wait
        once the transaction is over: waited inside it, every shard queued behind one bucket
        held a connection of the pool until its turn, and moves waited for the shards."""
        await tx.fetchall("SELECT pg_advisory_xact_lock(?, ?)", (self.namespace, IDENTIFY + bucket))
        key = f"identify_bucket:{bucket}"
        rows = await tx.fetchall("SELECT value FROM meta WHERE key = ?", (key,))
        now = await _now(tx)
        turn = max(now, float(rows[0][0]) + IDENTIFY_EVERY) if rows else now
        await tx.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, f"{turn:.6f}"),
        )
        return turn - now


async def _now(tx: Transaction) -> float:
    """The database server's clock (every process reads the same one)."""
    rows = await tx.fetchall("SELECT EXTRACT(EPOCH FROM clock_timestamp())::float8")
    return float(rows[0][0])
