"""One interaction a test sent, with what the bot answered, read back as Discord shows it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tests.fakediscord.models import Upload, text_of
from tests.fakediscord.protocol import DISCORD_EPOCH_MS, EPHEMERAL, JSON, LOADING

if TYPE_CHECKING:
    from tests.fakediscord.waiting import Waiting


@dataclass(eq=False)
class InteractionRecord:
    """An interaction the test sent, and everything the bot answered to it.

    ``callback`` is the body of the bot's ``/callback`` POST (``{"type", "data"}``);
    ``original`` the message the response created or updated (the component's message for
    types 6 and 7); ``followups`` the follow-up messages, all as they are now.
    """

    fake: Waiting  # the FakeDiscord it was sent through: its messages, and wait_for
    id: int
    token: str
    kind: int
    payload: JSON = field(repr=False)
    user_id: int
    channel_id: int
    guild_id: int | None
    message_id: int | None
    callback: JSON | None = None
    callback_uploads: list[Upload] = field(default_factory=list)
    original_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    edits: list[JSON] = field(default_factory=list, repr=False)
    answered_at: float | None = None  # time.monotonic() when the callback arrived
    _answer: asyncio.Future[None] | None = field(default=None, repr=False)

    @property
    def created(self) -> float:
        """When the user acted (seconds since the Unix epoch), from the id as Discord does."""
        return ((self.id >> 22) + DISCORD_EPOCH_MS) / 1000

    @property
    def type(self) -> int | None:
        """Callback type: 4 message, 5 deferred, 6 deferred update, 7 update, 9 modal."""
        return None if self.callback is None else int(self.callback["type"])

    @property
    def data(self) -> JSON:
        return (self.callback or {}).get("data") or {}

    @property
    def reply(self) -> JSON | None:
        """The message that answers the user, as it is now: the response's own, or after a
        deferred update (or a deleted placeholder) the first follow-up, if one was sent."""
        followups = self.followups
        if followups and (self.type in (6, 7) or self.original is None):
            return followups[0]
        return self.original

    @property
    def updated(self) -> bool:
        """Whether the answer edited the component's message: an update (7), or a deferred
        update (6) completed by an edit."""
        return self.type == 7 or (self.type == 6 and bool(self.edits))

    @property
    def flags(self) -> int:
        shown = self.reply
        if shown is not None and (self.type in (4, 5) or shown is not self.original):
            return int(shown.get("flags") or 0)
        return int(self.data.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def original(self) -> JSON | None:
        return None if self.original_id is None else self.fake.messages.get(self.original_id)

    @property
    def message(self) -> JSON | None:
        """The message the component was on, as it is now (None for slash commands)."""
        return None if self.message_id is None else self.fake.messages.get(self.message_id)

    @property
    def content(self) -> str:
        """Content of the answer as shown now (after edits), else of the callback."""
        shown = self.reply
        if shown is not None:
            return str(shown.get("content") or "")
        return str(self.data.get("content") or "")

    @property
    def text(self) -> str:
        """Every text the answer shows now (content, embeds, V2 text displays)."""
        shown = self.reply
        return text_of(shown if shown is not None else self.data)

    @property
    def embeds(self) -> list[JSON]:
        shown = self.reply
        return list((shown if shown is not None else self.data).get("embeds") or [])

    @property
    def modal(self) -> JSON | None:
        """The modal the bot opened (callback type 9), else None."""
        return self.data if self.type == 9 else None

    @property
    def followups(self) -> list[JSON]:
        return [self.fake.messages[i] for i in self.followup_ids if i in self.fake.messages]

    @property
    def answered(self) -> bool:
        """Whether the user sees the bot's answer: a message, an update or a form, or a
        deferral once completed (its loading message replaced, or an edit or follow-up made)."""
        if self.type == 5:
            shown = self.original
            return bool(shown is not None and not int(shown["flags"]) & LOADING) or bool(
                self.followup_ids
            )
        if self.type == 6:
            return bool(self.edits or self.followup_ids)
        return self.callback is not None

    async def wait(self, timeout: float = 5.0) -> InteractionRecord:
        """Resolve once the bot has answered (a deferred answer: once it was completed)."""
        await self.fake.wait_for(
            lambda: self.answered, timeout, f"the bot to answer {self.describe()}"
        )
        return self

    def note_answered(self) -> None:
        """The callback route calls this once the bot's callback is recorded."""
        self.answered_at = time.monotonic()
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(None)

    async def called_back(self, timeout: float = 5.0) -> InteractionRecord:
        """Like :meth:`wait`, but woken by this interaction's own callback alone, not after
        every request: a driver with hundreds of clicks waiting costs the fake nothing more.
        Raises TimeoutError (with no report) if the bot has not answered in time."""
        if self.callback is None:
            if self._answer is None:
                self._answer = asyncio.get_running_loop().create_future()
            await asyncio.wait_for(asyncio.shield(self._answer), timeout)
        return self

    async def wait_until(
        self, predicate: Callable[[InteractionRecord], bool], timeout: float = 5.0
    ) -> InteractionRecord:
        """Resolve once ``predicate(self)`` holds, e.g. after a deferred reply was edited."""
        await self.fake.wait_for(lambda: predicate(self), timeout, f"a state of {self.describe()}")
        return self

    async def wait_followups(self, count: int = 1, timeout: float = 5.0) -> list[JSON]:
        await self.fake.wait_for(
            lambda: len(self.followup_ids) >= count,
            timeout,
            f"{count} follow-up(s) to {self.describe()}",
        )
        return self.followups

    def describe(self) -> str:
        data = self.payload.get("data") or {}
        what = data.get("name") or data.get("custom_id") or "?"
        return f"interaction {self.id} (type {self.kind}, {what!r}, user {self.user_id})"
