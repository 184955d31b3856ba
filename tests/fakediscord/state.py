"""Everything the fake knows and records, in one object the other parts share.

The REST routes, the gateway and the test helpers are mixins over this state (see
``server.FakeDiscord``): tests read these attributes directly, so their names are the API.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
import time
from typing import TYPE_CHECKING, Any

import yarl
from aiohttp import web

from tests.fakediscord.models import Request, Upload
from tests.fakediscord.protocol import (
    DEFAULT_APP_PERMISSIONS,
    DISCORD_EPOCH_MS,
    GLOBAL_LIMIT,
    JSON,
    ROUTE_LIMITS,
    RouteLimit,
)
from tests.fakediscord.record import InteractionRecord

if TYPE_CHECKING:
    from tests.fakediscord.faults import Fault
    from tests.fakediscord.gateway import Session
    from tests.fakediscord.ratelimits import Window
    from tests.fakediscord.routing import Route


class State:
    """Users, guilds, channels, messages, requests and interactions, as Discord would hold them."""

    def __init__(
        self,
        *,
        application_id: int,
        bot_id: int,
        owner_id: int,
        shard_count: int,
    ) -> None:
        self.application_id = application_id
        self.bot_id = bot_id
        self.owner_id = owner_id
        self.shard_count = shard_count
        self.port = 0
        self.app_permissions = DEFAULT_APP_PERMISSIONS
        self.resume_ok = True  # False: answer RESUME with op 9 (discord.py then waits 5 s)
        self.strict = True  # refuse bodies over Discord's size limits with 400 / 50035
        # Discord's clocks: an interaction is answered within 3 s of its creation (its id's
        # time) or never; an acknowledged one's token works for follow-ups for 15 minutes.
        self.callback_window = 3.0
        self.token_lifetime = 15 * 60.0
        self.interaction_age = 0.0  # how old a new interaction is on arrival (a gateway backlog)
        self.route_limits: tuple[RouteLimit, ...] = ROUTE_LIMITS
        self.global_limit = GLOBAL_LIMIT  # (requests, per seconds)
        self._windows: dict[tuple[str, str], Window] = {}

        self.users: dict[int, JSON] = {}
        self.guilds: dict[int, JSON] = {}
        self.channels: dict[int, JSON] = {}
        self.guild_members: dict[int, dict[int, JSON]] = {}
        # Servers in an outage: READY lists them unavailable, as every server, but no
        # GUILD_CREATE follows (discord.py never learns their channels) until ``end_outage``;
        # ``begin_outage`` starts one while the bot runs (GUILD_DELETE, ``unavailable``).
        self.outages: set[int] = set()
        # Servers that removed the bot (``remove_bot``): no event of theirs reaches it, nor
        # does READY list them, until ``add_bot`` invites it back.
        self.removed: set[int] = set()
        self.nicks: dict[tuple[int, int], str | None] = {}  # (guild, user) -> nickname there
        self.permissions: dict[int, int] = {}  # per-user member permissions override
        self.dm_channels: dict[int, int] = {}  # user id -> DM channel id
        self.dms_closed: set[int] = set()

        self.messages: dict[int, JSON] = {}  # live messages by id
        self.deleted: dict[int, JSON] = {}  # deleted messages by id, last version
        self.versions: dict[int, list[JSON]] = {}  # every version of each message
        self._channel_order: dict[int, list[int]] = {}
        self.reactions: list[tuple[str, int, int, str]] = []  # (PUT/DELETE, channel, msg, emoji)
        self.app_emojis: dict[int, JSON] = {}  # the application's emojis by id
        self.emoji_images: dict[int, bytes] = {}  # each one's decoded image

        self.requests: list[Request] = []
        self.unhandled: list[Request] = []
        self.commands: list[JSON] | None = None  # last global sync
        self.guild_commands: dict[int, list[JSON]] = {}  # last sync per guild
        self.interactions: dict[int, InteractionRecord] = {}
        self.double_answers: list[InteractionRecord] = []  # answered twice (Discord: 40060)
        self._by_token: dict[str, InteractionRecord] = {}
        self.errors: list[logging.LogRecord] = []

        self.identifies: list[JSON] = []
        # Discord's IDENTIFY limits: shards start in ``max_concurrency`` buckets (bucket =
        # shard_id % max_concurrency), one IDENTIFY per bucket per ``identify_interval`` s; a
        # faster one is answered op 9 (invalid session) and kept in ``identifies_refused``.
        # None: not enforced, for tests that restart a bot within 5 s on purpose (Discord
        # would refuse it, discord.py would retry 5 s later: slower, nothing else).
        self.max_concurrency = 1
        self.identify_interval: float | None = None
        self.identifies_refused: list[JSON] = []
        self._last_identify: dict[int, float] = {}  # per bucket, accepted ones only
        # Each ended gateway connection's close code: the bot's own when it sent a close frame
        # (discord.py's close() sends 1000), 1006 when the connection just dropped.
        self.close_codes: list[int | None] = []
        self.resumes = 0
        self._sessions: dict[int, Session] = {}
        self._known_sessions: dict[str, Session] = {}
        self._sockets: set[web.WebSocketResponse] = set()

        self._faults: list[Fault] = []
        self._holds: list[tuple[str, re.Pattern[str], asyncio.Event]] = []
        self._waiters: list[asyncio.Future[None]] = []
        self._watched: list[asyncio.Task[Any]] = []
        self._ids = itertools.count(1)
        self._last_id = 0
        self._runner: web.AppRunner | None = None
        self._saved: tuple[str, yarl.URL] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._routes: list[tuple[re.Pattern[str], Route]] = []
        self._files: dict[int, Upload] = {}

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gw/"

    def next_id(self) -> int:
        """A fresh snowflake carrying the current time, as discord.py derives times from ids."""
        self._last_id = max(self._last_id + 1, self.snowflake_at(time.time()))
        return self._last_id

    def snowflake_at(self, when: float) -> int:
        """A unique snowflake carrying the time ``when`` (seconds since the Unix epoch)."""
        ms = int(when * 1000) - DISCORD_EPOCH_MS
        return (ms << 22) | (next(self._ids) & 0x3FFFFF)
