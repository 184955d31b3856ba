"""REST routes for channel messages and their reactions (emojis): history, post, edit, delete."""

from __future__ import annotations

from aiohttp import web

from tests.fakediscord.limits import payload_problems
from tests.fakediscord.lookups import Lookups
from tests.fakediscord.messages import MessageStore
from tests.fakediscord.protocol import (
    CANNOT_DM_USER,
    EMBED_LINKS,
    EPHEMERAL,
    JSON,
    MISSING_ACCESS,
    MISSING_PERMISSIONS,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    THREAD_TYPES,
    UNKNOWN_CHANNEL,
    UNKNOWN_MESSAGE,
    VIEW_CHANNEL,
    error,
    json_response,
    no_content,
)
from tests.fakediscord.routing import Call, Route
from tests.fakediscord.world import World

_MESSAGE = "/channels/{channel}/messages/{mid}"


class MessageRoutes(MessageStore, World, Lookups):
    def _message_routes(self) -> list[Route]:
        return [
            Route("GET", "/channels/{channel}/messages", self._history),
            Route("POST", "/channels/{channel}/messages", self._post_message, payload_problems),
            Route("GET", _MESSAGE, self._get_message),
            Route("PATCH", _MESSAGE, self._patch_message, payload_problems),
            Route("DELETE", _MESSAGE, self._del_message),
            Route("PUT", _MESSAGE + "/reactions/{emoji}/@me", self._reaction),
            Route("DELETE", _MESSAGE + "/reactions/{emoji}/@me", self._reaction),
        ]

    async def _history(self, call: Call) -> web.Response:
        limit = int(call.request.query.get("limit", 50))
        newest_first = list(reversed(self.channel_messages(call.id("channel"))))
        return json_response(newest_first[:limit])

    async def _post_message(self, call: Call) -> web.Response:
        channel_id = call.id("channel")
        channel = self.channels.get(channel_id)
        if channel is None:
            return error(404, UNKNOWN_CHANNEL, "Unknown Channel")
        if channel["type"] == 1 and int(channel["recipients"][0]["id"]) in self.dms_closed:
            return error(403, CANNOT_DM_USER, "Cannot send messages to this user")
        body = call.body or {}
        if channel["type"] != 1 and (refused := self._post_refused(channel_id, body)):
            return refused
        if not (
            body.get("content")
            or body.get("embeds")
            or body.get("components")
            or call.uploads
            or body.get("poll")
            or body.get("sticker_ids")
        ):
            return error(400, 50006, "Cannot send an empty message")
        return json_response(self._create_message(channel_id, body, call.uploads))

    def _post_refused(self, channel_id: int, body: JSON) -> web.Response | None:
        """Discord's 403 for a post the bot's permissions in the channel do not allow."""
        allowed = self.bot_permissions(channel_id)
        if not allowed & VIEW_CHANNEL:
            return error(403, MISSING_ACCESS, "Missing Access")
        embeds_alone = body.get("embeds") and not body.get("content")
        in_thread = self.channels[channel_id]["type"] in THREAD_TYPES
        if not allowed & (SEND_MESSAGES_IN_THREADS if in_thread else SEND_MESSAGES) or (
            embeds_alone and not allowed & EMBED_LINKS
        ):
            return error(403, MISSING_PERMISSIONS, "Missing Permissions")
        return None

    def _channel_message(self, call: Call) -> JSON | None:
        """The message the channel route names; none if it is ephemeral: Discord keeps those
        to the interaction's webhook (10008 on the channel's routes)."""
        message = self.messages.get(call.id("mid"))
        if message is None or int(message["channel_id"]) != call.id("channel"):
            return None
        if int(message.get("flags") or 0) & EPHEMERAL:
            return None
        return message

    async def _get_message(self, call: Call) -> web.Response:
        message = self._channel_message(call)
        return json_response(message) if message else error(404, UNKNOWN_MESSAGE, "Unknown Message")

    async def _patch_message(self, call: Call) -> web.Response:
        message = self._channel_message(call)
        if message is None:
            return error(404, UNKNOWN_MESSAGE, "Unknown Message")
        return json_response(self._edit_message(message, call.body or {}, call.uploads))

    async def _del_message(self, call: Call) -> web.Response:
        if self._channel_message(call) is None:
            return error(404, UNKNOWN_MESSAGE, "Unknown Message")
        self._delete_message(call.id("mid"))
        return no_content()

    async def _reaction(self, call: Call) -> web.Response:
        if self._channel_message(call) is None:
            return error(404, UNKNOWN_MESSAGE, "Unknown Message")
        entry = (call.request.method, call.id("channel"), call.id("mid"), call.params["emoji"])
        self.reactions.append(entry)
        return no_content()
