"""Pressing buttons and choosing in selects on a stored message, as a user would (or could)."""

from __future__ import annotations

from tests.fakediscord.interactions import Interactions
from tests.fakediscord.models import Component, components_of
from tests.fakediscord.protocol import BUTTON, JSON, SELECTS
from tests.fakediscord.record import InteractionRecord


class Clicks(Interactions):
    """``click`` and ``select`` refuse what Discord's client would not send; ``forge`` does not."""

    def _component_target(
        self, message_id: int, custom_id: str | Component, types: frozenset[int], force: bool
    ) -> tuple[JSON, Component]:
        message = self.message(message_id)
        wanted = custom_id.custom_id if isinstance(custom_id, Component) else custom_id
        comps = [c for c in components_of(message) if c.custom_id == wanted and c.type in types]
        if not comps:
            shown = [(c.label, c.custom_id) for c in components_of(message)]
            raise LookupError(f"no component {wanted!r} on message {message_id}: {shown}")
        if comps[0].disabled and not force:
            raise AssertionError(f"component {wanted!r} on message {message_id} is disabled")
        return message, comps[0]

    async def _component(
        self,
        user_id: int,
        message_id: int,
        data: JSON,
        *,
        permissions: int | None,
    ) -> InteractionRecord:
        message = self.message(message_id)
        channel_id = int(message["channel_id"])
        guild_id = int(message["guild_id"]) if message.get("guild_id") else None
        payload, channel_id = self._interaction_base(
            3, data, user_id, channel_id, guild_id, permissions=permissions, message=message
        )
        return await self._interact(payload, user_id, channel_id, guild_id, message_id)

    async def click(
        self,
        user_id: int,
        message_id: int,
        custom_id: str | Component,
        *,
        force: bool = False,
        permissions: int | None = None,
    ) -> InteractionRecord:
        """Press a button on a stored message (refuses disabled ones unless ``force``)."""
        _, button = self._component_target(message_id, custom_id, frozenset({BUTTON}), force)
        data = {"custom_id": button.custom_id, "component_type": BUTTON}
        return await self._component(user_id, message_id, data, permissions=permissions)

    async def forge(
        self,
        user_id: int,
        message_id: int,
        custom_id: str,
        *,
        values: list[str] | None = None,
    ) -> InteractionRecord:
        """A component interaction with any custom_id, as a forged or outdated client sends."""
        data: JSON = {"custom_id": custom_id, "component_type": BUTTON if values is None else 3}
        if values is not None:
            data["values"] = values
        return await self._component(user_id, message_id, data, permissions=None)

    async def select(
        self,
        user_id: int,
        message_id: int,
        custom_id: str | Component,
        values: list[str],
        *,
        force: bool = False,
        permissions: int | None = None,
    ) -> InteractionRecord:
        """Choose ``values`` in a select menu on a stored message."""
        _, menu = self._component_target(message_id, custom_id, SELECTS, force)
        if menu.type == 3 and menu.options and not set(values) <= set(menu.options):
            raise ValueError(f"values {values} not among the options {menu.options}")
        data: JSON = {"custom_id": menu.custom_id, "component_type": menu.type, "values": values}
        if menu.type in (5, 7):  # user / mentionable selects resolve users
            data["resolved"] = {"users": {v: self.user(int(v)) for v in values}}
        return await self._component(user_id, message_id, data, permissions=permissions)
