"""Whether Orchard may post in a channel a server points it to (games, the daily board).

Discord refuses every post in a channel the bot may not post in (403), later, where nobody
who chose the channel sees it; so the choice itself is refused, saying what to grant.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import discord

from bot.runner import Refusal
from bot.wording import joined

POSTING = {
    "view_channel": "View Channel",
    "send_messages": "Send Messages",
    "embed_links": "Embed Links",
}
"""What posting a board needs (permission: its name in Discord): the daily board is an embed."""

GAME_CHANNEL = {**POSTING, "attach_files": "Attach Files"}
"""What a games channel needs: pictures (Appletters' snake, /stats charts) are files."""

GAME_THREAD = {
    "view_channel": "View Channel",
    "send_messages_in_threads": "Send Messages in Threads",
    "embed_links": "Embed Links",
    "attach_files": "Attach Files",
}
"""What a game in a thread needs: a post there needs Send Messages in Threads, not the
channel's Send Messages."""

INVITE = {**GAME_CHANNEL, **GAME_THREAD, "read_message_history": "Read Message History"}
"""What the invite link the bot logs when ready asks for: what its channels and threads need,
and Read Message History, as the set-up help (:data:`bot.config.NO_TOKEN_HELP`) lists."""


def check_postable(
    interaction: discord.Interaction[Any], channel_id: int, needs: Mapping[str, str]
) -> None:
    """Refuse a channel where the bot lacks any of ``needs``, or cannot tell."""
    missing = missing_permissions(interaction, channel_id, needs)
    if missing is None:
        raise Refusal(
            f"I cannot see <#{channel_id}>, so I cannot tell whether I may post there: "
            f"give me {joined(list(needs.values()))} there first."
        )
    if missing:
        raise Refusal(f"I cannot post in <#{channel_id}>: give me {joined(missing)} there.")


def needs_for(channel: object) -> Mapping[str, str]:
    """What posting a game's messages needs in ``channel`` (a thread, or not)."""
    return GAME_THREAD if isinstance(channel, discord.Thread) else GAME_CHANNEL


def check_playable(interaction: discord.Interaction[Any]) -> None:
    """Refuse a game in the command's channel where the bot may not post. Discord takes the
    command's answer even there, so the lobby would open; but its turn pings, a timed-out
    turn's or Orchard's own moves, and a board posted again could never be shown."""
    channel_id, needs = interaction.channel_id, needs_for(interaction.channel)
    missing = [] if channel_id is None else missing_permissions(interaction, channel_id, needs)
    if missing:
        raise Refusal(
            f"I cannot post in <#{channel_id}>, so a game here could not go on: ask someone who"
            f" can to give me {joined(missing)} there, or play in another channel."
        )


def missing_permissions(
    interaction: discord.Interaction[Any], channel_id: int, needs: Mapping[str, str]
) -> list[str] | None:
    """The names of ``needs`` the bot lacks in a channel now; None when it cannot tell."""
    perms = bot_permissions(interaction, channel_id)
    if perms is None:
        return None
    return [label for name, label in needs.items() if not getattr(perms, name)]


def bot_permissions(
    interaction: discord.Interaction[Any], channel_id: int
) -> discord.Permissions | None:
    """What the bot may do in a channel: Discord's own word for this channel, else worked out
    from the cache; None when the channel or the bot's member is not known."""
    if channel_id == interaction.channel_id:
        return interaction.app_permissions
    guild = interaction.guild
    channel = guild.get_channel(channel_id) if guild else None
    me = guild.me if guild else None
    if channel is None or me is None:
        return None
    return channel.permissions_for(me)
