"""People first: work nobody is watching for yet waits while people's clicks are handled.

A person who clicks waits for the answer; nobody waits the same way for Orchard's seats (they
pause a second before they move anyway) or for a turn ping (sent once the board moved). On a
busy loop all of it queues together: in a burst of clicks each seat's move and each ping put
every click behind them. So that work first waits until no click is being handled, for
:data:`YIELD_MOST` at most: it is never starved, and the clicks of a burst go first.
"""

from __future__ import annotations

import asyncio

YIELD_MOST = 0.25  # seconds: the longest a seat's move or a ping waits for the clicks


class Foreground:
    """How many clicks are being handled now, and a wait for none to be."""

    def __init__(self, most: float = YIELD_MOST) -> None:
        self.most = most
        self.clicks = 0
        self._quiet: asyncio.Future[None] | None = None  # resolved when the last click ends

    def begin(self) -> None:
        """A click is being handled (each :meth:`begin` is followed by one :meth:`end`)."""
        self.clicks += 1

    def end(self) -> None:
        self.clicks -= 1
        if not self.clicks and self._quiet is not None:
            if not self._quiet.done():
                self._quiet.set_result(None)
            self._quiet = None

    async def after_clicks(self) -> None:
        """Return once no click is being handled, or after :attr:`most` seconds."""
        if not self.clicks:
            return
        if self._quiet is None:
            self._quiet = asyncio.get_running_loop().create_future()
        await asyncio.wait((self._quiet,), timeout=self.most)
