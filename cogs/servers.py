"""What servers ask for after "it works": boards, stats, history, settings, and control.

Who may change settings or end games is left to Discord's own command permissions
(``default_permissions``), so a server's admins can hand them to any role they like.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands, ui
from discord.ext import commands, tasks

from bot.answers import MESSAGE_LIMIT, answer_publicly, send
from bot.boards import message_link, when
from bot.daily import DailyChannel, date_of, is_daily
from bot.interface import answering
from bot.model import FORMER_PLAYER, NOBODY, GameStatus, GameSummary, KindStats, PastGame, Viewer
from bot.posting import GAME_CHANNEL, POSTING, check_postable, missing_permissions
from bot.ratings import seen_rating
from bot.runner import Refusal
from bot.settings import GuildSettings
from bot.specs import VARIANTS, lower_is_better, title
from bot.wording import (
    choice_name,
    date_text,
    duration,
    joined,
    lines_within,
    literal,
    plural,
)
from cogs.core import may_view, sees
from cogs.leaderboards import DEFAULT_ORDER, BoardPage, By, send_board, wins_in
from cogs.stats_chart import chart_of, describe

if TYPE_CHECKING:
    from bot.app import OrchardBot

log = logging.getLogger(__name__)

KEEP_DEPARTED_DAYS = 30
GAMES = [app_commands.Choice(name=v.title, value=v.kind) for v in VARIANTS.values()]
"""Every playable kind as a command choice, from the game specs."""
Game = app_commands.Choice[str]


MESSAGES_KEPT = (
    "The boards of your games, and the daily boards that show you, are redrawn without your "
    "name over the next minutes; other "
    "messages that name you, such as a game's end, stay: a moderator can delete them."
)
"""What /forget-me does to messages already posted: Orchard keeps each board's id (a game's,
a day's), not those of its other messages (ends, timeout notices), so it can redraw only the
boards."""
FORGET_HERE = (
    "This deletes every result and rating of yours in this server and takes your name and id "
    "out of the games, for good, except, until the day ends, that you have played today's "
    f"daily; you leave any game you are in. {MESSAGES_KEPT} Sure?"
)
FORGET_EVERYWHERE = (
    "This deletes everything Orchard keeps of you in every server Orchard knows you from, "
    "those you have left too: your results, ratings, daily plays, /pings choices and place on "
    "the daily board across servers, and your name and id in the games, for good, except, "
    "until the day ends, that you have played today's daily; you leave any game you are in, "
    f"in every server. {MESSAGES_KEPT} Sure?"
)
"""/forget-me's question in a DM: someone who left a server can erase themselves there only
from here, so it says what goes everywhere, and the one thing kept (the same as in a server)."""
REDRAWN = "; the boards that show it are redrawn without it over the next minutes"


class ForgetMe(
    ui.DynamicItem[ui.Button[Any]], template=r"orcf:(?P<user>[0-9]{1,20})(?P<everywhere>:all)?"
):
    """The confirm button of /forget-me: only its asker may press it, even after a restart.
    Pressed in a server it erases them there; sent in a direct message (``everywhere``), in
    every server, the ones they have left included."""

    def __init__(self, user_id: int, everywhere: bool = False) -> None:
        self.user_id = user_id
        self.everywhere = everywhere
        super().__init__(
            ui.Button(
                label="Forget me everywhere" if everywhere else "Forget me here",
                style=discord.ButtonStyle.danger,
                custom_id=f"orcf:{user_id}" + (":all" if everywhere else ""),
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: ui.Item[Any], match: Any
    ) -> ForgetMe:
        return cls(int(match["user"]), bool(match["everywhere"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        async with answering(interaction, None):
            await self._forget(interaction)

    async def _forget(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.user.id != self.user_id or (
            self.everywhere != (interaction.guild_id is None)
        ):
            raise Refusal("Only the person who asked can confirm.")
        bot: OrchardBot = interaction.client
        if interaction.guild_id is not None:
            removed = await bot.orchard.forget(interaction.guild_id, interaction.user.id)
            gone = f", and your name is gone from this server's games{REDRAWN}"
        else:
            servers, removed = await bot.orchard.forget_everywhere(interaction.user.id)
            gone = f" in {plural(servers, 'server')}, and your name is gone from their games"
            gone += REDRAWN
            if not servers:
                gone = "; Orchard held nothing else of yours"
        if not removed:  # asked again, say: today's daily marker is all that is left
            where = " here" if interaction.guild_id is not None else ""
            await send(interaction, f"Done: nothing of yours was left to delete{where}.")
            return
        await send(interaction, f"Done: {plural(removed, 'record')} removed{gone}.")


class ServersCog(commands.Cog):
    def __init__(self, bot: OrchardBot) -> None:
        self.bot = bot
        bot.add_dynamic_items(BoardPage, ForgetMe)

    async def cog_load(self) -> None:
        self.bot.orchard.leader.on_lead.append(self._purge)  # at start-up, or on taking over
        self.purge.start()

    async def cog_unload(self) -> None:
        self.purge.cancel()

    @app_commands.command(name="leaderboard", description="This server's best players in a game")
    @app_commands.describe(
        game="Which game", by="Rank by rating (the default), wins, best or average score"
    )
    @app_commands.choices(game=GAMES)
    async def leaderboard(
        self, interaction: discord.Interaction[Any], game: Game, by: By = DEFAULT_ORDER
    ) -> None:
        await send_board(interaction, game.value, by)

    @app_commands.command(name="stats", description="A player's record in this server")
    @app_commands.describe(
        user="Whose record (you, if left out)",
        game="Which game to chart (the most played, if left out)",
    )
    @app_commands.choices(game=GAMES)
    async def stats(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | None = None,
        game: Game | None = None,
    ) -> None:
        """Answered to the asker alone, as /history is: its chart of scores shows only games
        they played or can see (its totals count every game here, and name none)."""
        guild_id = self._guild(interaction)
        who = user or interaction.user
        check_person(who, self.bot.user, "stats")
        rows = await self.bot.orchard.store.user_stats(guild_id, who.id)
        embed = discord.Embed(title=f"{literal(who.display_name)}'s games here")
        for s in rows:
            embed.add_field(name=title(s.kind), value=stats_text(s))
        embed.description = summary_text(rows)
        charted = game.value if game else most_played(rows)
        viewer = Viewer(interaction.user.id, lambda channel: sees(interaction, channel))
        files = await self._chart(guild_id, who.id, charted, embed, viewer) if charted else []
        if game and not files:
            embed.set_footer(text=no_chart(game.value, rows))
        await send(interaction, ephemeral=True, embed=embed, files=files)

    async def _chart(
        self, guild_id: int, user_id: int, kind: str, embed: discord.Embed, viewer: Viewer
    ) -> list[discord.File]:
        """One game's line: its people's rating, else its scores (games never share a scale)."""
        history = await self.bot.orchard.store.rating_history(guild_id, user_id, kind)
        values, what = [float(seen_rating((mu, sigma))) for mu, sigma, _ in history], "rating"
        if len(values) < 2:
            store = self.bot.orchard.store
            past = await store.history(guild_id, user_id, kind, limit=30, viewer=viewer)
            values = [float(s[2]) for g in reversed(past) for s in g.seats if s[0] == user_id]
            what = "tiles left" if lower_is_better(kind) else "score"
        if len(values) < 2:
            return []
        what = f"{title(kind)} {what}"
        heading = f"{what} over the last {len(values)} games"
        png = await asyncio.to_thread(chart_of, tuple(values), heading)
        embed.set_image(url="attachment://chart.png")
        return [discord.File(io.BytesIO(png), "chart.png", description=describe(values, what))]

    @app_commands.command(name="history", description="Recent finished games, with links")
    @app_commands.describe(user="Whose games (you, if left out)", game="Only this game")
    @app_commands.choices(game=GAMES)
    async def history(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | None = None,
        game: Game | None = None,
    ) -> None:
        """Answered to the asker alone, of games they played or can see: a public list would
        tell the channel's readers of games in channels hidden from them."""
        guild_id = self._guild(interaction)
        who = user or interaction.user
        check_person(who, self.bot.user, "history")
        viewer = Viewer(interaction.user.id, lambda channel: sees(interaction, channel))
        kind = game.value if game else None
        lines = [
            history_line(self.bot, guild_id, past)
            for past in await self.bot.orchard.store.history(guild_id, who.id, kind, viewer=viewer)
        ]
        embed = discord.Embed(
            title=f"{literal(who.display_name)}'s recent games",
            description="\n".join(lines) or no_history(kind),
        )
        if who.id != interaction.user.id:
            embed.set_footer(text=HISTORY_OF_OTHERS)
        await send(
            interaction,
            ephemeral=True,
            embed=embed,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @app_commands.command(name="settings", description="See or change how Orchard runs here")
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    @app_commands.describe(
        turn_minutes="Turn deadline in minutes (0.5 to 1440)",
        add_channel="Allow games in this channel (none listed: every channel)",
        remove_channel="Stop allowing games in this channel",
        open_games="Open games of one kind allowed per channel (1 to 25)",
        hints="Allow /cheerio hint",
        turnover_words="Apple Turnover: challenge words, or check them when played",
        easy_letters="Appletters without Q, X and Z",
        word_list="Appletters word list: full, or family (common words)",
        hotscore_floor="Hot Score: scores never go below 0",
        turn_pings="Tell players it is their turn: in the channel, by DM, or not at all",
    )
    async def settings(
        self,
        interaction: discord.Interaction[Any],
        turn_minutes: float | None = None,
        add_channel: discord.TextChannel | None = None,
        remove_channel: discord.TextChannel | None = None,
        open_games: int | None = None,
        hints: bool | None = None,
        turnover_words: Literal["challenge", "checked"] | None = None,
        easy_letters: bool | None = None,
        word_list: Literal["full", "family"] | None = None,
        hotscore_floor: bool | None = None,
        turn_pings: Literal["channel", "dm", "off"] | None = None,
    ) -> None:
        guild_id = self._guild(interaction)
        changes: dict[str, Any] = {
            key: value
            for key, value in (
                ("open_games_per_channel", open_games),
                ("hints", hints),
                ("turnover_words", turnover_words),
                ("easy_letters", easy_letters),
                ("word_list", word_list),
                ("hotscore_floor", hotscore_floor),
                ("turn_pings", turn_pings),
            )
            if value is not None
        }
        if turn_minutes is not None:
            changes["turn_seconds"] = round(turn_minutes * 60)
        if add_channel is not None and remove_channel is not None:
            check_not_both(add_channel.id, remove_channel.id)
        if add_channel is not None:
            check_postable(interaction, add_channel.id, GAME_CHANNEL)
        added = [add_channel.id] if add_channel is not None else []
        removed = [remove_channel.id] if remove_channel is not None else []
        changing = bool(changes or added or removed)
        try:
            new = (
                await self.bot.orchard.settings.update(
                    guild_id, add_channels=added, remove_channels=removed, **changes
                )
                if changing
                else await self.bot.orchard.settings.get(guild_id)
            )
        except ValueError as err:
            raise Refusal(str(err)) from err
        said = "Saved. " if changing else ""
        daily = await self.bot.orchard.store.daily_channel(guild_id)
        missing = (
            None if daily is None else missing_permissions(interaction, daily.channel_id, POSTING)
        )
        posted = daily_channel_text(daily, missing)
        await send(interaction, said + settings_text(new, posted, MESSAGE_LIMIT - len(said)))

    @app_commands.command(
        name="pings", description="Be told it is your turn by DM instead of in the channel"
    )
    @app_commands.guild_only()
    @app_commands.describe(
        dm="True: your turn pings in this server come by DM; false: in the game's channel"
    )
    async def pings(self, interaction: discord.Interaction[Any], dm: bool | None = None) -> None:
        guild_id = self._guild(interaction)
        settings = self.bot.orchard.settings
        if dm is not None:
            await settings.set_ping_choice(guild_id, interaction.user.id, dm)
        server = (await settings.get(guild_id)).turn_pings
        mode = await settings.ping_mode(guild_id, interaction.user.id)
        choice = await settings.ping_choice(guild_id, interaction.user.id)
        said = "Saved. " if dm is not None else ""
        await send(interaction, said + pings_text(mode, server, choice))

    @app_commands.command(name="forfeit", description="Give up your game in this channel")
    @app_commands.describe(
        game="Which game, if you play more than one here",
        number="The game's number, if you play two of one kind here (/games shows it)",
    )
    @app_commands.choices(game=GAMES)
    async def forfeit(
        self,
        interaction: discord.Interaction[Any],
        game: Game | None = None,
        number: app_commands.Range[int, 1] | None = None,
    ) -> None:
        guild_id, user_id = self._guild(interaction), interaction.user.id
        kind = game.value if game else None
        here = [
            g
            for g in await self.bot.orchard.store.open_games(guild_id, interaction.channel_id)
            if g.seat_of(user_id) is not None
        ]
        seated = [g for g in here if kind in (None, g.kind) and (number is None or g.id == number)]
        # not a lobby, nor a game they left already
        rows = [g for g in seated if g.status is GameStatus.ACTIVE and g.plays(user_id)]
        if not rows:
            other = next((g for g in here if kind and g.id == number), None)
            raise Refusal(nothing_to_forfeit(seated, user_id, number, kind, other))
        if len(rows) > 1:
            raise Refusal(which_game(rows))
        snapshot = await self.bot.orchard.runner.forfeit(rows[0].id, interaction.user.id)
        await send(interaction, f"You left {title(snapshot.row.kind)} game {snapshot.id}.")

    @app_commands.command(name="end", description="End a stuck game (recorded as abandoned)")
    @app_commands.default_permissions(manage_messages=True)
    @app_commands.guild_only()
    @app_commands.describe(game_id="The game's number, as /games shows it")
    async def end(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        answer_publicly(interaction)
        guild_id = self._guild(interaction)
        row = await self.bot.orchard.store.get_game(game_id)
        if row is None or row.guild_id != guild_id or not row.status.is_open:
            raise Refusal(f"There is no open game {game_id} in this server.")
        if is_daily(row.options):
            raise Refusal(daily_not_ended(game_id))
        if await hidden_from(interaction, row.channel_id):
            raise Refusal(f"Game {game_id} is in a channel you cannot see, so you cannot end it.")
        await self.bot.orchard.runner.abandon(game_id)
        await send(
            interaction,
            f"Game {game_id} was ended by a moderator; nobody lost.",
            ephemeral=False,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @app_commands.command(
        name="forget-me",
        description="Delete your results and ratings here (in a DM with Orchard: everywhere)",
    )
    @app_commands.allowed_contexts(guilds=True, dms=True)
    async def forget_me(self, interaction: discord.Interaction[Any]) -> None:
        """In a server, erases the person there; in a DM with Orchard, everywhere: someone who
        left a server cannot use its commands any more."""
        everywhere = interaction.guild_id is None
        await send(
            interaction,
            FORGET_EVERYWHERE if everywhere else FORGET_HERE,
            view=ui.View(timeout=None).add_item(ForgetMe(interaction.user.id, everywhere)),
        )

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        ended = await self.bot.orchard.left_server(guild.id, time.time())
        log.info(
            "left server %s (%s); ended %d open game(s); its data goes in %d days",
            guild.id,
            guild.name,
            ended,
            KEEP_DEPARTED_DAYS,
        )

    @commands.Cog.listener()
    async def on_shard_ready(self, shard_id: int) -> None:
        """A shard's session lists every server of the shard Orchard is in (unavailable ones
        too): one with rows here that is not among them removed Orchard while it was down,
        when no removal is heard. It is left now, as if heard: its 30 days start, and its
        open games end."""
        present = {g.id for g in self.bot.guilds if g.shard_id == shard_id}
        count = self.bot.shard_count or 1
        stored = await self.bot.orchard.store.servers_stored()
        for guild_id in sorted(stored):
            if (guild_id >> 22) % count == shard_id and guild_id not in present:
                ended = await self.bot.orchard.left_server(guild_id, time.time())
                log.info(
                    "server %s removed Orchard while it was down; ended %d open game(s); "
                    "its data goes in %d days",
                    guild_id,
                    ended,
                    KEEP_DEPARTED_DAYS,
                )

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.bot.orchard.store.guild_returned(guild.id)
        log.info("joined server %s (%s)", guild.id, guild.name)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A deleted game channel leaves the list: Discord's channel picker offers no deleted
        channel, so ``/settings remove_channel`` could never take it out, and games would stay
        refused, pointing at it (with none left, everywhere, for good). Its games end."""
        await self._unlist(channel.guild.id, lambda c: c == channel.id)
        await self.bot.orchard.channels_deleted(channel.guild.id, {channel.id})

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A deleted thread's games end, as a deleted channel's do: those of a deleted
        channel's threads too (discord.py tells of each it knows, after the channel)."""
        await self.bot.orchard.channels_deleted(payload.guild_id, {payload.thread_id})

    @commands.Cog.listener()
    async def on_servers_available(self, guilds: list[discord.Guild]) -> None:
        """The servers' channels have arrived (at start-up, a shard's together; one back from
        an outage, or one that invited Orchard back): game channels deleted while Orchard was
        down or out leave the list, as a deletion heard does. A server still unavailable is
        never heard of here, so no unknown channel counts as deleted. Runs for every server
        at every start: one read for all of a shard's (see :data:`bot.app.SERVERS_AVAILABLE`),
        a write only where one is missing. A server here is not one Orchard has left, even
        if it was invited back while Orchard was down (no join is heard then)."""
        await self.bot.orchard.store.guilds_present([g.id for g in guilds])
        found = await self.bot.orchard.settings.get_many([g.id for g in guilds])
        for guild in guilds:
            if guild.unavailable:
                continue
            try:
                await self._unlist(guild.id, absent_from(guild), found[guild.id])
            except Exception:  # one server's failed write must not leave the rest unchecked
                log.exception("could not check server %s's game channels", guild.id)

    async def _unlist(
        self, guild_id: int, deleted: Callable[[int], bool], read: GuildSettings | None = None
    ) -> None:
        """Take the server's game channels that are ``deleted`` out of its list (as ``read``,
        when its settings were just read)."""
        settings = self.bot.orchard.settings
        listed = (read or await settings.get(guild_id)).game_channels
        for channel_id in [c for c in listed if deleted(c)]:
            with contextlib.suppress(ValueError):  # removed meanwhile (another process's)
                await settings.update(guild_id, remove_channels=[channel_id])

    @tasks.loop(hours=6)
    async def purge(self) -> None:
        """Forget servers the bot left more than 30 days ago (the leading process does). A
        failure is logged and tried again next time: raised, it would end the loop for the
        life of the process (discord.py's loops survive only network errors)."""
        try:
            await self._purge()
        except Exception:
            log.exception("could not purge departed servers; trying again later")

    async def _purge(self) -> None:
        gone = await self.bot.orchard.purge_departed(time.time() - KEEP_DEPARTED_DAYS * 86400)
        if gone:
            log.info(
                "removed every row of %d server(s) Orchard left over %d days ago: %s",
                len(gone),
                KEEP_DEPARTED_DAYS,
                ", ".join(map(str, gone)),
            )

    def _guild(self, interaction: discord.Interaction[Any]) -> int:
        if interaction.guild_id is None:
            raise Refusal("This command works in a server, not in direct messages.")
        return interaction.guild_id


async def hidden_from(interaction: discord.Interaction[Any], channel_id: int) -> bool:
    """Whether /end must leave a game alone: its channel is one the asker cannot view (a
    moderator here is not one everywhere). One Orchard has not cached (an archived thread,
    say) is asked of Discord; one Discord no longer has hides nothing, and its game is stuck
    for good: just what /end is for."""
    guild, member = interaction.guild, interaction.user
    if sees(interaction, channel_id):
        return False
    if guild is None or not isinstance(member, discord.Member):
        return True
    if guild.get_channel_or_thread(channel_id) is not None:
        return True
    try:
        channel = await guild.fetch_channel(channel_id)
    except discord.NotFound:
        return False
    except discord.Forbidden:  # hidden from Orchard too
        return True
    return not may_view(member, channel)


def absent_from(guild: discord.Guild) -> Callable[[int], bool]:
    """Whether a channel is missing from the server's channels as they arrived: deleted."""
    return lambda channel_id: guild.get_channel(channel_id) is None


def check_not_both(added: int, removed: int) -> None:
    """Refuse /settings adding and removing one channel: either reading of it would do what
    the admin did not ask, and "Saved." would hide it."""
    if added == removed:
        raise Refusal(
            f"You asked to both add and remove <#{added}> as a game channel: nothing changed."
        )


def daily_not_ended(game_id: int) -> str:
    """/end's answer for a daily game: one player's private game of the day, stuck for nobody
    else (it has no channel and no turn clock), and ended it would cost them their day."""
    return (
        f"Game {game_id} is someone's Daily Orchard: only they play it, privately, and it "
        "holds up no one, so it cannot be ended."
    )


def nothing_to_forfeit(
    seated: list[GameSummary],
    user_id: int,
    number: int | None,
    kind: str | None = None,
    other: GameSummary | None = None,
) -> str:
    """/forfeit's answer when the player has no game in play here (of the ``kind`` and
    ``number`` asked for: ``other``, their game of that number but another kind, is named).
    A lobby they sit in is not a game yet: its own button lets them out (Leave, or Cancel
    for its host), so that is named, with a link to the lobby."""
    asked = [title(kind)] if kind else []
    which = " ".join(["no", *asked, "game", *([] if number is None else [str(number)])])
    head = f"You have {which} in play in this channel"
    if other is not None:
        head += f": game {other.id} here is {title(other.kind)}"
    said = [head + "."]
    for lobby in (g for g in seated if g.status is GameStatus.LOBBY):
        text = f"{title(lobby.kind)} game {lobby.id}"
        named = message_link(text, lobby.guild_id, lobby.channel_id, lobby.message_id)
        if lobby.host_id == user_id:
            how = "you host it, so press **Cancel** on its lobby to close it"
        else:
            how = "to leave it, press **Leave** on its lobby"
        said.append(f"{named if lobby.message_id else text} has not started yet: {how}.")
    return " ".join(said)


def which_game(rows: list[GameSummary]) -> str:
    """/forfeit's answer when it cannot tell which of a player's games here is meant: giving
    up one Orchard picked would end a game the player never chose, so it names them all."""
    games = joined([f"{title(r.kind)} game {r.id}" for r in rows])
    said = f"You play {plural(len(rows), 'game')} here: {games}. Nothing changed: "
    if len({r.kind for r in rows}) > 1:
        return said + "say which with `/forfeit game:`."
    return said + "say which with `/forfeit number:`."


NOT_ORCHARDS = {
    "stats": 'Orchard keeps no record of its own here: how you do against it is the "vs'
    ' Orchard" line of your own /stats.',
    "history": "Orchard keeps no history of its own here: your games against it are in your"
    ' own /history, and the "vs Orchard" line of your /stats.',
}
"""/stats and /history of Orchard itself: where the asker finds its games instead."""


def check_person(
    who: discord.User | discord.Member, me: discord.ClientUser | None, command: str
) -> None:
    """Refuse /stats or /history of a bot: only people's seats are counted, so a bot's record
    would read "No finished games yet." though Orchard may have played many."""
    if me is not None and who.id == me.id:
        raise Refusal(NOT_ORCHARDS[command])
    if who.bot:
        raise Refusal(f"{literal(who.display_name)} is a bot: only people have a record here.")


def most_played(rows: list[KindStats]) -> str | None:
    """The game to chart when none is asked for: most games here, then the latest played."""
    best = max(rows, key=lambda s: (s.games, s.last_played), default=None)
    return best.kind if best else None


def wins_text(s: KindStats) -> str:
    """Wins and their rate, of games between people only (nothing without one: see
    :func:`wins_in`)."""
    if not s.people_games:
        return ""
    return f"{wins_in(s.wins, s.people_games, s.games)} ({100 * s.wins / s.people_games:.0f}%)"


HISTORY_OF_OTHERS = "Only games in channels you can see, or that you played in."
"""Under someone else's /history: why a game they played may be missing."""


def no_history(kind: str | None) -> str:
    """/history with no game to list: of the game asked for only, when one was (a player of
    other games has finished games here)."""
    return f"No finished {title(kind) + ' ' if kind else ''}games here yet."


def no_chart(kind: str, rows: list[KindStats]) -> str:
    """Why /stats has no chart of the game asked for: a line needs two of its games here."""
    games = next((s.games for s in rows if s.kind == kind), 0)
    if not games:
        return f"No finished {title(kind)} games here yet, so no chart."
    return f"One finished {title(kind)} game here: a chart needs two."


def stats_text(s: KindStats) -> str:
    """One game's field in /stats; wins count games between people, Orchard is apart."""
    best = s.lowest if lower_is_better(s.kind) else s.best
    rating = f"rating {seen_rating(s.rating)}" if s.rating else "unrated"
    played = " · ".join(figure for figure in (plural(s.games, "game"), wins_text(s)) if figure)
    text = (
        f"{played}\n"
        f"best {best} · average {s.average:.1f}{tiles_left(s.kind)}\n"
        f"{rating} · last played {when(s.last_played)}"
    )
    if s.orchard_games or s.orchard_rating:
        versus = f"rating {seen_rating(s.orchard_rating)}" if s.orchard_rating else "unrated"
        text += f"\nvs Orchard: {versus} · {s.orchard_wins} of {s.orchard_games} won"
    return text


def summary_text(rows: list[KindStats]) -> str:
    """The one line across all games; wins against Orchard are named apart, as on the board.
    Kinds are counted only when there are several: "4 games of 1 kind" says nothing the one
    field below does not."""
    if not rows:
        return "No finished games yet."
    games, wins = sum(s.games for s in rows), sum(s.wins for s in rows)
    kinds = f" of {len(rows)} kinds" if len(rows) > 1 else ""
    text = f"{plural(games, 'game')}{kinds}"
    if any(s.people_games for s in rows):  # wins only count games with people (wins_in)
        text += f" · {plural(wins, 'win')}"
    if any(s.orchard_games for s in rows):
        text += f" · {plural(sum(s.orchard_wins for s in rows), 'win')} vs Orchard"
    return text


def tiles_left(kind: str) -> str:
    """Said after a game's scores where they count tiles left (fewest wins), not points: a
    winner's 0 beside a loser's 5 would read as a slip."""
    return " (tiles left)" if lower_is_better(kind) else ""


def history_line(bot: OrchardBot, guild_id: int, past: PastGame) -> str:
    """One finished game: everyone's score, 🏆 for its winners (a solo game is stored unwon),
    a link. A seat whose person was erased since is named without a result, so a game of two
    never reads as one played alone."""
    scores = ", ".join(
        [
            past_seat_name(uid, is_bot) + f" {score}" + (" 🏆" if won else "")
            for uid, is_bot, score, _, won in past.seats
        ]
        + [FORMER_PLAYER] * past.erased
    ) + tiles_left(past.kind)
    link = message_link("Final board", guild_id, past.channel_id, past.message_id)
    hinted = " · 💡 hinted" if past.hinted else ""
    return f"**{title(past.kind)}** {when(past.finished_at)} · {scores}{hinted} · {link}"


def past_seat_name(user_id: int, is_bot: bool) -> str:
    """How a past seat is named: Orchard, a mention, or a person who asked to be forgotten."""
    if is_bot:
        return "Orchard"
    return FORMER_PLAYER if user_id == NOBODY else f"<@{user_id}>"


PING_PLACES = {
    "channel": "in the game's channel, in a new message that mentions you",
    "dm": "by direct message, naming the game with a link to it",
    "off": "nowhere: this server has turned turn pings off",
}


def pings_text(mode: str, server: str, choice: bool | None = None) -> str:
    """Where a person's turn pings go here, and how to change it. With the server's pings
    off, a ``choice`` of theirs is kept for when they are back on, and it says so: "Saved."
    then "nowhere" alone would read as a choice ignored."""
    text = f"When it is your turn here, Orchard tells you {PING_PLACES[mode]}."
    if server == "off":
        if choice is None:
            return text
        place = "by direct message" if choice else "in the game's channel"
        return text + f" If it turns them back on, yours come {place}, as you chose."
    return text + " Change it with `/pings dm:true` or `/pings dm:false` (this server only)."


def settings_text(s: GuildSettings, posted: str = "none", room: int = MESSAGE_LIMIT) -> str:
    """The server's settings in at most ``room`` characters: game channels have no limit in
    number, so they are listed as far as they fit, then counted ("… and 12 more channels").
    ``posted`` says where yesterday's daily board goes (:func:`daily_channel_text`)."""
    head = f"**Settings**\n• Turn deadline: {duration(s.turn_seconds)}\n• Games allowed in: "
    tail = (
        f"\n• Open games of one kind per channel: {s.open_games_per_channel}\n"
        f"• Hints: {'on' if s.hints else 'off'}\n"
        f"• Apple Turnover words: {choice_name(s.turnover_words)}\n"
        f"• Easy letters: {'on' if s.easy_letters else 'off'}\n"
        f"• Word list: {choice_name(s.word_list)}\n"
        f"• Hot Score floor at 0: {'on' if s.hotscore_floor else 'off'}\n"
        f"• Yesterday's daily board posted in: {posted} (/daily-channel)\n"
        f"• Turn pings: {choice_name(s.turn_pings)}"
        + (" (a player's own /pings choice wins over it)" if s.turn_pings != "off" else "")
    )
    mentions = [f"<#{c}>" for c in s.game_channels]
    channels = "every channel"
    if mentions:
        channels = lines_within(mentions, room - len(head) - len(tail), "channel", sep=", ")
    return head + channels + tail


def daily_channel_text(daily: DailyChannel | None, missing: list[str] | None = None) -> str:
    """The daily board's channel, and what to do if Discord refused its last board there:
    grant ``missing``, what the bot lacks there now (None: it cannot tell, so all it needs)."""
    if daily is None:
        return "none"
    shown = f"<#{daily.channel_id}>"
    if daily.refused_day is None:
        return shown
    day = date_text(date_of(daily.refused_day), weekday=False)
    refused = f"{shown} ⚠️ the board of {day} was not posted"
    if missing == []:
        return f"{refused}; Orchard may post there now, so the next board goes there"
    needs = joined(list(POSTING.values()) if missing is None else missing)
    return (
        f"{refused}: Orchard may not post there. Give it {needs} in that channel, or choose another"
    )


async def setup(bot: OrchardBot) -> None:
    await bot.add_cog(ServersCog(bot))
