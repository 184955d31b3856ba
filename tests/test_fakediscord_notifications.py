"""The fake is as unkind as Discord about notifications: only a created message notifies,
only the users its ``allowed_mentions`` let through, never an ephemeral or silent one."""

from __future__ import annotations

from collections.abc import AsyncIterator

import discord
import pytest
from discord import app_commands

from tests.fakediscord import FakeDiscord, run_bot

GUILD, CHANNEL = 111_000_000_000_000_001, 222_000_000_000_000_001
ALICE, BOB = 333_000_000_000_000_001, 333_000_000_000_000_002
BOTH = f"<@{ALICE}> <@!{BOB}>"  # both forms of a user mention


class Notify(app_commands.Group):
    """Interaction replies: a public one and an ephemeral one, both mentioning Alice and Bob."""

    @app_commands.command(description="Mention both, publicly")
    async def public(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(BOTH)

    @app_commands.command(description="Mention both, only to the caller")
    async def private(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(BOTH, ephemeral=True)


@pytest.fixture
async def client(fake_discord: FakeDiscord) -> AsyncIterator[discord.Client]:
    fake_discord.add_guild(GUILD, [CHANNEL], [ALICE, BOB])
    bot = discord.Client(intents=discord.Intents.none())
    tree = app_commands.CommandTree(bot)
    tree.add_command(Notify(name="notify", description="Mentions"))

    async def setup_hook() -> None:
        await tree.sync()

    bot.setup_hook = setup_hook  # type: ignore[method-assign]
    async with run_bot(bot, fake_discord):
        yield bot


async def test_a_created_message_notifies_whom_allowed_mentions_let_through(
    fake_discord: FakeDiscord, client: discord.Client
) -> None:
    channel = client.get_partial_messageable(CHANNEL, guild_id=GUILD)
    everyone = await channel.send(BOTH)  # no allowed_mentions: every user mention notifies
    only_bob = await channel.send(
        BOTH, allowed_mentions=discord.AllowedMentions(users=[discord.Object(id=BOB)])
    )
    nobody = await channel.send(BOTH, allowed_mentions=discord.AllowedMentions.none())
    assert fake_discord.notifications == [
        (ALICE, everyone.id),
        (BOB, everyone.id),
        (BOB, only_bob.id),
    ]
    assert nobody.id not in {m for _, m in fake_discord.notifications}


async def test_silent_messages_and_edits_notify_nobody(
    fake_discord: FakeDiscord, client: discord.Client
) -> None:
    channel = client.get_partial_messageable(CHANNEL, guild_id=GUILD)
    await channel.send(BOTH, silent=True)
    draft = await channel.send("nothing yet")
    await draft.edit(content=BOTH)
    assert fake_discord.notifications == []


async def test_a_dm_notifies_its_recipient(
    fake_discord: FakeDiscord, client: discord.Client
) -> None:
    mark = len(fake_discord.notifications)
    dm = await client.create_dm(discord.Object(id=BOB))
    sent = await dm.send("your turn")
    assert fake_discord.notifications[mark:] == [(BOB, sent.id)]
    assert fake_discord.notified_since(mark) == [BOB]


async def test_interaction_replies_notify_unless_ephemeral(
    fake_discord: FakeDiscord, client: discord.Client
) -> None:
    await (await fake_discord.slash(ALICE, GUILD, CHANNEL, "notify private")).wait()
    assert fake_discord.notified_since(0) == []
    public = await (await fake_discord.slash(ALICE, GUILD, CHANNEL, "notify public")).wait()
    assert public.original_id is not None
    assert fake_discord.notifications == [(ALICE, public.original_id), (BOB, public.original_id)]
