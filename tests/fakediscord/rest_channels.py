"""REST routes that read channels, guilds and members (a test changes a channel with
``update_channel``, which tells the bot; nothing here changes them)."""

from __future__ import annotations

from aiohttp import web

from tests.fakediscord.protocol import UNKNOWN_CHANNEL, error, json_response, no_content
from tests.fakediscord.routing import Call, Route
from tests.fakediscord.world import World


class ChannelRoutes(World):
    def _channel_routes(self) -> list[Route]:
        return [
            Route("GET", "/channels/{channel}", self._get_channel),
            Route("POST", "/channels/{channel}/typing", self._typing),
            Route("GET", "/guilds/{guild}", self._get_guild),
            Route("GET", "/guilds/{guild}/channels", self._get_guild_channels),
            Route("GET", "/guilds/{guild}/members/{user}", self._get_member),
        ]

    async def _get_channel(self, call: Call) -> web.Response:
        channel = self.channels.get(call.id("channel"))
        return json_response(channel) if channel else error(404, UNKNOWN_CHANNEL, "Unknown Channel")

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
