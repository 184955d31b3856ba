"""REST routes about the bot itself: the gateway URL, users, the application, opening DMs."""

from __future__ import annotations

from aiohttp import web

from tests.fakediscord.protocol import UNKNOWN_USER, error, json_response
from tests.fakediscord.routing import Call, Route
from tests.fakediscord.world import World


class AppRoutes(World):
    def _app_routes(self) -> list[Route]:
        return [
            Route("GET", "/gateway", self._get_gateway),
            Route("GET", "/gateway/bot", self._get_gateway),
            Route("GET", "/users/@me", self._get_me),
            Route("GET", "/users/{user}", self._get_user),
            Route("POST", "/users/@me/channels", self._create_dm),
            Route("GET", "/oauth2/applications/@me", self._get_application),
            Route("GET", "/applications/@me", self._get_application),
        ]

    async def _get_gateway(self, call: Call) -> web.Response:
        limit = {
            "total": 1000,
            "remaining": 1000 - len(self.identifies),
            "reset_after": 0,
            "max_concurrency": self.max_concurrency,
        }
        return json_response(
            {"url": self.gateway_url, "shards": self.shard_count, "session_start_limit": limit}
        )

    async def _get_me(self, call: Call) -> web.Response:
        return json_response(self.users[self.bot_id])

    async def _get_user(self, call: Call) -> web.Response:
        user = self.users.get(call.id("user"))
        return json_response(user) if user else error(404, UNKNOWN_USER, "Unknown User")

    async def _get_application(self, call: Call) -> web.Response:
        return json_response(
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

    async def _create_dm(self, call: Call) -> web.Response:
        user_id = int(call.body["recipient_id"])
        return json_response(self.dm_channel(user_id))
