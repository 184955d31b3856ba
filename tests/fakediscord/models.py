"""What the fake records: requests, uploads, and the components of a message or modal."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tests.fakediscord.protocol import BUTTON, INTERACTIVE, JSON, SELECTS


@dataclass
class Upload:
    """One file the bot uploaded in a multipart request (bytes kept for image checks)."""

    form_name: str  # "files[0]", ...
    filename: str
    content_type: str | None
    data: bytes = field(repr=False)

    @property
    def size(self) -> int:
        return len(self.data)


@dataclass
class Request:
    """One HTTP request the bot made, as the fake understood it; ``path`` is below /api/v10."""

    method: str
    path: str
    query: dict[str, str]
    json: Any
    uploads: list[Upload]
    status: int = 0
    at: float = field(default_factory=time.monotonic)
    headers: dict[str, str] = field(default_factory=dict)  # the answer's, e.g. X-RateLimit-*
    limit: tuple[str, str] | None = None  # the rate-limit window it was counted in


@dataclass
class Component:
    """A flattened interactive component (button, select or text input) of a message or modal."""

    type: int
    custom_id: str | None
    label: str | None
    disabled: bool
    style: int | None
    url: str | None
    emoji: str | None
    options: list[str]
    raw: JSON = field(repr=False)

    @property
    def is_button(self) -> bool:
        return self.type == BUTTON

    @property
    def is_select(self) -> bool:
        return self.type in SELECTS


def walk(components: list[JSON]) -> Iterator[JSON]:
    """Every component in a tree: action rows, containers, sections and labels nest others."""
    for c in components:
        yield c
        yield from walk(c.get("components") or [])
        for key in ("accessory", "component"):
            if isinstance(c.get(key), dict):
                yield from walk([c[key]])


def components_of(message: JSON) -> list[Component]:
    """Buttons, selects and text inputs of a message (or modal) payload, in display order."""
    found = []
    for c in walk(message.get("components") or []):
        if c.get("type") not in INTERACTIVE:
            continue
        emoji = c.get("emoji") or {}
        found.append(
            Component(
                type=c["type"],
                custom_id=c.get("custom_id"),
                label=c.get("label"),
                disabled=bool(c.get("disabled", False)),
                style=c.get("style"),
                url=c.get("url"),
                emoji=emoji.get("name") if isinstance(emoji, dict) else None,
                options=[o.get("value") for o in c.get("options") or []],
                raw=c,
            )
        )
    return found


def text_of(message: JSON) -> str:
    """All the text a message shows: its content, embeds, and Components V2 text displays
    (type 10), in display order, a line each, as a reader would scan it."""
    parts = [str(message.get("content") or "")]
    for embed in message.get("embeds") or []:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        for f in embed.get("fields") or []:
            parts += [f.get("name") or "", f.get("value") or ""]
        parts.append((embed.get("footer") or {}).get("text") or "")
    parts += [
        str(c.get("content") or "")
        for c in walk(message.get("components") or [])
        if c.get("type") == 10
    ]
    return "\n".join(p for p in parts if p)
