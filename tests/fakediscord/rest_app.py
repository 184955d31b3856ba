"""REST routes about the bot itself: the gateway URL, users, the application, opening DMs."""

from __future__ import annotations

import base64
import re

from aiohttp import web

from tests.fakediscord.limits import Refused
from tests.fakediscord.protocol import JSON, UNKNOWN_USER, error, json_response, no_content
from tests.fakediscord.routing import Call, Route
from tests.fakediscord.world import World

UNKNOWN_APPLICATION = 10002
UNKNOWN_EMOJI = 10014
MAX_APP_EMOJIS = 2000
EMOJI_NAME = re.compile(r"\w{2,32}")
DATA_URI = re.compile(r"data:image/(?P<kind>png|jpeg|gif|webp);base64,(?P<data>[A-Za-z0-9+/=]+)")


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
            Route("GET", "/applications/{app}/emojis", self._list_emojis),
            Route("POST", "/applications/{app}/emojis", self._create_emoji),
            Route("DELETE", "/applications/{app}/emojis/{eid}", self._delete_emoji),
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

    # Application emojis: up to 2,000, names of 2 to 32 word characters, unique.

    async def _list_emojis(self, call: Call) -> web.Response:
        if call.id("app") != self.application_id:
            return error(404, UNKNOWN_APPLICATION, "Unknown Application")
        return json_response({"items": list(self.app_emojis.values())})

    async def _create_emoji(self, call: Call) -> web.Response:
        if call.id("app") != self.application_id:
            return error(404, UNKNOWN_APPLICATION, "Unknown Application")
        body = call.body or {}
        name, image = str(body.get("name") or ""), str(body.get("image") or "")
        problems = []
        if not EMOJI_NAME.fullmatch(name):
            problems.append(f"name: {name!r} is not 2 to 32 word characters")
        if any(e["name"] == name for e in self.app_emojis.values()):
            problems.append(f"name: an emoji named {name!r} already exists")
        if len(self.app_emojis) >= MAX_APP_EMOJIS:
            problems.append("emojis: the application has 2,000 already")
        match = DATA_URI.fullmatch(image)
        decoded = base64.b64decode(match["data"]) if match else b""
        if not decoded or len(decoded) > 256 * 1024:
            problems.append("image: not a base64 data URI of an image up to 256 KiB")
        if problems:
            raise Refused(*problems)
        emoji_id = self.next_id()
        emoji: JSON = {
            "id": str(emoji_id),
            "name": name,
            "roles": [],
            "user": self.users[self.owner_id],
            "require_colons": True,
            "managed": False,
            "animated": match is not None and match["kind"] == "gif",
            "available": True,
        }
        self.app_emojis[emoji_id] = emoji
        self.emoji_images[emoji_id] = decoded
        return json_response(emoji, 201)

    async def _delete_emoji(self, call: Call) -> web.Response:
        if self.app_emojis.pop(call.id("eid"), None) is None:
            return error(404, UNKNOWN_EMOJI, "Unknown Emoji")
        self.emoji_images.pop(call.id("eid"), None)
        return no_content()
