"""Submitting a modal (form) the bot opened, checked against the fields it asked for."""

from __future__ import annotations

from tests.fakediscord.interactions import Interactions
from tests.fakediscord.models import components_of
from tests.fakediscord.protocol import JSON, TEXT_INPUT
from tests.fakediscord.record import InteractionRecord


class Forms(Interactions):
    """``submit_modal`` and ``last_modal``."""

    def last_modal(self, user_id: int, custom_id: str | None = None) -> InteractionRecord | None:
        """The latest interaction of this user the bot answered with a modal."""
        for record in reversed(self.interactions.values()):
            modal = record.modal
            if (
                record.user_id == user_id
                and modal is not None
                and custom_id in (None, modal.get("custom_id"))
            ):
                return record
        return None

    async def submit_modal(
        self,
        user_id: int,
        channel_id: int | None,
        custom_id: str,
        fields: dict[str, str | list[str]],
        *,
        message_id: int | None = None,
        permissions: int | None = None,
    ) -> InteractionRecord:
        """Submit a modal; ``fields`` maps text input (or select) custom_id to its value.

        When the bot opened this modal earlier, unknown fields are refused, missing ones are
        sent empty (required ones refused), and a modal opened from a button carries its
        message, as Discord does.
        """
        opened = self.last_modal(user_id, custom_id)
        if opened is not None and opened.modal is not None:
            inputs = {c.custom_id: c for c in components_of(opened.modal) if c.custom_id}
            unknown = set(fields) - set(inputs)
            if unknown:
                raise KeyError(
                    f"modal {custom_id!r} has no fields {sorted(unknown)}: {list(inputs)}"
                )
            for cid, c in inputs.items():
                if cid not in fields and c.type == TEXT_INPUT:
                    if c.raw.get("required", True):
                        raise ValueError(f"modal field {cid!r} is required")
                    fields = {**fields, cid: ""}
            if message_id is None:
                message_id = opened.message_id
        rows: list[JSON] = []
        for cid, value in fields.items():
            if isinstance(value, list):
                rows.append(
                    {"type": 18, "component": {"type": 3, "custom_id": cid, "values": value}}
                )
            else:
                rows.append(
                    {"type": 1, "components": [{"type": 4, "custom_id": cid, "value": value}]}
                )
        message = None if message_id is None else self.message(message_id)
        guild_id = None
        if message is not None:
            channel_id = int(message["channel_id"])
        if channel_id is not None and self.channels.get(channel_id, {}).get("guild_id"):
            guild_id = int(self.channels[channel_id]["guild_id"])
        data = {"custom_id": custom_id, "components": rows}
        payload, channel_id = self._interaction_base(
            5, data, user_id, channel_id, guild_id, permissions=permissions, message=message
        )
        return await self._interact(payload, user_id, channel_id, guild_id, message_id)
