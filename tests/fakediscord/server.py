"""The fake Discord as one object: the aiohttp app, REST routing, and installing into discord.py.

``FakeDiscord`` gathers the parts (state, gateway, REST routes by topic, test helpers), each a
mixin over :class:`~tests.fakediscord.state.State` in a module of its own.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import BodyPartReader, web

from tests.fakediscord.clicks import Clicks
from tests.fakediscord.faults import Faults
from tests.fakediscord.forms import Forms
from tests.fakediscord.limits import Refused, form_errors
from tests.fakediscord.models import Request, Upload
from tests.fakediscord.protocol import INVALID_FORM_BODY, error, json_response
from tests.fakediscord.ratelimits import RateLimits
from tests.fakediscord.rest_app import AppRoutes
from tests.fakediscord.rest_channels import ChannelRoutes
from tests.fakediscord.rest_commands import CommandRoutes
from tests.fakediscord.rest_interactions import InteractionRoutes
from tests.fakediscord.rest_messages import MessageRoutes
from tests.fakediscord.routing import Call, compile_path
from tests.fakediscord.slash import Slash
from tests.fakediscord.waiting import ErrorLog


class FakeDiscord(
    Slash,
    Clicks,
    Forms,
    Faults,
    RateLimits,
    AppRoutes,
    CommandRoutes,
    InteractionRoutes,
    ChannelRoutes,
    MessageRoutes,
):
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
        super().__init__(
            application_id=application_id,
            bot_id=bot_id if bot_id is not None else application_id,
            owner_id=owner_id,
            shard_count=shard_count,
        )
        self._log_handler = ErrorLog(self.errors, self._notify_threadsafe)
        self._register_routes()
        self.add_user(self.bot_id, bot_name, bot=True)
        self.add_user(owner_id, "owner")

    # ------------------------------------------------------------------ lifecycle

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
        """Start, install, yield, then uninstall and close, even on failure. A test that
        passed fails if the bot answered an interaction twice: Discord refuses that (40060)."""
        fake = cls(**options)
        await fake.start()
        fake.install()
        try:
            yield fake
            doubled = [r.describe() for r in fake.double_answers]
            assert not doubled, f"answered twice: {doubled}"
            unknown = [f"{r.method} {r.path}" for r in fake.unhandled]
            assert not unknown, (
                f"routes the fake lacks (add them, or the test passes blind): {unknown}"
            )
        finally:
            fake.uninstall()
            await fake.close()

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
            logging.getLogger("tests.fakediscord").exception(
                "fake Discord failed on %s %s", request.method, path
            )
            response = error(500, 0, f"fake Discord crashed: {exc!r}")
        record.status = response.status
        if response.status != 429:
            response.headers.update(self._limit_headers(record))
        record.headers = dict(response.headers)
        self._notify()
        return response

    async def _route(self, record: Request) -> web.StreamResponse:
        await self._held(record.method, record.path)
        fault = self._take_fault(record.method, record.path)
        if fault is not None:
            return fault
        limited = self._limited(record)
        if limited is not None:
            return limited
        for pattern, route in self._routes:
            if route.method != record.method:
                continue
            match = pattern.fullmatch(record.path)
            if match:
                body = record.json
                check = route.limits if self.strict and isinstance(body, dict) else None
                problems = check(body) if check is not None else []
                if not problems:
                    try:
                        return await route.handler(Call(record, match.groupdict()))
                    except Refused as refused:
                        problems = refused.problems
                return json_response(
                    {
                        "code": INVALID_FORM_BODY,
                        "message": "Invalid Form Body",
                        "errors": form_errors(problems),
                    },
                    400,
                )
        self.unhandled.append(record)
        return error(404, 0, f"fake Discord has no route {record.method} {record.path}")

    def _register_routes(self) -> None:
        """Discord's routes, each topic's listed beside its handlers."""
        table = [
            *self._app_routes(),
            *self._command_routes(),
            *self._interaction_routes(),
            *self._channel_routes(),
            *self._message_routes(),
        ]
        self._routes = [(compile_path(route.path), route) for route in table]
