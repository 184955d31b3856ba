"""A fake of Discord's REST API and gateway on 127.0.0.1, for driving an unchanged discord.py bot.

Why: the cogs are thin glue between discord.py and the game engine; the glue is where payload
limits, ephemeral flags, stale buttons and rate limits bite. Running the real library against a
fake server tests that glue end to end, with no network and in milliseconds.

Typical use (see ``tests/conftest.py`` for the ``fake_discord`` fixture)::

    fake.add_guild(GUILD, [CHANNEL], [ALICE, BOB])
    async with run_bot(bot, fake):
        reply = await fake.slash(ALICE, GUILD, CHANNEL, "cheerio", {"rounds": 3}, subcommand="new")
        await reply.wait()
        assert reply.ephemeral and "started" in reply.content

Every message the bot posts or edits is kept in ``fake.messages`` (by message id) with all its
versions in ``fake.versions``; who each created message notified in ``fake.notifications``
(edits notify nobody, as on Discord; read it with ``notified_since``); every HTTP request in
``fake.requests``; routes the fake does not know answer 404 (code 0, none of Discord's) and
are listed in ``fake.unhandled``; a test that used one fails at the fixture's end.

It is as unkind as Discord: any request on a channel where the bot's permissions (the
@everyone role's, then the channel's overwrites; a thread's are its parent's) lack View
Channel is refused (403, 50001); a post lacking Send Messages (in a thread, Send Messages in
Threads), or Embed Links for embeds alone, or a post or edit with a file lacking Attach
Files, too (403, 50013); every route of a deleted channel, and of its threads, answers 404,
10003; an edit, deletion or reaction in an archived thread is refused (400, 50083) until
a post (or unarchiving it) reopens it, and a locked one stays shut to a bot that may not
manage threads (403); an interaction answered more
than 3 s after its creation is unknown (404, 10062) and one answered twice is refused (400,
40060); a deferred one's token works for 15 minutes (then 401, 50027); message posts and edits
are limited per channel and every request but interaction callbacks to 50 a second (429 with
``retry_after``, ``Via`` and the ``X-RateLimit-*`` headers). ``callback_window``,
``token_lifetime``, ``route_limits`` and ``global_limit`` hold those numbers;
``interaction_age`` makes new interactions arrive late.

The parts, one module each: ``server`` (the app, routing, install), ``state`` (what is
recorded), ``world`` (users, guilds, DMs), ``lookups`` (reading messages and requests back),
``messages`` (create, edit, delete), ``notifications`` (who a created message notifies),
``waiting``, ``faults``, ``ratelimits``, ``gateway``, the REST routes by topic (``rest_app``,
``rest_commands``, ``rest_channels``, ``rest_messages``, ``rest_interactions``), what tests do
as users (``slash``, ``clicks``, ``forms``), the records (``models``, ``record``), Discord's
numbers and limits (``protocol``, ``limits``) and ``run_bot``.
"""

from tests.fakediscord.limits import COMPONENTS_V2, payload_problems
from tests.fakediscord.models import Component, Request, Upload, components_of, text_of
from tests.fakediscord.notifications import SUPPRESS_NOTIFICATIONS
from tests.fakediscord.protocol import (
    ADMINISTRATOR,
    ALREADY_ACKNOWLEDGED,
    CANNOT_DM_USER,
    DEFAULT_APP_PERMISSIONS,
    DEFAULT_MEMBER_PERMISSIONS,
    DISCORD_EPOCH_MS,
    EMBED_LINKS,
    EPHEMERAL,
    INVALID_FORM_BODY,
    INVALID_WEBHOOK_TOKEN,
    JSON,
    LOADING,
    MISSING_ACCESS,
    MISSING_PERMISSIONS,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    UNKNOWN_CHANNEL,
    UNKNOWN_INTERACTION,
    UNKNOWN_MESSAGE,
    UNKNOWN_USER,
    UNKNOWN_WEBHOOK,
    VIEW_CHANNEL,
)
from tests.fakediscord.record import InteractionRecord
from tests.fakediscord.runbot import run_bot
from tests.fakediscord.server import FakeDiscord

__all__ = [
    "ADMINISTRATOR",
    "ALREADY_ACKNOWLEDGED",
    "CANNOT_DM_USER",
    "COMPONENTS_V2",
    "DEFAULT_APP_PERMISSIONS",
    "DEFAULT_MEMBER_PERMISSIONS",
    "DISCORD_EPOCH_MS",
    "EMBED_LINKS",
    "EPHEMERAL",
    "INVALID_FORM_BODY",
    "INVALID_WEBHOOK_TOKEN",
    "JSON",
    "LOADING",
    "MISSING_ACCESS",
    "MISSING_PERMISSIONS",
    "SEND_MESSAGES",
    "SEND_MESSAGES_IN_THREADS",
    "SUPPRESS_NOTIFICATIONS",
    "UNKNOWN_CHANNEL",
    "UNKNOWN_INTERACTION",
    "UNKNOWN_MESSAGE",
    "UNKNOWN_USER",
    "UNKNOWN_WEBHOOK",
    "VIEW_CHANNEL",
    "Component",
    "FakeDiscord",
    "InteractionRecord",
    "Request",
    "Upload",
    "components_of",
    "payload_problems",
    "run_bot",
    "text_of",
]
