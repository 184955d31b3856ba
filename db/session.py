"""One game held for a change: the reads and the guarded write the runner makes inside its lock.

On SQLite (one process) the runner's in-process lock is the whole lock: the session reads
and writes as the store always does, each write its own transaction, so nothing is slower.
On a database several processes share, the session is one transaction that first takes the
game's lock there, so load, apply and commit hold across processes (see :meth:`Store.game`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.model import GameChange, GameRow, Move

if TYPE_CHECKING:
    from db.store import Store


class GameSession:
    """Reads and writes of one game inside its lock, through the store's own reads and
    transactions (SQLite)."""

    def __init__(self, store: Store, game_id: int) -> None:
        self.store, self.game_id = store, game_id

    async def get(self) -> GameRow | None:
        return await self.store.get_game(self.game_id)

    async def moves(self) -> list[Move]:
        return await self.store.moves(self.game_id)

    async def write(self, change: GameChange) -> bool:
        """:meth:`Store.write`, in this session: False (nothing written) if a guard failed."""
        assert change.game_id == self.game_id
        return await self.store.write(change)
