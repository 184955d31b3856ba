"""The interaction payload Discord builds when a user acts, shared by slash, click and form."""

from __future__ import annotations

import copy
import time

from tests.fakediscord.gateway import Gateway
from tests.fakediscord.protocol import DEFAULT_MEMBER_PERMISSIONS, JSON
from tests.fakediscord.record import InteractionRecord


class Interactions(Gateway):
    """Builds an INTERACTION_CREATE, records it, and sends it to the bot."""

    def _interaction_base(
        self,
        kind: int,
        data: JSON,
        user_id: int,
        channel_id: int | None,
        guild_id: int | None,
        *,
        permissions: int | None,
        message: JSON | None = None,
        locale: str = "en-US",
    ) -> tuple[JSON, int]:
        # Created when the user acted: ``interaction_age`` seconds before the bot hears of it.
        interaction_id = self.snowflake_at(time.time() - self.interaction_age)
        if guild_id is None:
            channel = self.dm_channel(user_id)
            channel_id = int(channel["id"])
        else:
            if channel_id is None or channel_id not in self.channels:
                raise KeyError(f"unknown channel {channel_id}; add it with add_guild first")
            channel = self.channels[channel_id]
        app_permissions = self.app_permissions  # with this channel's overwrites for the bot
        if guild_id is not None:
            app_permissions = self.bot_permissions(channel_id, app_permissions)
        payload: JSON = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": kind,
            "data": data,
            "token": f"itoken-{interaction_id}",
            "version": 1,
            "attachment_size_limit": 10 * 1024 * 1024,
            "channel": channel,
            "channel_id": str(channel_id),
            "app_permissions": str(app_permissions),
            "entitlements": [],
            # Apps here are installed to servers (GUILD_INSTALL, "0"); used in the app's own
            # DM, Discord names that install's owner "0", not the user (a USER_INSTALL, "1").
            "authorizing_integration_owners": {"0": str(guild_id or 0)},
            "context": 0 if guild_id else 1,
            "locale": locale,
        }
        if guild_id is not None:
            if user_id not in self.guild_members.get(guild_id, {}):
                raise KeyError(f"user {user_id} is not a member of guild {guild_id}")
            perms = self.permissions.get(user_id, DEFAULT_MEMBER_PERMISSIONS)
            member = self._member(user_id, guild_id) | {
                "permissions": str(perms if permissions is None else permissions)
            }
            payload |= {
                "guild_id": str(guild_id),
                "member": member,
                "guild_locale": "en-US",
                "guild": {"id": str(guild_id), "locale": "en-US", "features": []},
            }
        else:
            payload["user"] = self.user(user_id)
        if message is not None:
            payload["message"] = copy.deepcopy(message)
        return payload, channel_id

    async def _interact(
        self,
        payload: JSON,
        user_id: int,
        channel_id: int,
        guild_id: int | None,
        message_id: int | None,
    ) -> InteractionRecord:
        record = InteractionRecord(
            fake=self,
            id=int(payload["id"]),
            token=payload["token"],
            kind=payload["type"],
            payload=payload,
            user_id=user_id,
            channel_id=channel_id,
            guild_id=guild_id,
            message_id=message_id,
        )
        self.interactions[record.id] = record
        self._by_token[record.token] = record
        await self.dispatch("INTERACTION_CREATE", payload, guild_id=guild_id)
        return record
