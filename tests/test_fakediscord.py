"""The fake Discord carries an unchanged discord.py AutoShardedBot through real round trips."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import time
from collections.abc import AsyncIterator

import discord
import pytest
from discord import app_commands
from discord.ext import commands
from discord.http import handle_message_parameters

from tests.fakediscord import (
    ALREADY_ACKNOWLEDGED,
    EMBED_LINKS,
    EPHEMERAL,
    INVALID_WEBHOOK_TOKEN,
    MISSING_ACCESS,
    MISSING_PERMISSIONS,
    SEND_MESSAGES,
    UNKNOWN_INTERACTION,
    VIEW_CHANNEL,
    FakeDiscord,
    Request,
    components_of,
    run_bot,
)
from tests.fakediscord.limits import payload_problems

GUILD, CHANNEL, OTHER_CHANNEL = (
    111_000_000_000_000_001,
    222_000_000_000_000_001,
    222_000_000_000_000_002,
)
ALICE, BOB = 333_000_000_000_000_001, 333_000_000_000_000_002


class Counter(discord.ui.View):
    """A button that rewrites its own message: the shape of every game board."""

    def __init__(self) -> None:
        super().__init__(timeout=None)
        self.count = 0

    @discord.ui.button(label="Add", custom_id="demo:add")
    async def add(
        self, interaction: discord.Interaction, button: discord.ui.Button[Counter]
    ) -> None:
        self.count += 1
        button.disabled = self.count >= 2
        await interaction.response.edit_message(content=f"count={self.count}", view=self)


class Name(discord.ui.Modal, title="Your name"):
    name: discord.ui.TextInput[Name] = discord.ui.TextInput(label="Name", custom_id="demo:name")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"hello {self.name.value}", ephemeral=True)


class Again(discord.ui.Modal, title="Again"):
    """A form answered with another form: Discord refuses that answer."""

    name: discord.ui.TextInput[Again] = discord.ui.TextInput(label="Name", custom_id="demo:again")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        try:
            await interaction.response.send_modal(Name(custom_id="demo:modal"))
        except discord.HTTPException as err:
            await interaction.response.send_message(f"refused {err.status}", ephemeral=True)


class Ask(discord.ui.View):
    @discord.ui.button(label="Ask", custom_id="demo:ask")
    async def ask(self, interaction: discord.Interaction, button: discord.ui.Button[Ask]) -> None:
        await interaction.response.send_modal(Name(custom_id="demo:modal"))

    @discord.ui.button(label="Ask again", custom_id="demo:ask-again")
    async def again(self, interaction: discord.Interaction, button: discord.ui.Button[Ask]) -> None:
        await interaction.response.send_modal(Again(custom_id="demo:again-modal"))


class Demo(app_commands.Group):
    """``/demo ...``: one subcommand per path the fake must carry."""

    @app_commands.command(description="Pong, only for you")
    async def ping(self, interaction: discord.Interaction, times: int = 1) -> None:
        await interaction.response.send_message("pong" * times, ephemeral=True)

    @app_commands.command(description="Post a counter")
    async def counter(self, interaction: discord.Interaction) -> None:
        assert interaction.channel is not None and isinstance(
            interaction.channel, discord.TextChannel
        )
        await interaction.channel.send("count=0", view=Counter())
        await interaction.response.send_message("posted", ephemeral=True)

    @app_commands.command(description="DM someone")
    async def poke(self, interaction: discord.Interaction, who: discord.User) -> None:
        await interaction.response.defer(ephemeral=True)
        await who.send(
            f"{interaction.user.name} poked you", file=discord.File(io.BytesIO(b"png!"), "a.png")
        )
        await interaction.edit_original_response(content=f"poked {who.name}")

    @app_commands.command(description="Post then edit")
    async def edit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("working", ephemeral=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        message = await interaction.channel.send("draft")
        await message.edit(content="final")
        await interaction.followup.send("done", ephemeral=True)

    @app_commands.command(description="Too long for Discord")
    async def long(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("x" * 2001)

    @app_commands.command(description="Where am I")
    async def where(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        kind = type(interaction.channel).__name__
        await interaction.followup.send(f"{interaction.user.name} in {kind}")

    @app_commands.command(description="Ask for a name")
    async def ask(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("press", view=Ask())

    @app_commands.command(description="Edit my private reply through the channel")
    async def secret(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("secret", ephemeral=True)
        reply = await interaction.original_response()
        assert isinstance(interaction.channel, discord.TextChannel)
        try:
            await interaction.channel.get_partial_message(reply.id).edit(content="shown")
        except discord.NotFound as err:
            await interaction.followup.send(f"refused {err.code}", ephemeral=True)

    @app_commands.command(description="Answer, and if that fails, try to defer")
    async def retry(self, interaction: discord.Interaction) -> None:
        try:
            await interaction.response.send_message("hello")
        except discord.NotFound:
            await interaction.response.defer()  # discord.py allows it: nothing was answered

    @app_commands.command(description="Two answers at once")
    async def twice(self, interaction: discord.Interaction) -> None:
        both = await asyncio.gather(
            interaction.response.send_message("one"),
            interaction.response.defer(),
            return_exceptions=True,
        )
        codes = [getattr(r, "code", None) for r in both]
        await interaction.followup.send(f"codes {codes}")

    @app_commands.command(description="Defer, then follow up twice, a while apart")
    async def later(self, interaction: discord.Interaction, pause: float) -> None:
        await interaction.response.defer(ephemeral=True)
        await asyncio.sleep(pause)
        await interaction.edit_original_response(content="edited")
        await interaction.followup.send("first", ephemeral=True)
        await asyncio.sleep(pause)
        await interaction.followup.send("second", ephemeral=True)

    @app_commands.command(description="Fetch this channel many times")
    async def fetch(self, interaction: discord.Interaction, times: int) -> None:
        await interaction.response.defer(ephemeral=True)
        for _ in range(times):
            await interaction.client.fetch_channel(interaction.channel_id or 0)
        await interaction.followup.send("done")

    @app_commands.command(description="Edit one channel message many times")
    async def edits(self, interaction: discord.Interaction, times: int) -> None:
        await interaction.response.send_message("editing", ephemeral=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        message = await interaction.channel.send("draft")
        for i in range(times):
            await message.edit(content=f"edit {i}")
        await interaction.followup.send("done", ephemeral=True)


def make_bot() -> commands.AutoShardedBot:
    intents = discord.Intents.default()
    intents.message_content = False
    bot = commands.AutoShardedBot(command_prefix="!", intents=intents, guild_ready_timeout=0.05)

    async def setup_hook() -> None:
        bot.tree.add_command(Demo(name="demo", description="Fake Discord checks"))
        await bot.tree.sync()

    bot.setup_hook = setup_hook  # type: ignore[method-assign]
    return bot


@pytest.fixture
async def fake(fake_discord: FakeDiscord) -> AsyncIterator[FakeDiscord]:
    """One guild with two channels and two members, and a running bot."""
    fake_discord.add_guild(GUILD, [CHANNEL, OTHER_CHANNEL], [ALICE, BOB])
    fake_discord.add_user(BOB, "bob")
    async with run_bot(make_bot(), fake_discord):
        yield fake_discord


async def test_bot_logs_in_syncs_and_sees_the_guild(fake_discord: FakeDiscord) -> None:
    fake_discord.add_guild(GUILD, [CHANNEL], [ALICE])
    bot = make_bot()
    async with run_bot(bot, fake_discord):
        assert bot.is_ready() and bot.user is not None and bot.user.id == fake_discord.bot_id
        guild = bot.get_guild(GUILD)
        assert guild is not None and guild.get_channel(CHANNEL) is not None
        assert guild.me is not None
        with pytest.raises(discord.NotFound) as missing:
            await bot.fetch_sticker(1)
        assert missing.value.code == 0  # not a Discord code: no unknown route passes as one
    assert [r.path for r in fake_discord.unhandled] == ["/stickers/1"]
    fake_discord.unhandled.clear()  # seen: the fixture's end fails a test that used one
    assert [c["name"] for c in fake_discord.commands or []] == ["demo"]
    assert len(fake_discord.identifies) == 1


async def test_ephemeral_reply_to_a_subcommand(fake: FakeDiscord) -> None:
    reply = await fake.slash(ALICE, GUILD, CHANNEL, "demo", {"times": 2}, subcommand="ping")
    await reply.wait()
    assert reply.type == 4 and reply.flags == EPHEMERAL and reply.ephemeral
    assert reply.content == "pongpong"


async def test_button_updates_the_stored_message(fake: FakeDiscord) -> None:
    await (await fake.slash(ALICE, GUILD, CHANNEL, "demo counter")).wait()
    board = fake.last_message(CHANNEL)
    assert board is not None and board["content"] == "count=0"
    board_id = int(board["id"])
    for expected in (1, 2):
        button = fake.find_button(board_id, "Add")
        click = await fake.click(BOB, board_id, button.custom_id or "")
        await click.wait()
        assert click.type == 7 and fake.message(board_id)["content"] == f"count={expected}"
    assert components_of(fake.message(board_id))[0].disabled
    with pytest.raises(AssertionError, match="disabled"):
        await fake.click(BOB, board_id, "demo:add")
    assert len(fake.versions[board_id]) == 3


async def test_dm_with_a_file_is_recorded_per_user(fake: FakeDiscord) -> None:
    reply = await fake.slash(ALICE, GUILD, CHANNEL, "demo poke", {"who": BOB})
    await reply.wait_until(lambda r: r.content == "poked bob")
    assert reply.type == 5 and reply.ephemeral
    (dm,) = fake.dms(BOB)
    assert dm["content"] == f"user{ALICE} poked you"
    assert [(a["filename"], a["size"]) for a in dm["attachments"]] == [("a.png", 4)]


async def test_rate_limited_edit_is_retried(fake: FakeDiscord) -> None:
    fake.fail("PATCH", r"^/channels/\d+/messages/\d+$", 429, retry_after=0.01)
    reply = await fake.slash(ALICE, GUILD, CHANNEL, "demo edit")
    await reply.wait_followups(1)
    patches = fake.requests_matching("PATCH", r"^/channels/")
    assert [p.status for p in patches] == [429, 200]
    assert [m["content"] for m in fake.channel_messages(CHANNEL)] == ["final"]
    everything = fake.channel_messages(CHANNEL, ephemeral=True)
    assert [m["content"] for m in everything] == ["working", "final", "done"]
    assert fake.pending_faults == 0


async def test_modal_round_trip(fake: FakeDiscord) -> None:
    await (await fake.slash(ALICE, GUILD, CHANNEL, "demo ask")).wait()
    prompt = fake.last_message(CHANNEL)
    assert prompt is not None
    opened = await fake.click(BOB, int(prompt["id"]), "demo:ask")
    await opened.wait()
    assert opened.type == 9 and opened.modal is not None
    assert opened.modal["custom_id"] == "demo:modal"
    submitted = await fake.submit_modal(BOB, CHANNEL, "demo:modal", {"demo:name": "Bob"})
    await submitted.wait()
    assert submitted.content == "hello Bob" and submitted.ephemeral


async def test_a_form_answered_with_a_form_is_refused(fake: FakeDiscord) -> None:
    """Discord takes a form only as the answer to a command or a click, never to a form."""
    await (await fake.slash(ALICE, GUILD, CHANNEL, "demo ask")).wait()
    prompt = fake.last_message(CHANNEL)
    assert prompt is not None
    await (await fake.click(BOB, int(prompt["id"]), "demo:ask-again")).wait()
    submitted = await fake.submit_modal(BOB, CHANNEL, "demo:again-modal", {"demo:again": "x"})
    await submitted.wait()
    assert submitted.content == "refused 400" and submitted.ephemeral


async def test_a_private_reply_is_not_the_channels_to_edit(fake: FakeDiscord) -> None:
    """An ephemeral message is the interaction's alone: the channel's routes answer 10008."""
    reply = await fake.slash(ALICE, GUILD, CHANNEL, "demo secret")
    (said,) = await reply.wait_followups(1)
    assert said["content"] == "refused 10008"
    assert reply.content == "secret"


async def test_gateway_drop_is_resumed(fake: FakeDiscord) -> None:
    await fake.drop_gateway()
    assert fake.resumes == 1 and len(fake.identifies) == 1
    reply = await fake.slash(ALICE, GUILD, CHANNEL, "demo ping")
    assert (await reply.wait()).content == "pong"


async def test_an_outage_while_the_bot_runs_brings_the_server_back_with_its_channels(
    fake_discord: FakeDiscord,
) -> None:
    """A server goes unavailable (GUILD_DELETE, ``unavailable``), a channel is deleted
    meanwhile (no CHANNEL_DELETE is sent), and the server comes back (GUILD_CREATE with the
    channels it has now). Plain discord.py merges those into the server it kept: the deleted
    channel stays in its cache, which is why Orchard drops it itself (bot.app)."""
    fake_discord.add_guild(GUILD, [CHANNEL, OTHER_CHANNEL], [ALICE])
    bot = make_bot()
    async with run_bot(bot, fake_discord):
        guild = bot.get_guild(GUILD)
        assert guild is not None
        await fake_discord.begin_outage(GUILD)
        await fake_discord.wait_for(lambda: guild.unavailable, 5, "the server unavailable")
        await fake_discord.delete_channel(OTHER_CHANNEL)
        back = asyncio.ensure_future(bot.wait_for("guild_available", timeout=5))
        await fake_discord.end_outage(GUILD)
        assert await back is guild and not guild.unavailable
        assert guild.get_channel(CHANNEL) is not None
        assert guild.get_channel(OTHER_CHANNEL) is not None, "discord.py keeps it"


async def test_forbidden_send_is_logged_by_the_bot(fake: FakeDiscord) -> None:
    fake.fail("POST", r"/channels/\d+/messages$", 403)
    reply = await fake.slash(ALICE, GUILD, CHANNEL, "demo counter")
    await fake.wait_for(lambda: bool(fake.errors), what="the bot to log the 403")
    assert "50013" in str(fake.errors[-1].exc_info[1] if fake.errors[-1].exc_info else "")
    assert reply.callback is None


async def test_a_post_the_bots_permissions_forbid_is_refused_with_discords_code(
    fake_discord: FakeDiscord,
) -> None:
    """A channel's overwrites, changed while the bot runs, reach its cache (CHANNEL_UPDATE),
    and a post they forbid is refused as Discord refuses it: 50001 Missing Access without
    View Channel, 50013 Missing Permissions without Send Messages, or Embed Links for an
    embed alone. Without overwrites, the post goes through."""
    fake_discord.add_guild(GUILD, [CHANNEL, OTHER_CHANNEL], [ALICE])
    bot = make_bot()
    async with run_bot(bot, fake_discord):
        channel = bot.get_partial_messageable(OTHER_CHANNEL, guild_id=GUILD)
        board = discord.Embed(description="board")

        def cached_permissions() -> int:
            cached = bot.get_channel(OTHER_CHANNEL)
            assert isinstance(cached, discord.TextChannel)
            return cached.permissions_for(cached.guild.me).value

        for denied, code in (
            (VIEW_CHANNEL, MISSING_ACCESS),
            (SEND_MESSAGES, MISSING_PERMISSIONS),
            (EMBED_LINKS, MISSING_PERMISSIONS),
        ):
            deny = {"id": str(fake_discord.bot_id), "type": 1, "allow": "0", "deny": str(denied)}
            await fake_discord.update_channel(OTHER_CHANNEL, permission_overwrites=[deny])
            with pytest.raises(discord.Forbidden) as refused:
                await channel.send(embed=board)
            assert refused.value.status == 403 and refused.value.code == code, denied
            await fake_discord.wait_for(
                lambda denied=denied: not cached_permissions() & denied,
                what="the bot to hear of the overwrite",
            )
        await fake_discord.update_channel(OTHER_CHANNEL, permission_overwrites=[])
        await channel.send(embed=board)
    assert fake_discord.channel_messages(OTHER_CHANNEL)[0]["embeds"][0]["description"] == "board"


async def test_oversized_content_is_refused_like_discord(fake: FakeDiscord) -> None:
    reply = await fake.slash(ALICE, GUILD, CHANNEL, "demo long")
    await fake.wait_for(lambda: bool(fake.errors), what="the bot to log the 400")
    (refused,) = fake.requests_matching("POST", r"/callback$")
    assert refused.status == 400 and reply.callback is None


def test_two_controls_with_one_custom_id_are_refused_like_discord() -> None:
    button = {"type": 2, "style": 2, "label": "A", "custom_id": "same"}
    twice = {"components": [{"type": 1, "components": [button, {**button, "label": "B"}]}]}
    assert payload_problems(twice) == ["components: a custom_id used twice in one message"]
    apart = {"components": [{"type": 1, "components": [button, {**button, "custom_id": "b"}]}]}
    assert payload_problems(apart) == []


async def test_dm_slash_command_and_first_followup_replaces_thinking(fake: FakeDiscord) -> None:
    reply = await fake.slash(BOB, None, None, "demo where")
    (answer,) = await reply.wait_followups(1)
    assert answer["content"] == "bob in DMChannel" and answer["id"] == str(reply.original_id)
    assert "member" not in reply.payload and reply.payload["user"]["id"] == str(BOB)
    assert fake.channels[reply.channel_id]["type"] == 1
    # The app's bot DM, reached through its install to servers, not a person's install.
    assert reply.payload["context"] == 1
    assert reply.payload["authorizing_integration_owners"] == {"0": "0"}


def codes_logged(fake: FakeDiscord) -> list[int]:
    """The Discord error codes of the HTTP errors the bot logged (discord.py swallows them)."""
    found = []
    for record in fake.errors:
        error = record.exc_info[1] if record.exc_info else None
        error = getattr(error, "original", error)
        if isinstance(error, discord.HTTPException):
            found.append(error.code)
    return found


async def test_an_answer_after_3_seconds_is_unknown_for_good(fake: FakeDiscord) -> None:
    """Discord forgets an interaction 3 s after it was created (its id's time): the late answer
    is 404 / 10062, and so is any other attempt after it."""
    fake.interaction_age = 3.2  # the user acted 3.2 s before the bot heard of it
    reply = await fake.slash(ALICE, GUILD, CHANNEL, "demo retry")
    assert time.time() - reply.created >= 3.2
    await fake.wait_for(lambda: bool(fake.errors), what="the bot to log the late answer")
    callbacks = fake.requests_matching("POST", r"/callback$")
    assert [c.status for c in callbacks] == [404, 404]
    assert codes_logged(fake) == [UNKNOWN_INTERACTION]
    assert reply.callback is None


async def test_a_second_answer_in_time_is_already_acknowledged(fake: FakeDiscord) -> None:
    reply = await fake.slash(ALICE, GUILD, CHANNEL, "demo twice")
    (said,) = await reply.wait_followups(1)
    assert said["content"] == f"codes [None, {ALREADY_ACKNOWLEDGED}]"
    assert [c.status for c in fake.requests_matching("POST", r"/callback$")] == [200, 400]
    assert reply.content == "one"
    assert fake.double_answers == [reply]
    fake.double_answers.clear()  # seen: any other test answering twice fails


async def test_a_deferred_token_works_past_3_seconds_until_it_expires(fake: FakeDiscord) -> None:
    """Deferred in time, an interaction is completed later by edits and follow-ups; its token
    lasts 15 minutes (shortened here), then Discord answers 401 / 50027."""
    fake.callback_window, fake.token_lifetime = 0.5, 1.0
    reply = await fake.slash(ALICE, GUILD, CHANNEL, "demo later", {"pause": 0.6})
    await reply.wait_until(lambda r: r.content == "edited")
    assert reply.type == 5 and reply.ephemeral
    (first,) = await reply.wait_followups(1)
    assert first["content"] == "first" and first["flags"] & EPHEMERAL
    await fake.wait_for(lambda: bool(fake.errors), what="the expired token to fail")
    assert codes_logged(fake) == [INVALID_WEBHOOK_TOKEN]
    statuses = [r.status for r in fake.requests_matching("*", r"^/webhooks/")]
    assert statuses == [200, 200, 401]


def channel_edits(fake: FakeDiscord) -> list[Request]:
    return fake.requests_matching("PATCH", r"^/channels/\d+/messages/\d+$")


def quick(fake: FakeDiscord, per: float) -> None:
    """Discord's per-route limits with a shorter window, so a test waits less."""
    fake.route_limits = tuple(dataclasses.replace(r, per=per) for r in fake.route_limits)


async def test_message_edits_are_paced_by_the_headers_per_channel(fake: FakeDiscord) -> None:
    """5 edits per window per channel: discord.py reads the headers and waits, never 429."""
    quick(fake, 0.6)
    reply = await fake.slash(ALICE, GUILD, CHANNEL, "demo edits", {"times": 7})
    await reply.wait_followups(1)
    edits = channel_edits(fake)
    assert [e.status for e in edits] == [200] * 7
    assert [e.headers["X-RateLimit-Remaining"] for e in edits[:5]] == ["4", "3", "2", "1", "0"]
    assert {e.headers["X-RateLimit-Limit"] for e in edits} == {"5"}
    assert all(float(e.headers["X-RateLimit-Reset-After"]) <= 0.6 for e in edits)
    assert "X-RateLimit-Bucket" in edits[0].headers and "X-RateLimit-Reset" in edits[0].headers
    assert edits[5].at - edits[0].at >= 0.5  # the sixth waited for the window to end


async def test_a_429_carries_retry_after_and_the_headers_discord_py_needs(
    fake: FakeDiscord,
) -> None:
    """A second client (another process on the same token) knows nothing of the spent
    window: Discord answers 429 with ``retry_after`` and ``Via``; discord.py waits, retries."""
    quick(fake, 0.6)
    await fake.slash(ALICE, GUILD, CHANNEL, "demo edits", {"times": 5})
    await fake.wait_for(lambda: len(channel_edits(fake)) == 5, what="the window to be spent")
    draft = next(m for m in fake.channel_messages(CHANNEL) if m["content"] == "edit 4")
    other = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        await other.static_login("fake-token")
        params = handle_message_parameters(content="from elsewhere")
        await other.edit_message(CHANNEL, int(draft["id"]), params=params)
    finally:
        await other.close()
    edits = channel_edits(fake)
    assert [e.status for e in edits] == [200] * 5 + [429, 200]
    limited = edits[5]
    assert limited.headers["Via"] and limited.headers["X-RateLimit-Remaining"] == "0"
    assert limited.headers["X-RateLimit-Scope"] == "user"
    assert edits[6].at - limited.at >= float(limited.headers["X-RateLimit-Reset-After"]) - 0.05
    assert fake.message(int(draft["id"]))["content"] == "from elsewhere"


async def test_the_global_limit_spares_interaction_callbacks(fake: FakeDiscord) -> None:
    """50 requests a second in all: the 51st is a global 429 (discord.py pauses every request,
    then goes on); 60 slash commands answered in a burst are never limited."""
    for _ in range(60):
        await (await fake.slash(ALICE, GUILD, CHANNEL, "demo ping")).wait()
    callbacks = fake.requests_matching("POST", r"/callback$")
    assert len(callbacks) == 60 and {c.status for c in callbacks} == {200}
    reply = await fake.slash(ALICE, GUILD, CHANNEL, "demo fetch", {"times": 60})
    await reply.wait_followups(1, timeout=10.0)
    fetched = fake.requests_matching("GET", rf"^/channels/{CHANNEL}$")
    limited = [r for r in fetched if r.status == 429]
    assert len(fetched) - len(limited) == 60 and limited
    assert all(r.headers.get("X-RateLimit-Global") == "true" for r in limited)


async def test_the_global_limit_spares_follow_ups_and_edits_of_interactions(
    fake: FakeDiscord,
) -> None:
    """The interaction's webhook (its edits and follow-ups) is an interaction endpoint too:
    30 deferred commands, each edited once and followed up twice, are never limited."""
    replies = [
        await fake.slash(ALICE, GUILD, CHANNEL, "demo later", {"pause": 0.0}) for _ in range(30)
    ]
    for reply in replies:
        await reply.wait_followups(2)
    webhooks = [r for r in fake.requests if r.path.startswith("/webhooks/")]
    assert len(webhooks) == 90 and {w.status for w in webhooks} == {200}
