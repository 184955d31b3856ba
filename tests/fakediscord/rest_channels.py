"""REST routes that read channels, guilds and members (a test changes a channel with
``update_channel``, which tells the bot), and reopen an archived thread."""

from __future__ import annotations

from aiohttp import web

from tests.fakediscord.gateway import Gateway
from tests.fakediscord.protocol import (
    MANAGE_THREADS,
    MISSING_ACCESS,
    MISSING_PERMISSIONS,
    SEND_MESSAGES_IN_THREADS,
    UNKNOWN_CHANNEL,
    VIEW_CHANNEL,
    error,
    json_response,
    no_content,
)
from tests.fakediscord.routing import Call, Route


class ChannelRoutes(Gateway):
    def _channel_routes(self) -> list[Route]:
        return [
            Route("GET", "/channels/{channel}", self._get_channel),
            Route("PATCH", "/channels/{channel}", self._patch_thread),
            Route("POST", "/channels/{channel}/typing", self._typing),
            Route("GET", "/guilds/{guild}", self._get_guild),
            Route("GET", "/guilds/{guild}/channels", self._get_guild_channels),
            Route("GET", "/guilds/{guild}/members/{user}", self._get_member),
        ]

    async def _get_channel(self, call: Call) -> web.Response:
        channel = self.channels.get(call.id("channel"))
        if channel is None:
            return error(404, UNKNOWN_CHANNEL, "Unknown Channel")
        if channel["type"] != 1 and not self.bot_permissions(int(channel["id"])) & VIEW_CHANNEL:
            return error(403, MISSING_ACCESS, "Missing Access")
        return json_response(channel)

    async def _patch_thread(self, call: Call) -> web.Response:
        """Reopen an archived thread (``{"archived": false}``, all the fake takes here): Send
        Messages in Threads will do, unless it is locked (Manage Threads, or 403 50013)."""
        thread = self.channels.get(call.id("channel"))
        if thread is None:
            return error(404, UNKNOWN_CHANNEL, "Unknown Channel")
        body = call.body or {}
        if "thread_metadata" not in thread or set(body) != {"archived"} or body["archived"]:
            return error(400, 0, f"the fake only reopens threads, not {body}")
        allowed = self.bot_permissions(int(thread["id"]))
        needs = MANAGE_THREADS if thread["thread_metadata"]["locked"] else SEND_MESSAGES_IN_THREADS
        if not allowed & VIEW_CHANNEL:
            return error(403, MISSING_ACCESS, "Missing Access")
        if not allowed & needs:
            return error(403, MISSING_PERMISSIONS, "Missing Permissions")
        await self.archive_thread(int(thread["id"]), archived=False)
        return json_response(thread)

    async def _typing(self, call: Call) -> web.Response:
        return no_content()

    async def _get_guild(self, call: Call) -> web.Response:
        guild_id = call.id("guild")
        if guild_id not in self.guilds:
            return error(404, 10004, "Unknown Guild")
        data = self._guild_create(guild_id)
        return json_response({k: v for k, v in data.items() if k not in ("members", "channels")})

    async def _get_guild_channels(self, call: Call) -> web.Response:
        guild = self.guilds.get(call.id("guild"))
        if guild is None:
            return error(404, 10004, "Unknown Guild")
        return json_response([self.channels[c] for c in guild["channel_ids"]])

    async def _get_member(self, call: Call) -> web.Response:
        member = self.guild_members.get(call.id("guild"), {}).get(call.id("user"))
        return json_response(member) if member else error(404, 10007, "Unknown Member")
