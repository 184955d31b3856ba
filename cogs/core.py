"""Commands that span games: /help, /games, and the error handler for every slash command."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.answers import EMBED_TEXT_LIMIT, send
from bot.boards import message_link
from bot.components import DrawnRows, GameButton
from bot.daily import HELP as DAILY_HELP
from bot.daily import NO_CHANNEL
from bot.interface import deliver_refusal, refuse
from bot.model import GameStatus
from bot.ratings import RATING_START
from bot.reviews import HELP as REVIEW_HELP
from bot.runner import Refusal
from bot.specs import SPECS, title
from bot.wording import lines_within, literal

if TYPE_CHECKING:
    from bot.app import OrchardBot

log = logging.getLogger(__name__)


def help_text(mention: Callable[[str], str], in_server: bool = True) -> str:
    """/help: each game in a line or two from its spec, then the commands around the games
    and what a rating means. ``mention`` turns "cheerio new" into a clickable command.
    Asked outside a server (a DM), it says the games are played in one."""
    opening = (
        "Orchard hosts dice and word games in this server. Start one in a channel:"
        if in_server
        else "Orchard hosts dice and word games in Discord servers. Start one in a channel of"
        " a server Orchard is in:"
    )
    listed = "open games here" if in_server else "a server's open games"
    lines = [opening, ""]
    for spec in SPECS:
        main, *others = spec.variants
        start = f"{mention(spec.command + ' new')} · rules: {mention(spec.command + ' rules')}"
        lines.append(f"**{main.title}**: {main.blurb}\n{start}")
        lines += [f"  • **{v.title}**: {v.blurb}" for v in others]
    lines += [
        "",
        f"**Around the games**: {mention('games')} lists {listed}; {mention('stats')},"
        f" {mention('history')} and {mention('leaderboard')} show records;"
        f" {mention('pings')} chooses where you are told it is your turn;"
        f" {mention('forfeit')} leaves a game; {mention('forget-me')} erases you from a"
        " server's games (from a DM, from every server).",
        "",
        f"**Admins**: {mention('settings')} (Manage Server) sets turn deadlines, game channels,"
        f" hints, word lists and turn pings; {mention('end')} (Manage Messages) ends a stuck"
        " game.",
        "",
        f"**Ratings** start at {RATING_START} and move after every game between people, more"
        " for beating someone rated above you, like a chess rating. Games against Orchard"
        " have a rating of their own, and count for no wins or ratings on the server's"
        " boards.",
        "",
        DAILY_HELP,
        "",
        REVIEW_HELP,
    ]
    return "\n".join(lines)


def sees(interaction: discord.Interaction[Any], channel_id: int) -> bool:
    """Whether the asker may view a channel or thread of the server, worked out from the cache
    as Discord does (roles, then overwrites). A thread goes by its parent, and a private one
    only for those who manage threads there (its own members Orchard cannot tell). Unsure (not
    cached: an archived thread, say) is no: /games must not show what the asker cannot see."""
    guild, member = interaction.guild, interaction.user
    if guild is None or not isinstance(member, discord.Member):
        return False
    return may_view(member, guild.get_channel_or_thread(channel_id))


def may_view(
    member: discord.Member, channel: discord.abc.GuildChannel | discord.Thread | None
) -> bool:
    """:func:`sees` for a channel in hand (None: unknown, so no)."""
    if isinstance(channel, discord.Thread):
        parent = channel.parent
        if parent is None:
            return False
        perms = parent.permissions_for(member)
        return perms.view_channel and (not channel.is_private() or perms.manage_threads)
    return channel is not None and channel.permissions_for(member).view_channel


def unseen_channel(error: app_commands.AppCommandError) -> bool:
    """A channel option discord.py could not resolve because the bot's cache lacks it: a
    channel the bot cannot see, so no game could be posted there."""
    return (
        isinstance(error, app_commands.TransformerError)
        and error.type is discord.AppCommandOptionType.channel
    )


class CoreCog(commands.Cog):
    def __init__(self, bot: OrchardBot) -> None:
        self.bot = bot
        bot.tree.error(self.on_app_command_error)

    @app_commands.command(name="help", description="What Orchard plays, and how to start")
    # Not group DMs: Discord offers commands there only to apps people install for themselves.
    @app_commands.allowed_contexts(guilds=True, dms=True)
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        text = help_text(self.bot.mention, in_server=interaction.guild_id is not None)
        embed = discord.Embed(title="Orchard", description=text)
        await send(interaction, embed=embed)

    @app_commands.command(name="games", description="Open games in this server, with links")
    async def games(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.guild_id is None:
            await refuse(
                interaction, "Games are played in servers: use /games in a server channel."
            )
            return
        user = interaction.user.id
        rows = await self.bot.orchard.store.open_games(interaction.guild_id)
        rows = [  # daily games are /daily's own; a channel the asker cannot see, not theirs
            r
            for r in rows
            if r.channel_id != NO_CHANNEL and (r.plays(user) or sees(interaction, r.channel_id))
        ]
        if not rows:
            starts = ", ".join(self.bot.mention(spec.command + " new") for spec in SPECS)
            await refuse(interaction, f"No games are open here. Start one: {starts}.")
            return
        lines: list[str] = []
        buttons: list[GameButton] = []
        for row in rows:
            who = ", ".join(literal(p.name) for p in row.playing)  # not those who left
            link = message_link("Go to it", row.guild_id, row.channel_id, row.message_id)
            state = "waiting to start" if row.status is GameStatus.LOBBY else "in play"
            lines.append(f"**{title(row.kind)}** #{row.id} ({state}) · {who} · {link}")
            if row.plays(user) and len(buttons) < 25:  # a seat they left is no game of theirs
                buttons.append(
                    GameButton(row.id, row.version, "repost", label=f"Show #{row.id} again")
                )
        listed = lines_within(lines, EMBED_TEXT_LIMIT, "game")
        embed = discord.Embed(title="Open games", description=listed)
        footer = "Lost a game's message? Press its button to post it again." if buttons else None
        embed.set_footer(text=footer)
        await send(interaction, embed=embed, view=DrawnRows(buttons))

    async def on_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        """Say why a command did nothing. Never raises: an exception here would end the
        command's task unhandled ("Task exception was never retrieved")."""
        try:
            await self._answer_error(interaction, error)
        except discord.HTTPException as err:
            log.warning("could not answer the error of /%s: %s", _name(interaction), err)

    async def _answer_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        original = getattr(error, "original", error)
        if isinstance(original, Refusal):
            await deliver_refusal(interaction, original)
            return
        if unseen_channel(error):
            await refuse(interaction, "I cannot see that channel: give me View Channel there.")
            return
        if isinstance(original, discord.InteractionResponded):
            # A command answering through interaction.response, not bot.answers.send, after
            # the watchdog deferred it: its answer is lost, so say so plainly.
            log.warning("/%s answered after its deferral", _name(interaction))
            await refuse(interaction, "That took longer than Discord allows: please try again.")
            return
        error_id = secrets.token_hex(4)
        log.error("error %s in /%s", error_id, _name(interaction), exc_info=original)
        await refuse(interaction, f"Sorry, something went wrong (error {error_id}).")


def _name(interaction: discord.Interaction[Any]) -> str:
    return interaction.command.name if interaction.command else "?"


async def setup(bot: OrchardBot) -> None:
    await bot.add_cog(CoreCog(bot))
