"""The one process that does the whole bot's chores: syncing slash commands, purging servers
that left, drawing anew the boards /forget-me queued. On SQLite that is the only process; on a
shared database, the holder of the store's leader lock, which the database frees when the
holder's session ends (it stopped, or died), so that another process takes over within
``RETRY`` s and does the chores from then on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from db.store import Store

log = logging.getLogger(__name__)

RETRY = 10.0  # how often a follower tries to take over, and the leader checks it still leads

Chore = Callable[[], Awaitable[object]]
Nudge = Callable[[], None]


class Leader:
    def __init__(self, store: Store, retry: float | None = None) -> None:
        self.store = store
        self.retry = RETRY if retry is None else retry
        self.leading = False
        self.on_lead: list[Chore] = []  # done each time this process becomes the leader
        # called at each check that finds this process leading: quick calls that start (or
        # keep going) background work only one process should do, such as a queue to work
        self.while_leading: list[Nudge] = []
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
        if not self.leading and await self.store.try_lead():
            await self._lead()
        if self.leading:
            for nudge in self.while_leading:
                nudge()

    async def _lead(self) -> None:
        self.leading = True
        log.info("this process now leads: it does the bot's chores (see bot.leader)")
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
