"""The one process that does the whole bot's chores: syncing slash commands, purging servers
that left. On SQLite that is the only process; on a shared database, the holder of the store's
leader lock, which the database frees when the holder's session ends (it stopped, or died), so
that another process takes over within ``RETRY`` s and does the chores from then on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from db.store import Store

log = logging.getLogger(__name__)

RETRY = 10.0  # how often a follower tries to take over, and the leader checks it still leads

Chore = Callable[[], Awaitable[object]]


class Leader:
    def __init__(self, store: Store, retry: float = RETRY) -> None:
        self.store = store
        self.retry = retry
        self.leading = False
        self.on_lead: list[Chore] = []  # done each time this process becomes the leader
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Try to lead now (doing the chores if so), then keep trying in the background."""
        if self._task is None:
            await self._try()
            self._task = asyncio.create_task(self._loop(), name="orchard-leader")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _try(self) -> None:
        self.leading = await self.store.still_leading() if self.leading else False
        if self.leading or not await self.store.try_lead():
            return
        self.leading = True
        log.info("this process now leads: it syncs commands and purges departed servers")
        for chore in self.on_lead:
            try:
                await chore()
            except Exception:
                log.exception("a leader's chore failed")

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.retry)
            try:
                await self._try()
            except Exception:
                log.warning("could not check or take the leader's lock", exc_info=True)
