"""How a REST route is declared and what its handler gets; the topic modules list their routes."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from aiohttp import web

from tests.fakediscord.models import Request, Upload
from tests.fakediscord.protocol import JSON


@dataclass
class Call:
    """What a route handler gets: the recorded request and the route's captured ids."""

    request: Request
    params: dict[str, str]

    def id(self, name: str) -> int:
        return int(self.params[name])

    @property
    def body(self) -> Any:
        return self.request.json

    @property
    def uploads(self) -> list[Upload]:
        return self.request.uploads


Handler = Callable[[Call], Awaitable[web.StreamResponse]]


class Route(NamedTuple):
    """One of Discord's routes, its path written as in Discord's docs (``{x}`` a snowflake).

    ``limits`` lists what a JSON body breaks of Discord's size limits: such a body is refused
    with 400 before the handler runs, as Discord does (while the fake is ``strict``).
    """

    method: str
    path: str
    handler: Handler
    limits: Callable[[JSON], list[str]] | None = None


_SPECIAL = {"token": r"[^/]+", "mid": r"@original|\d+", "emoji": r"[^/]+"}
_SNOWFLAKE = r"\d+"


def compile_path(path: str) -> re.Pattern[str]:
    """``/channels/{channel}/messages/{mid}`` as a regex with named groups."""

    def group(m: re.Match[str]) -> str:
        return f"(?P<{m[1]}>{_SPECIAL.get(m[1], _SNOWFLAKE)})"

    return re.compile(re.sub(r"\{(\w+)\}", group, path))
