"""Who Discord notifies: only a message's creation notifies, and only whom it lets through.

A user mentioned in a channel message's content is notified when the message is created, if
``allowed_mentions`` lets the mention through (absent: every user mention does); a DM notifies
its recipient. Ephemeral and ``SUPPRESS_NOTIFICATIONS`` messages (and a deferred reply's
"thinking" placeholder) notify nobody, and an edit
notifies nobody, whatever it adds: so a test reading ``notifications`` sees exactly the pings a
person would have had, and a bot that edits a mention in is caught pinging no one.
"""

from __future__ import annotations

import re

from tests.fakediscord.protocol import EPHEMERAL, JSON, LOADING
from tests.fakediscord.state import State

SUPPRESS_NOTIFICATIONS = 4096
USER_MENTION = re.compile(r"<@!?([0-9]+)>")


def mentioned(content: str) -> list[int]:
    """User ids mentioned in ``content``, in order, each once."""
    return list(dict.fromkeys(int(m) for m in USER_MENTION.findall(content)))


def let_through(allowed: JSON | None, user_id: int) -> bool:
    """Whether ``allowed_mentions`` lets a mention of ``user_id`` notify (absent: all do)."""
    if allowed is None:
        return True
    if "users" in (allowed.get("parse") or []):
        return True
    return str(user_id) in {str(u) for u in allowed.get("users") or []}


class Notifications(State):
    """``notifications``: (user id, message id) for every notification a created message gave."""

    def __init__(self, **options: int) -> None:
        super().__init__(**options)
        self.notifications: list[tuple[int, int]] = []

    def notified_since(self, mark: int = 0) -> list[int]:
        """The users notified since ``mark`` (a length of ``notifications``), in order."""
        return [user for user, _ in self.notifications[mark:]]

    def _notify_created(self, message: JSON, body: JSON) -> None:
        """Record whom a newly created message notifies (called once, on creation only)."""
        if int(message["flags"]) & (EPHEMERAL | SUPPRESS_NOTIFICATIONS | LOADING):
            return  # a "thinking" placeholder is no message yet: what replaces it is an edit
        channel = self.channels[int(message["channel_id"])]
        author = int(message["author"]["id"])
        if channel["type"] == 1:
            users = [int(channel["recipients"][0]["id"])]
        else:
            allowed = body.get("allowed_mentions")
            users = [u for u in mentioned(message["content"]) if let_through(allowed, u)]
        message_id = int(message["id"])
        self.notifications += [(user, message_id) for user in users if user != author]
