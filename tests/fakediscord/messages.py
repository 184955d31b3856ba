"""Messages as Discord keeps them: created, edited (every version kept), deleted, with files."""

from __future__ import annotations

import copy

from tests.fakediscord.limits import COMPONENTS_V2, Refused, v2_problems
from tests.fakediscord.models import Upload
from tests.fakediscord.notifications import Notifications
from tests.fakediscord.protocol import EPHEMERAL, JSON, LOADING, now_iso


class MessageStore(Notifications):
    """The one place messages change, whether by REST, a callback or a webhook; only a
    creation notifies anyone (see ``notifications``)."""

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
            "timestamp": now_iso(),
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
        self._notify_created(message, body)
        return message

    def _edit_message(self, message: JSON, body: JSON, uploads: list[Upload]) -> JSON:
        was_v2 = int(message["flags"]) & COMPONENTS_V2
        problems = v2_problems(body, was_v2 | int(body.get("flags") or 0))
        if was_v2 and body.get("flags") is not None and not int(body["flags"]) & COMPONENTS_V2:
            problems.append("flags: IS_COMPONENTS_V2 cannot be removed from a message")
        if problems:
            raise Refused(*problems)
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
        message["edited_timestamp"] = now_iso()
        self.versions[int(message["id"])].append(copy.deepcopy(message))
        return message

    def _delete_message(self, message_id: int) -> None:
        self.deleted[message_id] = self.messages.pop(message_id)
