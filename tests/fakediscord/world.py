"""The users, guilds, channels and DMs a test sets up, as payloads the gateway and REST serve."""

from __future__ import annotations

from tests.fakediscord.protocol import DEFAULT_MEMBER_PERMISSIONS, JSON, THREAD_TYPES, now_iso
from tests.fakediscord.state import State


class World(State):
    """Who and where: call these before ``start`` (DMs may also open while the bot runs)."""

    def add_user(self, user_id: int, name: str | None = None, *, bot: bool = False) -> JSON:
        """Register (or rename) a user; guilds and interactions use these payloads."""
        name = name or f"user{user_id}"
        user = {
            "id": str(user_id),
            "username": name,
            "global_name": name,
            "discriminator": "0",
            "avatar": None,
            "bot": bot,
            "public_flags": 0,
            "flags": 0,
        }
        self.users[user_id] = user
        return user

    def user(self, user_id: int) -> JSON:
        if user_id not in self.users:
            self.add_user(user_id)
        return self.users[user_id]

    def add_guild(
        self,
        guild_id: int,
        channel_ids: list[int],
        member_ids: list[int],
        *,
        name: str | None = None,
        owner_id: int | None = None,
    ) -> JSON:
        """A guild with text channels and members (the bot joins it too); call before start."""
        for position, channel_id in enumerate(channel_ids):
            self.channels[channel_id] = {
                "id": str(channel_id),
                "type": 0,
                "guild_id": str(guild_id),
                "name": f"channel-{position}",
                "position": position,
                "permission_overwrites": [],
                "nsfw": False,
                "topic": None,
                "last_message_id": None,
                "rate_limit_per_user": 0,
                "parent_id": None,
                "flags": 0,
            }
        members = {uid: self._member(uid, guild_id) for uid in [*member_ids, self.bot_id]}
        self.guild_members[guild_id] = members
        guild = {
            "id": str(guild_id),
            "name": name or f"guild-{guild_id}",
            "owner_id": str(owner_id or (member_ids[0] if member_ids else self.owner_id)),
            "channel_ids": list(channel_ids),
        }
        self.guilds[guild_id] = guild
        return guild

    def add_thread(self, thread_id: int, parent_id: int) -> JSON:
        """A public thread in a guild's text channel, known only by id (as one the bot has not
        joined: not in its guild's cache); it has the parent's permissions."""
        parent = self.channels[parent_id]
        self.channels[thread_id] = thread = {
            "id": str(thread_id),
            "type": 11,
            "guild_id": parent["guild_id"],
            "parent_id": str(parent_id),
            "owner_id": str(self.owner_id),
            "name": f"thread-{thread_id}",
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "message_count": 0,
            "member_count": 1,
            "flags": 0,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": 1440,
                "archive_timestamp": now_iso(),
                "locked": False,
            },
        }
        return thread

    def bot_permissions(self, channel_id: int, base: int = DEFAULT_MEMBER_PERMISSIONS) -> int:
        """What the bot may do in a guild channel, worked out as Discord does: ``base`` (the
        @everyone role's; the bot has no other role here), then the channel's overwrites for
        @everyone, then those for the bot itself. A thread has its parent's."""
        channel = self.channels[channel_id]
        if channel["type"] in THREAD_TYPES:
            return self.bot_permissions(int(channel["parent_id"]), base)
        guild_id = channel.get("guild_id")
        for target in (guild_id, str(self.bot_id)):
            for overwrite in channel.get("permission_overwrites", []):
                if overwrite["id"] == target:
                    base = (base & ~int(overwrite["deny"])) | int(overwrite["allow"])
        return base

    def set_nick(self, guild_id: int, user_id: int, nick: str | None) -> None:
        """Give a member a nickname in one guild (None: none), as its later payloads show."""
        self.nicks[guild_id, user_id] = nick
        self.guild_members[guild_id][user_id]["nick"] = nick

    def _member(self, user_id: int, guild_id: int) -> JSON:
        return {
            "user": self.user(user_id),
            "roles": [],
            "flags": 0,
            "joined_at": now_iso(),
            "nick": self.nicks.get((guild_id, user_id)),
            "avatar": None,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "communication_disabled_until": None,
        }

    def _guild_create(self, guild_id: int) -> JSON:
        guild = self.guilds[guild_id]
        members = list(self.guild_members[guild_id].values())
        return {
            "id": str(guild_id),
            "name": guild["name"],
            "icon": None,
            "owner_id": guild["owner_id"],
            "unavailable": False,
            "large": False,
            "member_count": len(members),
            "members": members,
            "channels": [self.channels[c] for c in guild["channel_ids"]],
            "threads": [],
            "roles": [
                {
                    "id": str(guild_id),
                    "name": "@everyone",
                    "permissions": str(DEFAULT_MEMBER_PERMISSIONS),
                    "position": 0,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                }
            ],
            "emojis": [],
            "stickers": [],
            "features": [],
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "joined_at": now_iso(),
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "afk_timeout": 300,
        }

    def dm_channel(self, user_id: int) -> JSON:
        """The bot's DM channel with a user (created on first use, as Discord does)."""
        if user_id not in self.dm_channels:
            channel_id = self.next_id()
            self.dm_channels[user_id] = channel_id
            self.channels[channel_id] = {
                "id": str(channel_id),
                "type": 1,
                "last_message_id": None,
                "recipients": [self.user(user_id)],
                "flags": 0,
            }
        return self.channels[self.dm_channels[user_id]]
