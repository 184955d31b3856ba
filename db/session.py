"""One game held for a change: the reads and the guarded write the runner makes inside its lock.

On SQLite (one process) the runner's in-process lock is the whole lock: the session reads
and writes as the store always does, each write its own transaction, so nothing is slower.
On a database several processes share, the session is one transaction that took the game's
lock there first, so load, apply and commit hold across processes (see :meth:`Store.game`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from bot.model import GameChange, GameRow, Move
from db import games, results
from db.connection import Database, Transaction


async def write_change(tx: Transaction, change: GameChange, now: float) -> bool:
    """``change`` to its game inside ``tx``: row, seats, moves, results, rating; False (nothing
    written) when a guard failed."""
    if not await games.write(tx, change, now):
        return False
    await results.write(tx, change, now)
    return True


def changes_results(change: GameChange) -> bool:
    """Whether ``change`` writes what a leaderboard shows: results, ratings, a forgotten seat."""
    return bool(change.results) or change.rating is not None or change.forgotten is not None


class GameSession:
    """Reads and writes of one game inside its lock: in ``tx`` when the game is held in a
    transaction (a shared store), else through the database's own reads and transactions."""

    def __init__(
        self,
        db: Database,
        game_id: int,
        tx: Transaction | None = None,
        *,
        on_results: Callable[[int], Awaitable[None]] | None = None,
    ) -> None:
        self.db, self.game_id, self.tx = db, game_id, tx
        self.on_results = on_results  # told (the game id) once a write of results commits
        self.writes = 0  # tried, guards failed or not: what the runner checks its record against
        self.wrote_results = False  # in ``tx``: boards are old once it commits

    async def get(self) -> GameRow | None:
        return await games.get_game(self.tx or self.db, self.game_id)

    async def moves(self) -> list[Move]:
        return await games.moves(self.tx or self.db, self.game_id)

    async def write(self, change: GameChange) -> bool:
        """:meth:`Store.write`, in this session: False (nothing written) if a guard failed."""
        assert change.game_id == self.game_id
        self.writes += 1
        if self.tx is not None:
            written = await write_change(self.tx, change, time.time())
            self.wrote_results |= written and changes_results(change)
            return written
        async with self.db.transaction() as tx:
            written = await write_change(tx, change, time.time())
        if written and self.on_results is not None and changes_results(change):
            await self.on_results(self.game_id)
        return written
