"""Discord's numbers the fake speaks (flags, permissions, error codes) and its JSON replies.

Kept in one place so every route answers with the same codes and the same exact
``Content-Type`` discord.py checks for.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

JSON = dict[str, Any]

DISCORD_EPOCH_MS = 1_420_070_400_000
EPHEMERAL = 64
LOADING = 128

# What an ordinary member may do: see, talk, attach, react, use commands; no Manage Guild (1 << 5).
DEFAULT_MEMBER_PERMISSIONS = (
    (1 << 0)  # create instant invite
    | (1 << 6)  # add reactions
    | (1 << 10)  # view channel
    | (1 << 11)  # send messages
    | (1 << 14)  # embed links
    | (1 << 15)  # attach files
    | (1 << 16)  # read message history
    | (1 << 18)  # use external emojis
    | (1 << 20)  # connect
    | (1 << 21)  # speak
    | (1 << 31)  # use application commands
    | (1 << 38)  # send messages in threads
)
ADMINISTRATOR = 1 << 3
VIEW_CHANNEL, SEND_MESSAGES, EMBED_LINKS, ATTACH_FILES = 1 << 10, 1 << 11, 1 << 14, 1 << 15
MANAGE_THREADS = 1 << 34  # unarchives a locked thread, and posts in one
SEND_MESSAGES_IN_THREADS = 1 << 38  # a post in a thread needs this, not Send Messages
THREAD_TYPES = (10, 11, 12)  # announcement, public and private threads

# What the bot may do in a channel (sent as ``app_permissions``).
DEFAULT_APP_PERMISSIONS = (
    (1 << 6) | (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16) | (1 << 18) | (1 << 38)
)

# Discord's JSON error codes the fake uses.
UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
UNKNOWN_USER = 10013
UNKNOWN_WEBHOOK = 10015
UNKNOWN_INTERACTION = 10062
INVALID_WEBHOOK_TOKEN = 50027  # 401: an interaction token past its 15 minutes
MISSING_ACCESS = 50001  # 403: the bot may not see the channel
CANNOT_DM_USER = 50007
MISSING_PERMISSIONS = 50013
THREAD_ARCHIVED = 50083  # 400 for an edit, a deletion or a reaction in an archived thread
INVALID_FORM_BODY = 50035
ALREADY_ACKNOWLEDGED = 40060

DEFAULT_ERRORS: dict[int, tuple[int, str]] = {
    400: (INVALID_FORM_BODY, "Invalid Form Body"),
    403: (MISSING_PERMISSIONS, "Missing Permissions"),
    404: (UNKNOWN_MESSAGE, "Unknown Message"),
    429: (0, "You are being rate limited."),
    500: (0, "500: Internal Server Error"),
    502: (0, "502: Bad Gateway"),
    503: (0, "503: Service Unavailable"),
}

# Component types: 2 button, 4 text input, 3 and 5-8 selects.
BUTTON, TEXT_INPUT = 2, 4
SELECTS = frozenset({3, 5, 6, 7, 8})
INTERACTIVE = frozenset({BUTTON, TEXT_INPUT, *SELECTS})


CALLBACK = re.compile(r"/interactions/\d+/[^/]+/callback")
INTERACTION_ENDPOINT = re.compile(CALLBACK.pattern + r"|/webhooks/\d+/[^/]+(/.*)?")
"""Interaction endpoints (the callback; follow-ups and edits through the interaction's
webhook token): exempt from the global rate limit, as on Discord."""


@dataclass(frozen=True)
class RouteLimit:
    """``limit`` requests per ``per`` seconds for each resource ``pattern``'s group ``major``
    names (a channel); ``method`` ``*`` matches any."""

    name: str
    method: str
    pattern: re.Pattern[str]
    limit: int
    per: float

    def major(self, method: str, path: str) -> str | None:
        if self.method not in ("*", method):
            return None
        match = self.pattern.fullmatch(path)
        return None if match is None else match["major"]


_CHANNEL = r"/channels/(?P<major>\d+)/messages"

ROUTE_LIMITS: tuple[RouteLimit, ...] = (
    RouteLimit("message-edit", "PATCH", re.compile(_CHANNEL + r"/\d+"), 5, 5.0),
    RouteLimit("message-create", "POST", re.compile(_CHANNEL), 5, 5.0),
    RouteLimit("message-delete", "DELETE", re.compile(_CHANNEL + r"/\d+"), 5, 1.0),
    RouteLimit("reaction", "*", re.compile(_CHANNEL + r"/\d+/reactions/.+"), 1, 0.25),
)
"""Discord's long-known per-channel limits (Discord may change them; bots read the headers)."""

GLOBAL_LIMIT = (50, 1.0)  # requests per second, across every route but interaction callbacks


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def json_response(
    data: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    """JSON with Content-Type exactly ``application/json``: discord.py compares it verbatim."""
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={"Content-Type": "application/json", **(headers or {})},
    )


def error(status: int, code: int, message: str) -> web.Response:
    return json_response({"code": code, "message": message}, status)


def no_content() -> web.Response:
    return web.Response(status=204)
