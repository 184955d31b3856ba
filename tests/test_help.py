"""/help, the presence line and where commands are offered, as the fake Discord receives them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bot.specs import SPECS, VARIANTS
from bot.wording import command_mention
from tests.botharness import ALICE, CHANNEL, GUILD, answered, orchard_bot, server
from tests.fakediscord import FakeDiscord

GUILD_ONLY = [0]  # Discord's contexts: 0 a server, 1 Orchard's DMs, 2 other DMs and groups


def ids_of(fake: FakeDiscord) -> dict[str, str]:
    return {c["name"]: c["id"] for c in fake.commands or []}


async def help_text(fake: FakeDiscord, guild: int | None = GUILD) -> str:
    """/help as Alice sees it in a server's channel, or (``guild`` None) in her DM with Orchard."""
    record = await answered(await fake.slash(ALICE, guild, CHANNEL if guild else None, "help"))
    assert record.ephemeral, record.describe()
    text: str = record.embeds[0]["description"]
    return text


async def test_help_overviews_every_game_with_clickable_commands(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db"):
        text = await help_text(fake_discord)
    ids = ids_of(fake_discord)
    for spec in SPECS:
        assert f"</{spec.command} new:{ids[spec.command]}>" in text
        assert f"</{spec.command} rules:{ids[spec.command]}>" in text
    for variant in VARIANTS.values():
        assert f"**{variant.title}**: {variant.blurb}" in text
    names = ("games", "stats", "history", "leaderboard", "pings", "forfeit", "forget-me")
    for name in (*names, "settings", "end"):
        assert f"</{name}:{ids[name]}>" in text
    assert text.startswith("Orchard hosts dice and word games in this server.")
    assert "lists open games here" in text
    assert "Ratings** start at 1000" in text and "`/" not in text
    assert "**/daily**" in text, "the Daily Orchard is explained"
    assert "**Accuracy** is the share of the optimum" in text, "and what accuracy means"
    mentioned = set(re.findall(r"</([a-z -]+):(\d+)>", text))
    assert all(ids[path.split()[0]] == id_ for path, id_ in mentioned), "every id is Discord's"


async def test_help_in_a_dm_says_games_are_started_in_a_server(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """In a DM there is no "this server": /help says where the games are played, and that
    its commands are used there."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db"):
        text = await help_text(fake_discord, None)
    first = text.split("\n")[0]
    assert first == (
        "Orchard hosts dice and word games in Discord servers. Start one in a channel of a"
        " server Orchard is in:"
    ), first
    assert "this server" not in text and "games here" not in text
    assert "lists a server's open games" in text
    assert f"</cheerio new:{ids_of(fake_discord)['cheerio']}>" in text


async def test_help_still_mentions_after_a_restart_that_skips_the_sync(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """The second start finds its commands unchanged and does not sync: it reads the ids."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db"):
        pass
    puts = len(fake_discord.requests_matching("PUT", "/commands$"))
    async with orchard_bot(fake_discord, tmp_path / "o.db"):
        text = await help_text(fake_discord)
    again = len(fake_discord.requests_matching("PUT", "/commands$"))
    assert again == puts, "no second sync"
    assert f"</cheerio new:{ids_of(fake_discord)['cheerio']}>" in text


def test_without_ids_commands_are_named_as_text() -> None:
    assert command_mention("cheerio new", {}) == "`/cheerio new`"
    assert command_mention("cheerio new", {"cheerio": 7}) == "</cheerio new:7>"
    assert command_mention("forget-me", {"forget-me": 9}) == "</forget-me:9>"


async def test_the_presence_line_says_playing_help(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db"):
        pass
    presence: dict[str, Any] = fake_discord.identifies[-1]["presence"]  # sent as it connects
    assert (presence["game"]["name"], presence["game"]["type"]) == ("/help", 0)  # 0: Playing


async def test_only_help_and_forget_me_are_offered_outside_servers(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Games, records and settings belong to a server: Discord is told to offer those
    commands in servers only, so nobody is shown one in a DM only to be refused, and the
    app is installed to servers only (a person's install would run them where Orchard is
    not). /forget-me is offered in Orchard's DMs too, where it erases a person everywhere."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db"):
        pass
    contexts = {c["name"]: c.get("contexts") for c in fake_discord.commands or []}
    assert contexts.pop("help") == [0, 1]  # servers and Orchard's own DMs
    assert contexts.pop("forget-me") == [0, 1]
    assert {spec.command for spec in SPECS} <= set(contexts)
    assert all(found == GUILD_ONLY for found in contexts.values()), contexts
    installs = {c["name"]: c.get("integration_types") for c in fake_discord.commands or []}
    assert all(found == [0] for found in installs.values()), installs  # servers, not people
