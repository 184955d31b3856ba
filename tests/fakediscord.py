"""A fake of Discord's REST API and gateway on 127.0.0.1, for driving an unchanged discord.py bot.

Why: the cogs are thin glue between discord.py and the game engine; the glue is where payload
limits, ephemeral flags, stale buttons and rate limits bite. Running the real library against a
fake server tests that glue end to end, with no network and in milliseconds.

Typical use (see ``tests/conftest.py`` for the ``fake_discord`` fixture)::

    fake.add_guild(GUILD, [CHANNEL], [ALICE, BOB])
    async with run_bot(bot, fake):
        reply = await fake.slash(ALICE, GUILD, CHANNEL, "cheerio", {"rounds": 3}, subcommand="new")
        await reply.wait()
        assert reply.ephemeral and "started" in reply.content

Every message the bot posts or edits is kept in ``fake.messages`` (by message id) with all its
versions in ``fake.versions``; every HTTP request in ``fake.requests``; routes the fake does not
know answer 404 and are listed in ``fake.unhandled`` so missing coverage is visible.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import itertools
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import BodyPartReader, WSMsgType, web

__all__ = [
    "DEFAULT_MEMBER_PERMISSIONS",
    "Component",
    "FakeDiscord",
    "InteractionRecord",
    "Request",
    "Upload",
    "components_of",
    "payload_problems",
    "run_bot",
]

JSON = dict[str, Any]
Handler = Callable[["_Call"], Awaitable[web.StreamResponse]]

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
CANNOT_DM_USER = 50007
MISSING_PERMISSIONS = 50013
INVALID_FORM_BODY = 50035
ALREADY_ACKNOWLEDGED = 40060

_DEFAULT_ERRORS: dict[int, tuple[int, str]] = {
    400: (INVALID_FORM_BODY, "Invalid Form Body"),
    403: (MISSING_PERMISSIONS, "Missing Permissions"),
    404: (UNKNOWN_MESSAGE, "Unknown Message"),
    429: (0, "You are being rate limited."),
    500: (0, "500: Internal Server Error"),
    502: (0, "502: Bad Gateway"),
    503: (0, "503: Service Unavailable"),
}

_BUTTON, _TEXT_INPUT = 2, 4
_SELECTS = frozenset({3, 5, 6, 7, 8})
_INTERACTIVE = frozenset({_BUTTON, _TEXT_INPUT, *_SELECTS})


def _now_iso() -> str:
    return datetime.now(UTC).isoformat()


def _json_response(
    data: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    """JSON with Content-Type exactly ``application/json``: discord.py compares it verbatim."""
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={"Content-Type": "application/json", **(headers or {})},
    )


def _error(status: int, code: int, message: str) -> web.Response:
    return _json_response({"code": code, "message": message}, status)


def _no_content() -> web.Response:
    return web.Response(status=204)


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
        return self.type == _BUTTON

    @property
    def is_select(self) -> bool:
        return self.type in _SELECTS


def _walk(components: list[JSON]) -> Iterator[JSON]:
    """Every component in a tree: action rows, containers, sections and labels nest others."""
    for c in components:
        yield c
        yield from _walk(c.get("components") or [])
        for key in ("accessory", "component"):
            if isinstance(c.get(key), dict):
                yield from _walk([c[key]])


def components_of(message: JSON) -> list[Component]:
    """Buttons, selects and text inputs of a message (or modal) payload, in display order."""
    found = []
    for c in _walk(message.get("components") or []):
        if c.get("type") not in _INTERACTIVE:
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


def _too_long(errors: list[str], where: str, text: Any, limit: int) -> int:
    n = len(text or "")
    if n > limit:
        errors.append(f"{where}: {n} characters > {limit}")
    return n


def payload_problems(body: JSON, *, modal: bool = False) -> list[str]:
    """Discord's documented size limits a message (or modal) body breaks; empty when fine."""
    errors: list[str] = []
    _too_long(errors, "content", body.get("content"), 2000)
    embeds = body.get("embeds") or []
    if len(embeds) > 10:
        errors.append(f"embeds: {len(embeds)} > 10")
    total = 0
    for i, embed in enumerate(embeds):
        total += _too_long(errors, f"embeds[{i}].title", embed.get("title"), 256)
        total += _too_long(errors, f"embeds[{i}].description", embed.get("description"), 4096)
        author, footer = embed.get("author") or {}, embed.get("footer") or {}
        total += _too_long(errors, f"embeds[{i}].author.name", author.get("name"), 256)
        total += _too_long(errors, f"embeds[{i}].footer.text", footer.get("text"), 2048)
        fields = embed.get("fields") or []
        if len(fields) > 25:
            errors.append(f"embeds[{i}].fields: {len(fields)} > 25")
        for j, f in enumerate(fields):
            total += _too_long(errors, f"embeds[{i}].fields[{j}].name", f.get("name"), 256)
            total += _too_long(errors, f"embeds[{i}].fields[{j}].value", f.get("value"), 1024)
    if total > 6000:
        errors.append(f"embeds: {total} characters in all > 6000")
    components = body.get("components") or []
    v2 = int(body.get("flags") or 0) & (1 << 15)
    if modal:
        _too_long(errors, "title", body.get("title"), 45)
        if not 1 <= len(components) <= 5:
            errors.append(f"modal components: {len(components)} not in 1..5")
    elif not v2 and len(components) > 5:
        errors.append(f"components: {len(components)} action rows > 5")
    every = list(_walk(components))
    if v2 and len(every) > 40:
        errors.append(f"components: {len(every)} in all > 40")
    for c in every:
        where = f"component {c.get('custom_id') or c.get('type')!r}"
        _too_long(errors, f"{where}.custom_id", c.get("custom_id"), 100)
        _too_long(errors, f"{where}.label", c.get("label"), 45 if c.get("type") == 4 else 80)
        if c.get("type") == 1 and len(c.get("components") or []) > 5:
            errors.append(f"{where}: {len(c['components'])} items in a row > 5")
        options = c.get("options") or []
        if len(options) > 25:
            errors.append(f"{where}.options: {len(options)} > 25")
        for o in options:
            _too_long(errors, f"{where}.options.label", o.get("label"), 100)
            _too_long(errors, f"{where}.options.value", o.get("value"), 100)
    return errors


@dataclass
class _Fault:
    method: str
    pattern: re.Pattern[str]
    status: int
    remaining: int
    retry_after: float
    code: int
    message: str
    is_global: bool

    def matches(self, method: str, path: str) -> bool:
        return (
            self.remaining > 0
            and self.method in ("*", method)
            and self.pattern.search(path) is not None
        )

    def response(self) -> web.Response:
        body: JSON = {"code": self.code, "message": self.message}
        headers: dict[str, str] = {}
        if self.status == 429:
            # discord.py treats a 429 without ``Via`` as a Cloudflare ban and gives up.
            bucket = hashlib.sha1(f"{self.method} {self.pattern.pattern}".encode()).hexdigest()
            body.update(retry_after=self.retry_after, **{"global": self.is_global})
            headers = {
                "Via": "1.1 google",
                "Retry-After": str(max(1, round(self.retry_after))),
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": f"{time.time() + self.retry_after:.3f}",
                "X-RateLimit-Reset-After": f"{self.retry_after:.3f}",
                "X-RateLimit-Bucket": bucket[:16],
                "X-RateLimit-Scope": "global" if self.is_global else "user",
            }
            if self.is_global:
                headers["X-RateLimit-Global"] = "true"
        return _json_response(body, self.status, headers)


@dataclass
class _Call:
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


@dataclass
class _Session:
    """One gateway connection (one shard)."""

    ws: web.WebSocketResponse
    shard_id: int = 0
    session_id: str = ""
    seq: int = 0
    live: bool = False


@dataclass(eq=False)
class InteractionRecord:
    """An interaction the test sent, and everything the bot answered to it.

    ``callback`` is the body of the bot's ``/callback`` POST (``{"type", "data"}``);
    ``original`` the message the response created or updated (the component's message for
    types 6 and 7); ``followups`` the follow-up messages, all as they are now.
    """

    fake: FakeDiscord
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

    @property
    def type(self) -> int | None:
        """Callback type: 4 message, 5 deferred, 6 deferred update, 7 update, 9 modal."""
        return None if self.callback is None else int(self.callback["type"])

    @property
    def data(self) -> JSON:
        return (self.callback or {}).get("data") or {}

    @property
    def flags(self) -> int:
        if self.original is not None and self.type in (4, 5):
            return int(self.original.get("flags") or 0)
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
        """Content of the response as shown now (after edits), else of the callback."""
        shown = self.original
        if shown is not None:
            return str(shown.get("content") or "")
        return str(self.data.get("content") or "")

    @property
    def embeds(self) -> list[JSON]:
        shown = self.original
        return list((shown if shown is not None else self.data).get("embeds") or [])

    @property
    def modal(self) -> JSON | None:
        """The modal the bot opened (callback type 9), else None."""
        return self.data if self.type == 9 else None

    @property
    def followups(self) -> list[JSON]:
        return [self.fake.messages[i] for i in self.followup_ids if i in self.fake.messages]

    async def wait(self, timeout: float = 5.0) -> InteractionRecord:
        """Resolve once the bot has answered the callback."""
        await self.fake.wait_for(
            lambda: self.callback is not None, timeout, f"the bot to answer {self.describe()}"
        )
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


class _ErrorLog(logging.Handler):
    """Keeps ERROR log records (discord.py logs handler exceptions instead of raising)."""

    def __init__(self, sink: list[logging.LogRecord], changed: Callable[[], None]) -> None:
        super().__init__(logging.ERROR)
        self.sink = sink
        self.changed = changed

    def emit(self, record: logging.LogRecord) -> None:
        self.sink.append(record)
        self.changed()


class FakeDiscord:
    """Discord's REST API and gateway, just enough for discord.py, on 127.0.0.1."""

    def __init__(
        self,
        *,
        application_id: int = 900_000_000_000_000_001,
        bot_id: int | None = None,
        bot_name: str = "Orchard",
        owner_id: int = 900_000_000_000_000_099,
        shard_count: int = 1,
    ) -> None:
        self.application_id = application_id
        self.bot_id = bot_id if bot_id is not None else application_id
        self.owner_id = owner_id
        self.shard_count = shard_count
        self.port = 0
        self.app_permissions = DEFAULT_APP_PERMISSIONS
        self.resume_ok = True  # False: answer RESUME with op 9 (discord.py then waits 5 s)
        self.strict = True  # refuse bodies over Discord's size limits with 400 / 50035

        self.users: dict[int, JSON] = {}
        self.guilds: dict[int, JSON] = {}
        self.channels: dict[int, JSON] = {}
        self.guild_members: dict[int, dict[int, JSON]] = {}
        self.permissions: dict[int, int] = {}  # per-user member permissions override
        self.dm_channels: dict[int, int] = {}  # user id -> DM channel id
        self.dms_closed: set[int] = set()

        self.messages: dict[int, JSON] = {}  # live messages by id
        self.deleted: dict[int, JSON] = {}  # deleted messages by id, last version
        self.versions: dict[int, list[JSON]] = {}  # every version of each message
        self._channel_order: dict[int, list[int]] = {}
        self.reactions: list[tuple[str, int, int, str]] = []  # (PUT/DELETE, channel, msg, emoji)

        self.requests: list[Request] = []
        self.unhandled: list[Request] = []
        self.commands: list[JSON] | None = None  # last global sync
        self.guild_commands: dict[int, list[JSON]] = {}  # last sync per guild
        self.interactions: dict[int, InteractionRecord] = {}
        self._by_token: dict[str, InteractionRecord] = {}
        self.errors: list[logging.LogRecord] = []

        self.identifies: list[JSON] = []
        # Each ended gateway connection's close code: the bot's own when it sent a close frame
        # (discord.py's close() sends 1000), 1006 when the connection just dropped.
        self.close_codes: list[int | None] = []
        self.resumes = 0
        self._sessions: dict[int, _Session] = {}
        self._known_sessions: dict[str, _Session] = {}
        self._sockets: set[web.WebSocketResponse] = set()

        self._faults: list[_Fault] = []
        self._waiters: list[asyncio.Future[None]] = []
        self._watched: list[asyncio.Task[Any]] = []
        self._ids = itertools.count(1)
        self._last_id = 0
        self._runner: web.AppRunner | None = None
        self._saved: tuple[str, yarl.URL] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._log_handler = _ErrorLog(self.errors, self._notify_threadsafe)
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = []
        self._files: dict[int, Upload] = {}
        self._register_routes()
        self.add_user(self.bot_id, bot_name, bot=True)
        self.add_user(owner_id, "owner")

    # ------------------------------------------------------------------ lifecycle

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gw/"

    async def start(self) -> None:
        """Bind on 127.0.0.1 on a free port."""
        self._loop = asyncio.get_running_loop()
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gw/", self._gateway)
        app.router.add_get("/gw", self._gateway)
        app.router.add_get("/attachments/{aid}/{filename}", self._attachment)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        app.router.add_route("*", "/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None and server.sockets  # type: ignore[attr-defined]
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    async def close(self) -> None:
        for ws in list(self._sockets):
            with suppress(Exception):
                await ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def install(self) -> None:
        """Point discord.py (process-wide class attributes) at this fake."""
        if self._saved is None:
            self._saved = (
                discord.http.Route.BASE,
                discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY,
            )
        discord.http.Route.BASE = f"{self.base_url}/api/v10"
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        logging.getLogger().addHandler(self._log_handler)

    def uninstall(self) -> None:
        """Restore what :meth:`install` replaced."""
        logging.getLogger().removeHandler(self._log_handler)
        if self._saved is not None:
            discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = self._saved
            self._saved = None

    @classmethod
    @asynccontextmanager
    async def running(cls, **options: Any) -> AsyncIterator[FakeDiscord]:
        """Start, install, yield, then uninstall and close, even on failure."""
        fake = cls(**options)
        await fake.start()
        fake.install()
        try:
            yield fake
        finally:
            fake.uninstall()
            await fake.close()

    def watch(self, task: asyncio.Task[Any]) -> None:
        """Make waits fail fast (with its exception) if this task, e.g. the bot's, ends."""
        self._watched.append(task)

    # ------------------------------------------------------------------ model

    def next_id(self) -> int:
        """A fresh snowflake carrying the current time, as discord.py derives times from ids."""
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        self._last_id = max(self._last_id + 1, (ms << 22) | (next(self._ids) & 0x3FFFFF))
        return self._last_id

    def add_user(self, user_id: int, name: str | None = None, *, bot: bool = False) -> JSON:
        """Register (or rename) a user; guilds and interactions use these payloads."""
        name = name or f"user{user_id}"
        user = {
            "id": str(user_id),
            "username": name,
            "global_name": name,
            "discriminator": "0",
            "avatar": None,
            "bot": bot,
            "public_flags": 0,
            "flags": 0,
        }
        self.users[user_id] = user
        return user

    def user(self, user_id: int) -> JSON:
        if user_id not in self.users:
            self.add_user(user_id)
        return self.users[user_id]

    def add_guild(
        self,
        guild_id: int,
        channel_ids: list[int],
        member_ids: list[int],
        *,
        name: str | None = None,
        owner_id: int | None = None,
    ) -> JSON:
        """A guild with text channels and members (the bot joins it too); call before start."""
        for position, channel_id in enumerate(channel_ids):
            self.channels[channel_id] = {
                "id": str(channel_id),
                "type": 0,
                "guild_id": str(guild_id),
                "name": f"channel-{position}",
                "position": position,
                "permission_overwrites": [],
                "nsfw": False,
                "topic": None,
                "last_message_id": None,
                "rate_limit_per_user": 0,
                "parent_id": None,
                "flags": 0,
            }
        members = {uid: self._member(uid) for uid in [*member_ids, self.bot_id]}
        self.guild_members[guild_id] = members
        guild = {
            "id": str(guild_id),
            "name": name or f"guild-{guild_id}",
            "owner_id": str(owner_id or (member_ids[0] if member_ids else self.owner_id)),
            "channel_ids": list(channel_ids),
        }
        self.guilds[guild_id] = guild
        return guild

    def _member(self, user_id: int) -> JSON:
        return {
            "user": self.user(user_id),
            "roles": [],
            "flags": 0,
            "joined_at": _now_iso(),
            "nick": None,
            "avatar": None,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "communication_disabled_until": None,
        }

    def _guild_create(self, guild_id: int) -> JSON:
        guild = self.guilds[guild_id]
        members = list(self.guild_members[guild_id].values())
        return {
            "id": str(guild_id),
            "name": guild["name"],
            "icon": None,
            "owner_id": guild["owner_id"],
            "unavailable": False,
            "large": False,
            "member_count": len(members),
            "members": members,
            "channels": [self.channels[c] for c in guild["channel_ids"]],
            "threads": [],
            "roles": [
                {
                    "id": str(guild_id),
                    "name": "@everyone",
                    "permissions": str(DEFAULT_MEMBER_PERMISSIONS),
                    "position": 0,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                }
            ],
            "emojis": [],
            "stickers": [],
            "features": [],
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "joined_at": _now_iso(),
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "afk_timeout": 300,
        }

    def dm_channel(self, user_id: int) -> JSON:
        """The bot's DM channel with a user (created on first use, as Discord does)."""
        if user_id not in self.dm_channels:
            channel_id = self.next_id()
            self.dm_channels[user_id] = channel_id
            self.channels[channel_id] = {
                "id": str(channel_id),
                "type": 1,
                "last_message_id": None,
                "recipients": [self.user(user_id)],
                "flags": 0,
            }
        return self.channels[self.dm_channels[user_id]]

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

    def fail(
        self,
        method: str,
        pattern: str,
        status: int,
        times: int = 1,
        *,
        retry_after: float = 0.01,
        code: int | None = None,
        message: str | None = None,
        is_global: bool = False,
    ) -> None:
        """Answer the next ``times`` requests matching (method or ``*``, path regex) with an error.

        429 comes with ``retry_after`` and the headers discord.py needs to retry; 403 defaults
        to code 50013, 404 to 10008. Note discord.py sleeps 1 s, 3 s, ... before retrying a 500.
        """
        default_code, default_message = _DEFAULT_ERRORS.get(status, (0, f"{status}: error"))
        self._faults.append(
            _Fault(
                method=method.upper(),
                pattern=re.compile(pattern),
                status=status,
                remaining=times,
                retry_after=retry_after,
                code=default_code if code is None else code,
                message=message or default_message,
                is_global=is_global,
            )
        )

    @property
    def pending_faults(self) -> int:
        """How many injected failures have not been served yet."""
        return sum(f.remaining for f in self._faults)

    # ------------------------------------------------------------------ waiting

    def _notify(self) -> None:
        waiters, self._waiters = self._waiters, []
        for w in waiters:
            if not w.done():
                w.set_result(None)

    def _notify_threadsafe(self) -> None:
        """Wake waiters from any thread (discord.py logs from its heartbeat thread too)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._notify()
        else:
            loop.call_soon_threadsafe(self._notify)

    async def wait_for(
        self, predicate: Callable[[], bool], timeout: float = 5.0, what: str = "a condition"
    ) -> None:
        """Wait until ``predicate()`` holds; re-checked after every request and gateway change.

        Fails fast if a watched task (the bot) died, and on timeout says what the bot did
        lately and which errors it logged, since handler exceptions never reach the test.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            for task in self._watched:
                if task.done():
                    exc = None if task.cancelled() else task.exception()
                    raise RuntimeError(f"the bot stopped while waiting for {what}") from exc
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(self._timeout_report(what, timeout))
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append(waiter)
            await asyncio.wait(
                [waiter, *self._watched], timeout=remaining, return_when=asyncio.FIRST_COMPLETED
            )

    def _timeout_report(self, what: str, timeout: float) -> str:
        lines = [f"timed out after {timeout}s waiting for {what}"]
        lines += [
            f"  recent request: {r.method} {r.path} -> {r.status}" for r in self.requests[-5:]
        ]
        for record in self.errors[-3:]:
            lines.append(f"  bot logged: {record.getMessage()}")
            if record.exc_info and record.exc_info[1] is not None:
                lines.append(f"    {record.exc_info[1]!r}")
        return "\n".join(lines)

    async def wait_for_message(
        self,
        channel_id: int,
        predicate: Callable[[JSON], bool] | None = None,
        timeout: float = 5.0,
    ) -> JSON:
        """The first live message in the channel matching ``predicate`` (waits for it)."""
        found: list[JSON] = []

        def check() -> bool:
            found[:] = [
                m for m in self.channel_messages(channel_id) if not predicate or predicate(m)
            ]
            return bool(found)

        await self.wait_for(check, timeout, f"a matching message in channel {channel_id}")
        return found[0]

    # ------------------------------------------------------------------ gateway

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self._sockets.add(ws)
        session = _Session(ws)
        try:
            await ws.send_json({"op": 10, "d": {"heartbeat_interval": 41_250}})
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                await self._on_frame(session, frame["op"], frame.get("d"))
        finally:
            self.close_codes.append(ws.close_code)
            self._sockets.discard(ws)
            session.live = False
            self._notify()
        return ws

    async def _on_frame(self, session: _Session, op: int, data: Any) -> None:
        if op == 1:
            await session.ws.send_json({"op": 11})
        elif op == 2:
            await self._identify(session, data)
        elif op == 6:
            await self._resume(session, data)
        elif op == 8:
            guild_id = int(data["guild_id"])
            members = list(self.guild_members.get(guild_id, {}).values())
            chunk = {"guild_id": str(guild_id), "members": members, "chunk_index": 0}
            chunk |= {"chunk_count": 1, "nonce": data.get("nonce")}
            await self._send(session, "GUILD_MEMBERS_CHUNK", chunk)

    async def _send(self, session: _Session, event: str, data: JSON) -> None:
        session.seq += 1
        await session.ws.send_json({"op": 0, "t": event, "s": session.seq, "d": data})

    def _shard_of(self, guild_id: int | None) -> int:
        return 0 if guild_id is None else (guild_id >> 22) % self.shard_count

    async def _identify(self, session: _Session, data: JSON) -> None:
        self.identifies.append(data)
        shard_id = int((data.get("shard") or [0, 1])[0])
        session.shard_id = shard_id
        session.session_id = f"session-{self.next_id()}"
        self._known_sessions[session.session_id] = session
        guild_ids = [g for g in self.guilds if self._shard_of(g) == shard_id]
        ready = {
            "v": 10,
            "user": self.users[self.bot_id],
            "guilds": [{"id": str(g), "unavailable": True} for g in guild_ids],
            "session_id": session.session_id,
            "resume_gateway_url": self.gateway_url,
            "shard": [shard_id, self.shard_count],
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
        }
        await self._send(session, "READY", ready)
        for guild_id in guild_ids:
            await self._send(session, "GUILD_CREATE", self._guild_create(guild_id))
        session.live = True
        self._sessions[shard_id] = session
        self._notify()

    async def _resume(self, session: _Session, data: JSON) -> None:
        old = self._known_sessions.get(data.get("session_id", ""))
        if old is None or not self.resume_ok:
            await session.ws.send_json({"op": 9, "d": False})
            return
        session.shard_id, session.session_id, session.seq = old.shard_id, old.session_id, old.seq
        self._known_sessions[session.session_id] = session
        self.resumes += 1
        await self._send(session, "RESUMED", {})
        session.live = True
        self._sessions[session.shard_id] = session
        self._notify()

    def connected(self, shard_id: int = 0) -> bool:
        session = self._sessions.get(shard_id)
        return session is not None and session.live and not session.ws.closed

    async def dispatch(
        self, event: str, data: JSON, *, guild_id: int | None = None, timeout: float = 5.0
    ) -> None:
        """Send a gateway event to the shard owning ``guild_id`` (waits for it to be connected)."""
        shard_id = self._shard_of(guild_id)
        await self.wait_for(lambda: self.connected(shard_id), timeout, f"shard {shard_id} online")
        await self._send(self._sessions[shard_id], event, data)

    async def drop_gateway(
        self, *, code: int = 4000, wait: bool = True, timeout: float = 5.0
    ) -> None:
        """Close the gateway connection(s) as Discord might; by default wait until back online.

        discord.py resumes at once after a 4000 close; if ``resume_ok`` is False it
        re-identifies instead, after its 5 s ``before_identify_hook`` sleep.
        """
        resumes, identifies = self.resumes, len(self.identifies)
        sessions = list(self._sessions.values())
        for session in sessions:
            session.live = False
            await session.ws.close(code=code)
        if wait:
            await self.wait_for(
                lambda: (
                    (self.resumes + len(self.identifies) >= resumes + identifies + len(sessions))
                    and all(self.connected(s.shard_id) for s in sessions)
                ),
                timeout,
                "the bot to reconnect",
            )

    # ------------------------------------------------------------------ interactions

    def _interaction_base(
        self,
        kind: int,
        data: JSON,
        user_id: int,
        channel_id: int | None,
        guild_id: int | None,
        *,
        permissions: int | None,
        message: JSON | None = None,
        locale: str = "en-US",
    ) -> tuple[JSON, int]:
        interaction_id = self.next_id()
        if guild_id is None:
            channel = self.dm_channel(user_id)
            channel_id = int(channel["id"])
        else:
            if channel_id is None or channel_id not in self.channels:
                raise KeyError(f"unknown channel {channel_id}; add it with add_guild first")
            channel = self.channels[channel_id]
        payload: JSON = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": kind,
            "data": data,
            "token": f"itoken-{interaction_id}",
            "version": 1,
            "attachment_size_limit": 10 * 1024 * 1024,
            "channel": channel,
            "channel_id": str(channel_id),
            "app_permissions": str(self.app_permissions),
            "entitlements": [],
            "authorizing_integration_owners": (
                {"0": str(guild_id)} if guild_id else {"1": str(user_id)}
            ),
            "context": 0 if guild_id else 1,
            "locale": locale,
        }
        if guild_id is not None:
            if user_id not in self.guild_members.get(guild_id, {}):
                raise KeyError(f"user {user_id} is not a member of guild {guild_id}")
            perms = self.permissions.get(user_id, DEFAULT_MEMBER_PERMISSIONS)
            member = self._member(user_id) | {
                "permissions": str(perms if permissions is None else permissions)
            }
            payload |= {
                "guild_id": str(guild_id),
                "member": member,
                "guild_locale": "en-US",
                "guild": {"id": str(guild_id), "locale": "en-US", "features": []},
            }
        else:
            payload["user"] = self.user(user_id)
        if message is not None:
            payload["message"] = copy.deepcopy(message)
        return payload, channel_id

    async def _interact(
        self,
        payload: JSON,
        user_id: int,
        channel_id: int,
        guild_id: int | None,
        message_id: int | None,
    ) -> InteractionRecord:
        record = InteractionRecord(
            fake=self,
            id=int(payload["id"]),
            token=payload["token"],
            kind=payload["type"],
            payload=payload,
            user_id=user_id,
            channel_id=channel_id,
            guild_id=guild_id,
            message_id=message_id,
        )
        self.interactions[record.id] = record
        self._by_token[record.token] = record
        await self.dispatch("INTERACTION_CREATE", payload, guild_id=guild_id)
        return record

    def _find_command(self, name: str, guild_id: int | None) -> tuple[JSON | None, int | None]:
        if guild_id is not None:
            for command in self.guild_commands.get(guild_id, []):
                if command["name"] == name:
                    return command, guild_id
        for command in self.commands or []:
            if command["name"] == name:
                return command, None
        return None, None

    def _encode_options(
        self, declared: list[JSON] | None, values: dict[str, Any], guild_id: int | None
    ) -> tuple[list[JSON], JSON]:
        """Typed option payloads plus ``resolved`` for user options, checked against the sync."""
        by_name = {o["name"]: o for o in declared or []}
        if declared is not None:
            unknown = set(values) - set(by_name)
            missing = {n for n, o in by_name.items() if o.get("required") and n not in values}
            if unknown or missing:
                raise ValueError(
                    f"options {sorted(unknown)} unknown / {sorted(missing)} missing; "
                    f"the command declares {sorted(by_name)}"
                )
        options: list[JSON] = []
        resolved: JSON = {}
        for name, value in values.items():
            kind = by_name[name]["type"] if name in by_name else self._infer_type(value)
            if kind in (6, 9):  # user / mentionable
                user_id = int(value)
                resolved.setdefault("users", {})[str(user_id)] = self.user(user_id)
                member = self.guild_members.get(guild_id or 0, {}).get(user_id)
                if member is not None:
                    entry = {k: v for k, v in member.items() if k != "user"}
                    entry["permissions"] = str(self.permissions.get(user_id, 0))
                    resolved.setdefault("members", {})[str(user_id)] = entry
                value = str(user_id)
            elif kind == 7:  # channel
                channel = self.channels[int(value)]
                resolved.setdefault("channels", {})[str(value)] = channel | {"permissions": "0"}
                value = str(value)
            elif kind == 4:
                value = int(value)
            elif kind == 10:
                value = float(value)
            elif kind == 3:
                value = str(value)
            options.append({"name": name, "type": kind, "value": value})
        return options, resolved

    @staticmethod
    def _infer_type(value: Any) -> int:
        if isinstance(value, bool):
            return 5
        if isinstance(value, int):
            return 4
        if isinstance(value, float):
            return 10
        return 3

    def _check_command_permission(
        self, command: JSON | None, user_id: int, guild_id: int | None, permissions: int | None
    ) -> None:
        """Discord's client will not even send a command the member may not use.

        A command's ``default_member_permissions`` must all be held (Administrator holds
        every one); a refused attempt raises PermissionError, as nothing reaches the bot.
        """
        required = (command or {}).get("default_member_permissions")
        if guild_id is None or required is None:
            return
        held = self.permissions.get(user_id, DEFAULT_MEMBER_PERMISSIONS)
        held = held if permissions is None else permissions
        if held & ADMINISTRATOR or int(required) & held == int(required):
            return
        raise PermissionError(f"user {user_id} lacks {required} for /{command and command['name']}")

    async def slash(
        self,
        user_id: int,
        guild_id: int | None,
        channel_id: int | None,
        name: str,
        options: dict[str, Any] | None = None,
        subcommand: str | None = None,
        *,
        permissions: int | None = None,
        command_guild_id: int | None = None,
        locale: str = "en-US",
    ) -> InteractionRecord:
        """Run a chat-input command as ``user_id``; guild_id None means in the bot's DMs.

        ``name`` may hold the path (``"cheerio new"``) or use ``subcommand`` (``"new"`` or
        ``"group sub"``). Option types come from the last synced commands when known (user
        options get ``resolved``), else from the Python values. ``command_guild_id`` names the
        guild a command was registered to when the bot skipped syncing this run.
        """
        path = name.split() + (subcommand.split() if subcommand else [])
        root, subs = path[0], path[1:]
        command, registered_in = self._find_command(root, guild_id)
        self._check_command_permission(command, user_id, guild_id, permissions)
        if command_guild_id is not None:
            registered_in = command_guild_id
        declared: list[JSON] | None = None if command is None else command.get("options", [])
        for sub in subs:
            if declared is None:
                break
            step = next((o for o in declared if o["name"] == sub and o["type"] in (1, 2)), None)
            if step is None:
                raise ValueError(f"/{' '.join(path)}: no subcommand {sub!r} in the synced command")
            declared = step.get("options", [])
        leaf, resolved = self._encode_options(declared, options or {}, guild_id)
        for depth in range(len(subs) - 1, -1, -1):
            kind = 1 if depth == len(subs) - 1 else 2
            leaf = [{"name": subs[depth], "type": kind, "options": leaf}]
        data: JSON = {
            "id": str(command["id"]) if command else str(self.next_id()),
            "name": root,
            "type": 1,
            "options": leaf,
        }
        if resolved:
            data["resolved"] = resolved
        if registered_in is not None:
            data["guild_id"] = str(registered_in)
        payload, channel_id = self._interaction_base(
            2, data, user_id, channel_id, guild_id, permissions=permissions, locale=locale
        )
        return await self._interact(payload, user_id, channel_id, guild_id, None)

    def _component_target(
        self, message_id: int, custom_id: str | Component, types: frozenset[int], force: bool
    ) -> tuple[JSON, Component]:
        message = self.message(message_id)
        wanted = custom_id.custom_id if isinstance(custom_id, Component) else custom_id
        comps = [c for c in components_of(message) if c.custom_id == wanted and c.type in types]
        if not comps:
            shown = [(c.label, c.custom_id) for c in components_of(message)]
            raise LookupError(f"no component {wanted!r} on message {message_id}: {shown}")
        if comps[0].disabled and not force:
            raise AssertionError(f"component {wanted!r} on message {message_id} is disabled")
        return message, comps[0]

    async def _component(
        self,
        user_id: int,
        message_id: int,
        data: JSON,
        *,
        permissions: int | None,
    ) -> InteractionRecord:
        message = self.message(message_id)
        channel_id = int(message["channel_id"])
        guild_id = int(message["guild_id"]) if message.get("guild_id") else None
        payload, channel_id = self._interaction_base(
            3, data, user_id, channel_id, guild_id, permissions=permissions, message=message
        )
        return await self._interact(payload, user_id, channel_id, guild_id, message_id)

    async def click(
        self,
        user_id: int,
        message_id: int,
        custom_id: str | Component,
        *,
        force: bool = False,
        permissions: int | None = None,
    ) -> InteractionRecord:
        """Press a button on a stored message (refuses disabled ones unless ``force``)."""
        _, button = self._component_target(message_id, custom_id, frozenset({_BUTTON}), force)
        data = {"custom_id": button.custom_id, "component_type": _BUTTON}
        return await self._component(user_id, message_id, data, permissions=permissions)

    async def forge(
        self,
        user_id: int,
        message_id: int,
        custom_id: str,
        *,
        values: list[str] | None = None,
    ) -> InteractionRecord:
        """A component interaction with any custom_id, as a forged or outdated client sends."""
        data: JSON = {"custom_id": custom_id, "component_type": _BUTTON if values is None else 3}
        if values is not None:
            data["values"] = values
        return await self._component(user_id, message_id, data, permissions=None)

    async def select(
        self,
        user_id: int,
        message_id: int,
        custom_id: str | Component,
        values: list[str],
        *,
        force: bool = False,
        permissions: int | None = None,
    ) -> InteractionRecord:
        """Choose ``values`` in a select menu on a stored message."""
        _, menu = self._component_target(message_id, custom_id, _SELECTS, force)
        if menu.type == 3 and menu.options and not set(values) <= set(menu.options):
            raise ValueError(f"values {values} not among the options {menu.options}")
        data: JSON = {"custom_id": menu.custom_id, "component_type": menu.type, "values": values}
        if menu.type in (5, 7):  # user / mentionable selects resolve users
            data["resolved"] = {"users": {v: self.user(int(v)) for v in values}}
        return await self._component(user_id, message_id, data, permissions=permissions)

    def last_modal(self, user_id: int, custom_id: str | None = None) -> InteractionRecord | None:
        """The latest interaction of this user the bot answered with a modal."""
        for record in reversed(self.interactions.values()):
            modal = record.modal
            if (
                record.user_id == user_id
                and modal is not None
                and custom_id in (None, modal.get("custom_id"))
            ):
                return record
        return None

    async def submit_modal(
        self,
        user_id: int,
        channel_id: int | None,
        custom_id: str,
        fields: dict[str, str | list[str]],
        *,
        message_id: int | None = None,
        permissions: int | None = None,
    ) -> InteractionRecord:
        """Submit a modal; ``fields`` maps text input (or select) custom_id to its value.

        When the bot opened this modal earlier, unknown fields are refused, missing ones are
        sent empty (required ones refused), and a modal opened from a button carries its
        message, as Discord does.
        """
        opened = self.last_modal(user_id, custom_id)
        if opened is not None and opened.modal is not None:
            inputs = {c.custom_id: c for c in components_of(opened.modal) if c.custom_id}
            unknown = set(fields) - set(inputs)
            if unknown:
                raise KeyError(
                    f"modal {custom_id!r} has no fields {sorted(unknown)}: {list(inputs)}"
                )
            for cid, c in inputs.items():
                if cid not in fields and c.type == _TEXT_INPUT:
                    if c.raw.get("required", True):
                        raise ValueError(f"modal field {cid!r} is required")
                    fields = {**fields, cid: ""}
            if message_id is None:
                message_id = opened.message_id
        rows: list[JSON] = []
        for cid, value in fields.items():
            if isinstance(value, list):
                rows.append(
                    {"type": 18, "component": {"type": 3, "custom_id": cid, "values": value}}
                )
            else:
                rows.append(
                    {"type": 1, "components": [{"type": 4, "custom_id": cid, "value": value}]}
                )
        message = None if message_id is None else self.message(message_id)
        guild_id = None
        if message is not None:
            channel_id = int(message["channel_id"])
        if channel_id is not None and self.channels.get(channel_id, {}).get("guild_id"):
            guild_id = int(self.channels[channel_id]["guild_id"])
        data = {"custom_id": custom_id, "components": rows}
        payload, channel_id = self._interaction_base(
            5, data, user_id, channel_id, guild_id, permissions=permissions, message=message
        )
        return await self._interact(payload, user_id, channel_id, guild_id, message_id)

    # ------------------------------------------------------------------ messages

    def _attachments(self, body: JSON, uploads: list[Upload], keep: list[JSON]) -> list[JSON]:
        """Discord's rule: listed existing ids stay, listed upload indexes become new files."""
        listed = body.get("attachments")
        by_field = {u.form_name: u for u in uploads}
        result: list[JSON] = []
        used: set[str] = set()
        if listed is None:
            result = list(keep)
        else:
            old = {a["id"]: a for a in keep}
            for entry in listed:
                ident = str(entry.get("id"))
                if ident in old:
                    result.append(old[ident])
                    continue
                upload = by_field.get(f"files[{ident}]")
                if upload is not None:
                    used.add(upload.form_name)
                    result.append(self._attachment_meta(upload, entry))
        for upload in uploads:
            if upload.form_name not in used:
                result.append(self._attachment_meta(upload, {}))
        return result

    def _attachment_meta(self, upload: Upload, entry: JSON) -> JSON:
        aid = self.next_id()
        self._files[aid] = upload
        url = f"{self.base_url}/attachments/{aid}/{upload.filename}"
        return {
            "id": str(aid),
            "filename": entry.get("filename") or upload.filename,
            "description": entry.get("description"),
            "content_type": upload.content_type,
            "size": upload.size,
            "url": url,
            "proxy_url": url,
        }

    def _create_message(
        self,
        channel_id: int,
        body: JSON,
        uploads: list[Upload],
        *,
        kind: int = 0,
        flags: int = 0,
    ) -> JSON:
        channel = self.channels[channel_id]
        message_id = self.next_id()
        message: JSON = {
            "id": str(message_id),
            "channel_id": str(channel_id),
            "author": self.users[self.bot_id],
            "content": body.get("content") or "",
            "timestamp": _now_iso(),
            "edited_timestamp": None,
            "tts": bool(body.get("tts", False)),
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": self._attachments(body, uploads, []),
            "embeds": body.get("embeds") or [],
            "components": body.get("components") or [],
            "pinned": False,
            "type": kind,
            "flags": int(body.get("flags") or 0) | flags,
            "application_id": str(self.application_id),
        }
        for key in ("poll", "sticker_items", "message_reference"):
            if body.get(key) is not None:
                message[key] = body[key]
        if channel.get("guild_id"):
            message["guild_id"] = channel["guild_id"]
        channel["last_message_id"] = str(message_id)
        self.messages[message_id] = message
        self.versions[message_id] = [copy.deepcopy(message)]
        self._channel_order.setdefault(channel_id, []).append(message_id)
        return message

    def _edit_message(self, message: JSON, body: JSON, uploads: list[Upload]) -> JSON:
        for key in ("content", "embeds", "components", "poll"):
            if key in body:
                message[key] = (
                    body[key] if body[key] is not None else ([] if key != "content" else "")
                )
        if body.get("flags") is not None:
            message["flags"] = int(body["flags"]) | (int(message["flags"]) & EPHEMERAL)
        message["flags"] = int(message["flags"]) & ~LOADING
        if "attachments" in body or uploads:
            message["attachments"] = self._attachments(body, uploads, message["attachments"])
        message["edited_timestamp"] = _now_iso()
        self.versions[int(message["id"])].append(copy.deepcopy(message))
        return message

    def _delete_message(self, message_id: int) -> None:
        self.deleted[message_id] = self.messages.pop(message_id)

    # ------------------------------------------------------------------ REST plumbing

    async def _attachment(self, request: web.Request) -> web.Response:
        upload = self._files.get(int(request.match_info["aid"]))
        if upload is None:
            return web.Response(status=404)
        return web.Response(
            body=upload.data, content_type=upload.content_type or "application/octet-stream"
        )

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        body: Any = None
        uploads: list[Upload] = []
        if request.content_type == "multipart/form-data":
            reader = await request.multipart()
            while (part := await reader.next()) is not None:
                if not isinstance(part, BodyPartReader):
                    continue
                raw = await part.read()
                if part.name == "payload_json":
                    body = json.loads(raw)
                else:
                    content_type = part.headers.get("Content-Type")
                    uploads.append(
                        Upload(part.name or "", part.filename or "", content_type, bytes(raw))
                    )
        elif request.can_read_body:
            raw = await request.read()
            body = json.loads(raw) if raw else None
        record = Request(request.method, path, dict(request.query), body, uploads)
        self.requests.append(record)
        try:
            response = await self._route(record)
        except Exception as exc:  # a bug in the fake: answer 500 and keep it visible
            logging.getLogger(__name__).exception(
                "fake Discord failed on %s %s", request.method, path
            )
            response = _error(500, 0, f"fake Discord crashed: {exc!r}")
        record.status = response.status
        self._notify()
        return response

    async def _route(self, record: Request) -> web.StreamResponse:
        for fault in self._faults:
            if fault.matches(record.method, record.path):
                fault.remaining -= 1
                return fault.response()
        for method, pattern, handler in self._routes:
            if method != record.method:
                continue
            match = pattern.fullmatch(record.path)
            if match:
                problems = self._problems(handler, record.json) if self.strict else []
                if problems:
                    return _json_response(
                        {
                            "code": INVALID_FORM_BODY,
                            "message": "Invalid Form Body",
                            "errors": problems,
                        },
                        400,
                    )
                return await handler(_Call(record, match.groupdict()))
        self.unhandled.append(record)
        return _error(
            404, UNKNOWN_MESSAGE, f"fake Discord has no route {record.method} {record.path}"
        )

    def _problems(self, handler: Handler, body: Any) -> list[str]:
        if not isinstance(body, dict):
            return []
        if handler == self._callback:
            data = body.get("data") or {}
            kind = body.get("type")
            return payload_problems(data, modal=kind == 9) if kind in (4, 7, 9) else []
        message_handlers = (
            self._post_message,
            self._patch_message,
            self._followup,
            self._webhook_edit,
        )
        return payload_problems(body) if handler in message_handlers else []

    def _register_routes(self) -> None:
        """Discord's routes, written as in its docs; ``{x}`` is a snowflake unless listed below."""
        special = {"token": r"[^/]+", "mid": r"@original|\d+", "emoji": r"[^/]+"}
        snowflake = r"\d+"
        hook, message = "/webhooks/{app}/{token}", "/channels/{channel}/messages/{mid}"
        table: list[tuple[str, str, Handler]] = [
            ("GET", "/gateway", self._get_gateway),
            ("GET", "/gateway/bot", self._get_gateway),
            ("GET", "/users/@me", self._get_me),
            ("GET", "/users/{user}", self._get_user),
            ("POST", "/users/@me/channels", self._create_dm),
            ("GET", "/oauth2/applications/@me", self._get_application),
            ("GET", "/applications/@me", self._get_application),
            ("GET", "/applications/{app}/commands", self._get_commands),
            ("PUT", "/applications/{app}/commands", self._put_commands),
            ("GET", "/applications/{app}/guilds/{guild}/commands", self._get_commands),
            ("PUT", "/applications/{app}/guilds/{guild}/commands", self._put_commands),
            ("POST", "/interactions/{iid}/{token}/callback", self._callback),
            ("POST", hook, self._followup),
            ("GET", hook + "/messages/{mid}", self._webhook_get),
            ("PATCH", hook + "/messages/{mid}", self._webhook_edit),
            ("DELETE", hook + "/messages/{mid}", self._webhook_delete),
            ("GET", "/channels/{channel}", self._get_channel),
            ("POST", "/channels/{channel}/typing", self._typing),
            ("GET", "/channels/{channel}/messages", self._history),
            ("POST", "/channels/{channel}/messages", self._post_message),
            ("GET", message, self._get_message),
            ("PATCH", message, self._patch_message),
            ("DELETE", message, self._del_message),
            ("PUT", message + "/reactions/{emoji}/@me", self._reaction),
            ("DELETE", message + "/reactions/{emoji}/@me", self._reaction),
            ("GET", "/guilds/{guild}", self._get_guild),
            ("GET", "/guilds/{guild}/channels", self._get_guild_channels),
            ("GET", "/guilds/{guild}/members/{user}", self._get_member),
        ]

        def compile_path(path: str) -> re.Pattern[str]:
            def group(m: re.Match[str]) -> str:
                return f"(?P<{m[1]}>{special.get(m[1], snowflake)})"

            return re.compile(re.sub(r"\{(\w+)\}", group, path))

        self._routes = [(m, compile_path(p), h) for m, p, h in table]

    # ------------------------------------------------------------------ REST handlers

    async def _get_gateway(self, call: _Call) -> web.Response:
        limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
        return _json_response(
            {"url": self.gateway_url, "shards": self.shard_count, "session_start_limit": limit}
        )

    async def _get_me(self, call: _Call) -> web.Response:
        return _json_response(self.users[self.bot_id])

    async def _get_user(self, call: _Call) -> web.Response:
        user = self.users.get(call.id("user"))
        return _json_response(user) if user else _error(404, UNKNOWN_USER, "Unknown User")

    async def _get_application(self, call: _Call) -> web.Response:
        return _json_response(
            {
                "id": str(self.application_id),
                "name": self.users[self.bot_id]["username"],
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": self.users[self.owner_id],
                "team": None,
                "verify_key": "0" * 64,
                "flags": 0,
                "bot": self.users[self.bot_id],
            }
        )

    async def _get_commands(self, call: _Call) -> web.Response:
        if "guild" in call.params:
            return _json_response(self.guild_commands.get(call.id("guild"), []))
        return _json_response(self.commands or [])

    async def _put_commands(self, call: _Call) -> web.Response:
        """Bulk overwrite: echo with ids, keeping ids of commands that already existed."""
        guild_id = call.id("guild") if "guild" in call.params else None
        old = self.commands if guild_id is None else self.guild_commands.get(guild_id)
        old_ids = {c["name"]: c["id"] for c in old or []}
        echoed = []
        for command in call.body or []:
            item = dict(command)
            item.update(
                id=old_ids.get(command["name"]) or str(self.next_id()),
                application_id=str(self.application_id),
                version=str(self.next_id()),
            )
            item.setdefault("description", "")
            item.setdefault("type", 1)
            if guild_id is not None:
                item["guild_id"] = str(guild_id)
            echoed.append(item)
        if guild_id is None:
            self.commands = echoed
        else:
            self.guild_commands[guild_id] = echoed
        return _json_response(echoed)

    async def _create_dm(self, call: _Call) -> web.Response:
        user_id = int(call.body["recipient_id"])
        return _json_response(self.dm_channel(user_id))

    async def _get_channel(self, call: _Call) -> web.Response:
        channel = self.channels.get(call.id("channel"))
        return (
            _json_response(channel) if channel else _error(404, UNKNOWN_CHANNEL, "Unknown Channel")
        )

    async def _typing(self, call: _Call) -> web.Response:
        return _no_content()

    async def _history(self, call: _Call) -> web.Response:
        limit = int(call.request.query.get("limit", 50))
        newest_first = list(reversed(self.channel_messages(call.id("channel"))))
        return _json_response(newest_first[:limit])

    async def _post_message(self, call: _Call) -> web.Response:
        channel_id = call.id("channel")
        channel = self.channels.get(channel_id)
        if channel is None:
            return _error(404, UNKNOWN_CHANNEL, "Unknown Channel")
        if channel["type"] == 1 and int(channel["recipients"][0]["id"]) in self.dms_closed:
            return _error(403, CANNOT_DM_USER, "Cannot send messages to this user")
        body = call.body or {}
        if not (
            body.get("content")
            or body.get("embeds")
            or body.get("components")
            or call.uploads
            or body.get("poll")
            or body.get("sticker_ids")
        ):
            return _error(400, 50006, "Cannot send an empty message")
        return _json_response(self._create_message(channel_id, body, call.uploads))

    def _channel_message(self, call: _Call) -> JSON | None:
        message = self.messages.get(call.id("mid"))
        if message is None or int(message["channel_id"]) != call.id("channel"):
            return None
        return message

    async def _get_message(self, call: _Call) -> web.Response:
        message = self._channel_message(call)
        return (
            _json_response(message) if message else _error(404, UNKNOWN_MESSAGE, "Unknown Message")
        )

    async def _patch_message(self, call: _Call) -> web.Response:
        message = self._channel_message(call)
        if message is None:
            return _error(404, UNKNOWN_MESSAGE, "Unknown Message")
        return _json_response(self._edit_message(message, call.body or {}, call.uploads))

    async def _del_message(self, call: _Call) -> web.Response:
        if self._channel_message(call) is None:
            return _error(404, UNKNOWN_MESSAGE, "Unknown Message")
        self._delete_message(call.id("mid"))
        return _no_content()

    async def _reaction(self, call: _Call) -> web.Response:
        if self._channel_message(call) is None:
            return _error(404, UNKNOWN_MESSAGE, "Unknown Message")
        entry = (call.request.method, call.id("channel"), call.id("mid"), call.params["emoji"])
        self.reactions.append(entry)
        return _no_content()

    async def _get_guild(self, call: _Call) -> web.Response:
        guild_id = call.id("guild")
        if guild_id not in self.guilds:
            return _error(404, 10004, "Unknown Guild")
        data = self._guild_create(guild_id)
        return _json_response({k: v for k, v in data.items() if k not in ("members", "channels")})

    async def _get_guild_channels(self, call: _Call) -> web.Response:
        guild = self.guilds.get(call.id("guild"))
        if guild is None:
            return _error(404, 10004, "Unknown Guild")
        return _json_response([self.channels[c] for c in guild["channel_ids"]])

    async def _get_member(self, call: _Call) -> web.Response:
        member = self.guild_members.get(call.id("guild"), {}).get(call.id("user"))
        return _json_response(member) if member else _error(404, 10007, "Unknown Member")

    # interactions

    def _record_for(self, call: _Call) -> InteractionRecord | None:
        record = self._by_token.get(call.params["token"])
        if record is None:
            return None
        if "app" in call.params and call.id("app") != self.application_id:
            return None
        return record

    async def _callback(self, call: _Call) -> web.Response:
        record = self._record_for(call)
        if record is None or record.id != call.id("iid"):
            return _error(404, UNKNOWN_INTERACTION, "Unknown interaction")
        if record.callback is not None:
            return _error(400, ALREADY_ACKNOWLEDGED, "Interaction has already been acknowledged.")
        body = call.body or {}
        kind = int(body["type"])
        data = body.get("data") or {}
        message: JSON | None = None
        if kind in (6, 7):
            if record.message_id is None or record.message_id not in self.messages:
                return _error(400, INVALID_FORM_BODY, "Interaction has no message to update")
            message = self.messages[record.message_id]
            if kind == 7:
                self._edit_message(message, data, call.uploads)
            record.original_id = record.message_id
        elif kind == 4:
            message_kind = 20 if record.kind == 2 else 0
            message = self._create_message(record.channel_id, data, call.uploads, kind=message_kind)
            record.original_id = int(message["id"])
        elif kind == 5:
            placeholder = {"flags": int(data.get("flags") or 0) & EPHEMERAL}
            message = self._create_message(
                record.channel_id,
                placeholder,
                [],
                kind=20 if record.kind == 2 else 0,
                flags=LOADING,
            )
            record.original_id = int(message["id"])
        record.callback = body
        record.callback_uploads = list(call.uploads)
        answer: JSON = {
            "interaction": {
                "id": str(record.id),
                "type": record.kind,
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool(int(data.get("flags") or 0) & EPHEMERAL),
            }
        }
        if message is not None:
            answer["interaction"]["response_message_id"] = message["id"]
            answer["resource"] = {"type": kind, "message": message}
        return _json_response(answer)

    def _webhook_target(self, call: _Call) -> tuple[InteractionRecord | None, JSON | None]:
        record = self._record_for(call)
        if record is None or record.callback is None:
            return None, None
        mid = call.params["mid"]
        if mid == "@original":
            target = record.original_id
        else:
            target = int(mid)
            if target != record.original_id and target not in record.followup_ids:
                return record, None
        return record, None if target is None else self.messages.get(target)

    async def _followup(self, call: _Call) -> web.Response:
        record = self._record_for(call)
        if record is None or record.callback is None:
            return _error(404, UNKNOWN_WEBHOOK, "Unknown Webhook")
        body = call.body or {}
        loading = record.original
        if record.type == 5 and loading is not None and int(loading["flags"]) & LOADING:
            # Discord: the first follow-up after a "thinking" defer replaces the loading message,
            # keeping the defer's ephemeral choice.
            message = self._edit_message(
                loading, {k: v for k, v in body.items() if k != "flags"}, call.uploads
            )
            message["edited_timestamp"] = None
        else:
            message = self._create_message(record.channel_id, body, call.uploads)
        record.followup_ids.append(int(message["id"]))
        if call.request.query.get("wait", "").lower() in ("1", "true"):
            return _json_response(message)
        return _no_content()

    async def _webhook_get(self, call: _Call) -> web.Response:
        record, message = self._webhook_target(call)
        if record is None:
            return _error(404, UNKNOWN_WEBHOOK, "Unknown Webhook")
        return (
            _json_response(message) if message else _error(404, UNKNOWN_MESSAGE, "Unknown Message")
        )

    async def _webhook_edit(self, call: _Call) -> web.Response:
        record, message = self._webhook_target(call)
        if record is None:
            return _error(404, UNKNOWN_WEBHOOK, "Unknown Webhook")
        if message is None:
            return _error(404, UNKNOWN_MESSAGE, "Unknown Message")
        record.edits.append(call.body or {})
        return _json_response(self._edit_message(message, call.body or {}, call.uploads))

    async def _webhook_delete(self, call: _Call) -> web.Response:
        record, message = self._webhook_target(call)
        if record is None:
            return _error(404, UNKNOWN_WEBHOOK, "Unknown Webhook")
        if message is None:
            return _error(404, UNKNOWN_MESSAGE, "Unknown Message")
        self._delete_message(int(message["id"]))
        return _no_content()


@asynccontextmanager
async def run_bot(
    bot: discord.Client,
    fake: FakeDiscord | None = None,
    *,
    token: str = "fake-token",
    timeout: float = 5.0,
) -> AsyncIterator[discord.Client]:
    """Log the bot in, connect it, wait for on_ready; close it on exit.

    This is ``bot.start`` in two steps: ``login`` (runs ``setup_hook``, so its errors raise
    here) and ``connect`` as a task raced against ``wait_until_ready``, because a gateway
    payload discord.py cannot parse kills that task without any other sign.
    """
    try:
        await bot.login(token)
    except BaseException:
        await bot.close()
        raise
    connecting = asyncio.create_task(bot.connect(reconnect=True), name="bot.connect")
    ready = asyncio.create_task(bot.wait_until_ready(), name="bot.wait_until_ready")
    done, _ = await asyncio.wait(
        {connecting, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
    )
    if ready not in done:
        ready.cancel()
        await bot.close()
        if connecting in done:
            connecting.result()  # raises what killed it
            raise RuntimeError("bot.connect() returned before the bot was ready")
        connecting.cancel()
        with suppress(asyncio.CancelledError):
            await connecting
        raise TimeoutError(f"the bot was not ready after {timeout}s")
    if fake is not None:
        fake.watch(connecting)
    try:
        yield bot
    finally:
        if fake is not None and connecting in fake._watched:
            fake._watched.remove(connecting)
        await bot.close()
        try:
            await asyncio.wait_for(asyncio.shield(connecting), 2.0)
        except TimeoutError:
            connecting.cancel()
            with suppress(asyncio.CancelledError):
                await connecting
