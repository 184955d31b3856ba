"""REST routes for channel messages and their reactions (emojis): history, post, edit, delete."""

from __future__ import annotations

from aiohttp import web

from tests.fakediscord.gateway import Gateway
from tests.fakediscord.limits import payload_problems
from tests.fakediscord.messages import MessageStore
from tests.fakediscord.protocol import (
    ATTACH_FILES,
    CANNOT_DM_USER,
    EMBED_LINKS,
    EPHEMERAL,
    JSON,
    MANAGE_THREADS,
    MISSING_ACCESS,
    MISSING_PERMISSIONS,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    THREAD_ARCHIVED,
    THREAD_TYPES,
    UNKNOWN_CHANNEL,
    UNKNOWN_MESSAGE,
    VIEW_CHANNEL,
    error,
    json_response,
    no_content,
)
from tests.fakediscord.routing import Call, Route

_MESSAGE = "/channels/{channel}/messages/{mid}"


class MessageRoutes(MessageStore, Gateway):
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

    def _refused(self, call: Call, *, changes: bool = True) -> web.Response | None:
        """Discord's refusal of a guild channel's message route, before the message is
        looked at: the channel (or a thread's parent) deleted, 10003; the bot unable to see
        it, 50001; a file without Attach Files, 50013; ``changes`` (an edit, a deletion, a
        reaction) in an archived thread, 50083 (only a post reopens one)."""
        channel_id = call.id("channel")
        channel = self.channels.get(channel_id)
        if channel is None:
            return error(404, UNKNOWN_CHANNEL, "Unknown Channel")
        if channel["type"] == 1:
            return None
        allowed = self.bot_permissions(channel_id)
        if not allowed & VIEW_CHANNEL:
            return error(403, MISSING_ACCESS, "Missing Access")
        if call.uploads and not allowed & ATTACH_FILES:
            return error(403, MISSING_PERMISSIONS, "Missing Permissions")
        if changes and channel.get("thread_metadata", {}).get("archived"):
            return error(400, THREAD_ARCHIVED, "Thread is archived")
        return None

    async def _history(self, call: Call) -> web.Response:
        if refused := self._refused(call, changes=False):
            return refused
        limit = int(call.request.query.get("limit", 50))
        newest_first = list(reversed(self.channel_messages(call.id("channel"))))
        return json_response(newest_first[:limit])

    async def _post_message(self, call: Call) -> web.Response:
        if refused := self._refused(call, changes=False):
            return refused
        channel_id = call.id("channel")
        channel = self.channels[channel_id]
        if channel["type"] == 1 and int(channel["recipients"][0]["id"]) in self.dms_closed:
            return error(403, CANNOT_DM_USER, "Cannot send messages to this user")
        body = call.body or {}
        if channel["type"] != 1 and (refused := self._post_refused(channel_id, body)):
            return refused
        if refused := await self._reopened(channel):
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

    async def _reopened(self, channel: JSON) -> web.Response | None:
        """A post in an archived thread unarchives it (THREAD_UPDATE), unless it is locked
        and the bot may not manage threads: then 403, 50083."""
        metadata = channel.get("thread_metadata")
        if not metadata or not metadata["archived"]:
            return None
        if metadata["locked"] and not self.bot_permissions(int(channel["id"])) & MANAGE_THREADS:
            return error(403, THREAD_ARCHIVED, "Thread is archived")
        await self.archive_thread(int(channel["id"]), archived=False)
        return None

    def _post_refused(self, channel_id: int, body: JSON) -> web.Response | None:
        """Discord's 403 for a post the bot's permissions in the channel do not allow."""
        allowed = self.bot_permissions(channel_id)
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
        if refused := self._refused(call, changes=False):
            return refused
        message = self._channel_message(call)
        return json_response(message) if message else error(404, UNKNOWN_MESSAGE, "Unknown Message")

    async def _patch_message(self, call: Call) -> web.Response:
        if refused := self._refused(call):
            return refused
        message = self._channel_message(call)
        if message is None:
            return error(404, UNKNOWN_MESSAGE, "Unknown Message")
        return json_response(self._edit_message(message, call.body or {}, call.uploads))

    async def _del_message(self, call: Call) -> web.Response:
        if refused := self._refused(call):
            return refused
        if self._channel_message(call) is None:
            return error(404, UNKNOWN_MESSAGE, "Unknown Message")
        self._delete_message(call.id("mid"))
        return no_content()

    async def _reaction(self, call: Call) -> web.Response:
        if refused := self._refused(call):
            return refused
        if self._channel_message(call) is None:
            return error(404, UNKNOWN_MESSAGE, "Unknown Message")
        entry = (call.request.method, call.id("channel"), call.id("mid"), call.params["emoji"])
        self.reactions.append(entry)
        return no_content()
