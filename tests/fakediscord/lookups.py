"""What tests read back: messages by channel or id, their buttons, and the recorded requests."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from tests.fakediscord.models import Component, Request, components_of
from tests.fakediscord.protocol import EPHEMERAL, JSON
from tests.fakediscord.state import State


class Lookups(State):
    """Read-only views of the recorded state (nothing here changes it)."""

    def channel_messages(self, channel_id: int, *, ephemeral: bool = False) -> list[JSON]:
        """Live messages of a channel, oldest first; ephemeral ones only if asked for."""
        ids = self._channel_order.get(channel_id, [])
        shown = [self.messages[i] for i in ids if i in self.messages]
        return [m for m in shown if ephemeral or not int(m["flags"]) & EPHEMERAL]

    def last_message(self, channel_id: int, *, ephemeral: bool = False) -> JSON | None:
        """The newest live message of a channel (what everybody sees, unless ``ephemeral``)."""
        shown = self.channel_messages(channel_id, ephemeral=ephemeral)
        return shown[-1] if shown else None

    def dms(self, user_id: int) -> list[JSON]:
        """Messages the bot sent to a user by DM, oldest first."""
        channel_id = self.dm_channels.get(user_id)
        return [] if channel_id is None else self.channel_messages(channel_id)

    def message(self, message_id: int) -> JSON:
        try:
            return self.messages[message_id]
        except KeyError:
            gone = " (it was deleted)" if message_id in self.deleted else ""
            raise KeyError(f"no message {message_id}{gone}") from None

    def components(self, message_id: int) -> list[Component]:
        return components_of(self.message(message_id))

    def find_button(
        self, message_id: int, label_or_predicate: str | Callable[[Component], bool]
    ) -> Component:
        """The first button whose label, emoji or custom_id equals the text (or that matches)."""
        buttons = [c for c in self.components(message_id) if c.is_button]
        for button in buttons:
            if callable(label_or_predicate):
                if label_or_predicate(button):
                    return button
            elif label_or_predicate in (button.label, button.emoji, button.custom_id):
                return button
        shown = [
            (b.label or b.emoji, b.custom_id, "disabled" if b.disabled else "") for b in buttons
        ]
        raise LookupError(f"no button {label_or_predicate!r} on message {message_id}: {shown}")

    def requests_matching(self, method: str, pattern: str) -> list[Request]:
        """Recorded requests with this method (``*`` for any) whose path matches the regex."""
        rx = re.compile(pattern)
        return [r for r in self.requests if method in ("*", r.method) and rx.search(r.path)]

    def payloads(self) -> Iterator[Any]:
        """Every JSON body the bot sent, for scans such as 'no mass mention anywhere'."""
        for r in self.requests:
            if r.json is not None:
                yield r.json
