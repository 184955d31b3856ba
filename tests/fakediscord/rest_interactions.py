"""REST routes answering interactions: the callback, follow-ups and edits through the webhook.

Each answer is recorded on its :class:`InteractionRecord`, so a test reads what the user saw.
"""

from __future__ import annotations

import time

from aiohttp import web

from tests.fakediscord.limits import COMPONENTS_V2, callback_problems, payload_problems
from tests.fakediscord.messages import MessageStore
from tests.fakediscord.protocol import (
    ALREADY_ACKNOWLEDGED,
    EPHEMERAL,
    INVALID_FORM_BODY,
    INVALID_WEBHOOK_TOKEN,
    JSON,
    LOADING,
    UNKNOWN_INTERACTION,
    UNKNOWN_MESSAGE,
    UNKNOWN_WEBHOOK,
    error,
    json_response,
    no_content,
)
from tests.fakediscord.record import InteractionRecord
from tests.fakediscord.routing import Call, Route

_HOOK = "/webhooks/{app}/{token}"
# The answers Discord takes for each kind of interaction (a slash command, a component, an
# autocomplete, a form sent): a form answers only the first two, an update only a message's.
CALLBACK_TYPES: dict[int, tuple[int, ...]] = {
    2: (4, 5, 9),
    3: (4, 5, 6, 7, 9),
    4: (8,),
    5: (4, 5, 6, 7),
}


class InteractionRoutes(MessageStore):
    def _interaction_routes(self) -> list[Route]:
        return [
            Route(
                "POST", "/interactions/{iid}/{token}/callback", self._callback, callback_problems
            ),
            Route("POST", _HOOK, self._followup, payload_problems),
            Route("GET", _HOOK + "/messages/{mid}", self._webhook_get),
            Route("PATCH", _HOOK + "/messages/{mid}", self._webhook_edit, payload_problems),
            Route("DELETE", _HOOK + "/messages/{mid}", self._webhook_delete),
        ]

    def _record_for(self, call: Call) -> InteractionRecord | None:
        record = self._by_token.get(call.params["token"])
        if record is None:
            return None
        if "app" in call.params and call.id("app") != self.application_id:
            return None
        return record

    async def _callback(self, call: Call) -> web.Response:
        """Discord's one answer to an interaction: within 3 s of its creation, and only once."""
        record = self._record_for(call)
        if record is None or record.id != call.id("iid") or self._late(record):
            return error(404, UNKNOWN_INTERACTION, "Unknown interaction")
        if record.callback is not None:
            self.double_answers.append(record)
            return error(400, ALREADY_ACKNOWLEDGED, "Interaction has already been acknowledged.")
        body = call.body or {}
        kind = int(body["type"])
        if kind not in CALLBACK_TYPES.get(record.kind, ()):
            return error(400, INVALID_FORM_BODY, f"Invalid callback type {kind} for this")
        data = body.get("data") or {}
        message: JSON | None = None
        if kind in (6, 7):
            if record.message_id is None or record.message_id not in self.messages:
                return error(400, INVALID_FORM_BODY, "Interaction has no message to update")
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
        record.note_answered()
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
        if call.request.query.get("with_response", "").lower() not in ("1", "true"):
            return web.Response(status=204)  # Discord's answer unless asked for the callback
        return json_response(answer)

    def _late(self, record: InteractionRecord) -> bool:
        """Past Discord's 3 s for the first answer (then the interaction is unknown for good)."""
        return time.time() - record.created > self.callback_window

    def _answered(self, call: Call) -> InteractionRecord | web.Response:
        """The acknowledged interaction a webhook call's token names, while the token lives
        (15 minutes), else the error Discord answers."""
        record = self._record_for(call)
        if record is None or record.callback is None:
            return error(404, UNKNOWN_WEBHOOK, "Unknown Webhook")
        if time.time() - record.created > self.token_lifetime:
            return error(401, INVALID_WEBHOOK_TOKEN, "Invalid Webhook Token")
        return record

    def _webhook_target(self, call: Call) -> tuple[InteractionRecord, JSON] | web.Response:
        """The record and the message (``@original`` or one of its follow-ups) a webhook call
        names, or the error Discord answers."""
        record = self._answered(call)
        if isinstance(record, web.Response):
            return record
        mid = call.params["mid"]
        target = record.original_id if mid == "@original" else int(mid)
        known = target == record.original_id or target in record.followup_ids
        message = self.messages.get(target) if target is not None and known else None
        if message is None:
            return error(404, UNKNOWN_MESSAGE, "Unknown Message")
        return record, message

    async def _followup(self, call: Call) -> web.Response:
        record = self._answered(call)
        if isinstance(record, web.Response):
            return record
        body = call.body or {}
        loading = record.original
        if record.type == 5 and loading is not None and int(loading["flags"]) & LOADING:
            # Discord: the first follow-up after a "thinking" defer replaces the loading message,
            # keeping the defer's ephemeral choice (a V2 follow-up makes it a V2 message).
            kept = {k: v for k, v in body.items() if k != "flags"}
            v2 = int(body.get("flags") or 0) & COMPONENTS_V2
            if v2:
                kept["flags"] = v2 | (int(loading["flags"]) & EPHEMERAL)
            message = self._edit_message(loading, kept, call.uploads)
            message["edited_timestamp"] = None
        else:
            message = self._create_message(record.channel_id, body, call.uploads)
        record.followup_ids.append(int(message["id"]))
        if call.request.query.get("wait", "").lower() in ("1", "true"):
            return json_response(message)
        return no_content()

    async def _webhook_get(self, call: Call) -> web.Response:
        found = self._webhook_target(call)
        return found if isinstance(found, web.Response) else json_response(found[1])

    async def _webhook_edit(self, call: Call) -> web.Response:
        found = self._webhook_target(call)
        if isinstance(found, web.Response):
            return found
        record, message = found
        record.edits.append(call.body or {})
        return json_response(self._edit_message(message, call.body or {}, call.uploads))

    async def _webhook_delete(self, call: Call) -> web.Response:
        found = self._webhook_target(call)
        if isinstance(found, web.Response):
            return found
        self._delete_message(int(found[1]["id"]))
        return no_content()
