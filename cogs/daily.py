"""The Daily Orchard in Discord: /daily, /daily-board, /daily-world, /daily-channel.

A daily game is played in its player's own ephemeral messages. Every click on its board is a
component interaction of its own, answered by updating the message it came from, so the game
goes on past the 15 minutes an interaction token lasts, and after a restart (the buttons are
the ordinary persistent game buttons). A dismissed board is shown again by /daily, and a game
of yesterday left unfinished has a button on today's that shows it again, until it closes.

Each daily game's board is its game's own board, drawn by that game's UI, which this cog wraps
(:class:`DailyUI`): it retitles a board in play and draws a finished one as the day's result,
with its Review, a spoiler-free Share and no Rematch. Yesterday's board is posted in each
server's chosen channel by a loop that checks every few minutes (and at start-up).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands, tasks

from bot.answers import answer_publicly, send
from bot.boards import UNKNOWN_CHANNEL, GameUI, Rendered, when
from bot.components import GameButton
from bot.dailies import Dailies
from bot.daily import (
    BoardToDraw,
    DailyPlay,
    PostedBoard,
    date_of,
    is_daily,
    last_day,
    share_line,
)
from bot.games.base import daily_day
from bot.interface import host
from bot.model import GameStatus, Player
from bot.pacing import BACKLOG
from bot.posting import POSTING, check_postable
from bot.reviews import review_buttons
from bot.runner import Refusal, Snapshot
from bot.specs import SPEC_OF, SPECS, title
from bot.wording import date_text, literal, plural

if TYPE_CHECKING:
    from bot.app import OrchardBot

log = logging.getLogger(__name__)

SHARE_VERB = "ui_daily_share"
RESUME_VERB = "ui_daily_resume"  # on today's board, naming yesterday's game left unfinished
GAMES = [
    app_commands.Choice(name=spec.main.title, value=spec.main.kind)
    for spec in SPECS
    if spec.daily is not None
]
BOARD_SIZE = 15


class DailyUI:
    """A game's UI, with its daily games drawn as the Daily Orchard's (see the module)."""

    def __init__(
        self, inner: GameUI, dailies: Dailies, server_name: Callable[[int], str | None]
    ) -> None:
        self.inner = inner
        self.dailies = dailies
        self.server_name = server_name  # a server's name, if this process knows it

    @property
    def accent(self) -> int:
        return self.inner.accent

    async def options_for(self, guild_id: int) -> dict[str, Any]:
        return await self.inner.options_for(guild_id)

    def render(self, snapshot: Snapshot) -> Rendered:
        day = daily_day(snapshot.row.options)
        if day is None:
            return self.inner.render(snapshot)
        # Its deadline is no turn's: the inner board would say "time runs out" at it.
        payload = self.inner.render(replace(snapshot, row=replace(snapshot.row, deadline=None)))
        heading = f"Orchard Daily #{day} · {title(snapshot.row.kind)}"
        if snapshot.row.status is GameStatus.ACTIVE:
            payload.board.heading = heading
            if day < self.dailies.today() and snapshot.row.deadline is not None:
                payload.board.body.append(left_open(snapshot.row.deadline))
            return payload
        if snapshot.row.status is not GameStatus.FINISHED:
            return closed(heading, payload)
        server = self.server_name(snapshot.row.guild_id)
        return finished(snapshot, day, heading, payload, self.dailies.today(), server)

    async def on_ui(
        self, interaction: discord.Interaction[Any], snapshot: Snapshot, verb: str, arg: str
    ) -> None:
        if verb not in (SHARE_VERB, RESUME_VERB) or not is_daily(snapshot.row.options):
            await self.inner.on_ui(interaction, snapshot, verb, arg)
            return
        if verb == RESUME_VERB:
            await self.resume(interaction, snapshot)
            return
        if snapshot.row.seat_of(interaction.user.id) is None:
            raise Refusal("Only the player of this daily game can share it.")
        play = await self.dailies.result(snapshot)
        if play is None or play.score is None:
            raise Refusal("Share your result once your daily game is over.")
        # An answer to a button says nothing of who pressed it; as shown here, and pinging nobody.
        name = literal(interaction.user.display_name)
        await send(
            interaction,
            f"{name}: {shared(play)}",
            ephemeral=False,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def resume(self, interaction: discord.Interaction[Any], snapshot: Snapshot) -> None:
        """Show a game of yesterday left unfinished, in a private reply of its own (the board
        it was played on may be gone); its buttons then update that reply."""
        if snapshot.row.seat_of(interaction.user.id) is None:
            raise Refusal("Only the player of this daily game can finish it.")
        if snapshot.row.status is not GameStatus.ACTIVE:
            raise Refusal("That daily game is over: /daily shows today's.")
        payload = await host(interaction).boards.render(snapshot)
        await send(interaction, ephemeral=True, **payload.send_kwargs())


def unfinished_note(day: int) -> str:
    """/daily's line about yesterday's game, still open (see :meth:`Dailies.unfinished`)."""
    return (
        f"Your Orchard Daily #{day} of {date_text(date_of(day))} is not finished: you can "
        "finish it until 24:00 UTC today, then it closes without a result."
    )


def resume_button(snapshot: Snapshot, day: int) -> GameButton:
    label = f"Finish Orchard Daily #{day}"
    return GameButton(snapshot.id, snapshot.row.version, RESUME_VERB, label=label)


def shared(play: DailyPlay) -> str:
    return share_line(play.day, title(play.kind), play.score or 0, play.accuracy)


def left_open(closing: float) -> str:
    """A game of a past day still open: until when it may be finished."""
    return (
        f"Not finished on its day: you can finish it until {when(closing)} (24:00 UTC). "
        "Then it closes without a result."
    )


def closed(heading: str, payload: Rendered) -> Rendered:
    """A daily game that ended unfinished (left, or closed the day after its own)."""
    payload.board.heading = heading
    payload.board.status = "**This daily game closed unfinished**: it has no result."
    payload.board.rows = []
    return payload


def finished(
    snapshot: Snapshot,
    day: int,
    heading: str,
    payload: Rendered,
    today: int,
    server: str | None,
) -> Rendered:
    """A finished daily game: the card, the day's result to share, and its Review (no
    Rematch: there is one daily game a day). A game of yesterday finished today points to
    yesterday's board, where its result goes. That board is the ``server``'s where the game
    began, which is named: the game may be finished in another (None: not known here)."""
    payload.board.heading = heading
    boards = {today: " /daily-board", today - 1: " /daily-board day:yesterday"}
    board = boards.get(day, "")  # an older day's board is not offered
    where = literal(server) if server is not None else "the server where you began it"
    payload.board.status = (
        f"**Your daily game is over.** {date_text(date_of(day), year=True)} (UTC). Press "
        "**Share my result** to post it in the channel (no dice in it), or **Review** to see"
        " how you played." + (f"{board} in {where} shows how everyone there did." if board else "")
    )
    share = GameButton(
        snapshot.id,
        snapshot.row.version,
        SHARE_VERB,
        label="Share my result",
        style=discord.ButtonStyle.primary,
    )
    payload.board.rows = [[share, *review_buttons(snapshot)]]
    return payload


def board_embed(
    plays: list[DailyPlay],
    streaks: dict[int, int],
    day: int,
    kind: str,
    where: str,
    today: int,
) -> discord.Embed:
    """A day's results, best first, each with the player's streak of days in a row. A past
    day's board is final only once its :func:`~bot.daily.last_day` is over: until then its
    games left unfinished may still be finished, so it says until when."""
    open_still = day < today <= last_day(day)
    if day == today:
        nobody = "Nobody has finished today's game yet."
    elif open_still:
        nobody = "Nobody has finished this day's game yet."
    else:
        nobody = "Nobody finished this day's game."
    lines = [
        f"{place}. {literal(p.name)}: **{p.score}**"
        + (f" · accuracy {p.accuracy}%" if p.accuracy is not None else "")
        + (f" · 🔥 {streaks[p.user_id]}" if streaks.get(p.user_id, 0) > 1 else "")
        for place, p in zip(places(plays), plays[:BOARD_SIZE], strict=False)
    ]
    if len(plays) > BOARD_SIZE:  # the others finished too: say so, not leave them out unsaid
        lines.append(f"… and {plural(len(plays) - BOARD_SIZE, 'more player')}")
    text = "\n".join(lines) or nobody
    if open_still:
        text += f"\n{still_open(day)}"
    embed = discord.Embed(title=f"Orchard Daily #{day} · {title(kind)} · {where}", description=text)
    embed.set_footer(text=f"{date_text(date_of(day), year=True)} (UTC) · 🔥 days in a row · /daily")
    return embed


def still_open(day: int) -> str:
    """A board's line for a day whose games left unfinished may still be finished: its
    results are not final yet (said in UTC: a posted board is read on later days too)."""
    return (
        "A game of this day left unfinished can still be finished until 24:00 UTC on "
        f"{date_text(date_of(last_day(day)))}."
    )


def places(plays: list[DailyPlay]) -> list[int]:
    """Each play's place, best first: an equal score and accuracy share one (1, 2, 2, 4),
    as equal scores do in a game; names only order the lines."""
    found: list[int] = []
    for i, play in enumerate(plays):
        before = plays[i - 1] if i else None
        tied = before is not None and (before.score, before.accuracy) == (
            play.score,
            play.accuracy,
        )
        found.append(found[-1] if tied else i + 1)
    return found


class DailyCog(commands.Cog):
    def __init__(self, bot: OrchardBot) -> None:
        self.bot = bot
        self.dailies = Dailies(bot.orchard.runner)
        for choice in GAMES:
            for kind in SPEC_OF[choice.value].kinds:
                inner = bot.uis[kind]
                if isinstance(inner, DailyUI):
                    inner = inner.inner  # the extension was reloaded
                bot.uis[kind] = DailyUI(inner, self.dailies, self.server_name)

    def server_name(self, guild_id: int) -> str | None:
        guild = self.bot.get_guild(guild_id)
        return guild.name if guild is not None else None

    async def cog_load(self) -> None:
        self.post_yesterday.start()

    async def cog_unload(self) -> None:
        """Cut the pass under way off, and wait while it gives back what it had claimed
        (:meth:`post_boards`), the store still open."""
        self.post_yesterday.cancel()
        task = self.post_yesterday.get_task()
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    @app_commands.command(name="daily", description="Today's Daily Orchard (only you see it)")
    @app_commands.describe(game="Which daily game (Cheerio unless you choose)")
    @app_commands.choices(game=GAMES)
    @app_commands.guild_only()
    async def daily(
        self, interaction: discord.Interaction[Any], game: app_commands.Choice[str] | None = None
    ) -> None:
        if interaction.guild_id is None:
            raise Refusal("The Daily Orchard is played from a server.")
        kind = game.value if game else GAMES[0].value
        user = interaction.user
        snapshot, play = await self.dailies.game_of_the_day(
            kind,
            interaction.guild_id,
            Player(0, user.id, user.display_name),  # a nickname here shows here only
            world_name=user.global_name or user.name,  # as Discord shows them everywhere
        )
        payload = await self.bot.boards.render(snapshot)
        if snapshot.row.guild_id != interaction.guild_id:
            started = self.bot.get_guild(snapshot.row.guild_id)
            where = literal(started.name) if started else "another server"
            payload.board.body.append(f"Started in {where}: it counts on that server's board.")
        if play.score is not None:
            streak = await self.dailies.streak(kind, user.id)
            payload.board.body.append(
                f"You have played today's {title(kind)}: come back tomorrow (00:00 UTC). "
                f"Days in a row: {streak}.\n`{shared(play)}`"
            )
        left = await self.dailies.unfinished(kind, user.id)
        left_day = None if left is None else daily_day(left.row.options)
        if left is not None and left_day is not None:
            payload.board.body.append(unfinished_note(left_day))
            payload.board.rows.append([resume_button(left, left_day)])
        await send(interaction, ephemeral=True, **payload.send_kwargs())

    @app_commands.command(name="daily-board", description="How everyone did in the Daily Orchard")
    @app_commands.describe(
        game="Which daily game (Cheerio unless you choose)",
        day="Today (so far) or yesterday",
        scope="This server, or every player who joined with /daily-world",
    )
    @app_commands.choices(game=GAMES)
    @app_commands.guild_only()
    async def daily_board(
        self,
        interaction: discord.Interaction[Any],
        game: app_commands.Choice[str] | None = None,
        day: Literal["today", "yesterday"] = "today",
        scope: Literal["server", "world"] = "server",
    ) -> None:
        if interaction.guild_id is None:
            raise Refusal("Daily boards are per server.")
        answer_publicly(interaction)  # before any read: a slow one is deferred in public
        kind = game.value if game else GAMES[0].value
        number = self.dailies.today() - (1 if day == "yesterday" else 0)
        guild = None if scope == "world" else interaction.guild_id
        embed = await self.board(number, kind, guild)
        await send(interaction, embed=embed, ephemeral=False)

    async def board(self, day: int, kind: str, guild_id: int | None) -> discord.Embed:
        plays = await self.dailies.board(day, kind, guild_id)
        streaks = {
            p.user_id: await self.dailies.streak(kind, p.user_id, day) for p in plays[:BOARD_SIZE]
        }
        where = "every server" if guild_id is None else "this server"
        return board_embed(plays, streaks, day, kind, where, self.dailies.today())

    @app_commands.command(
        name="daily-world", description="Show your daily results on the board across servers"
    )
    @app_commands.describe(join="True: your name and results appear there; false: they leave it")
    async def daily_world(self, interaction: discord.Interaction[Any], join: bool) -> None:
        await self.dailies.join_world(interaction.user.id, join)
        if join:
            text = (
                "You are on the Daily Orchard's board across servers"
                " (`/daily-world join:False` to leave)."
            )
        else:
            text = "You are off the board across servers; your results show only where you play."
        await send(interaction, text)

    @app_commands.command(
        name="daily-channel", description="Post yesterday's Daily Orchard board in a channel"
    )
    @app_commands.describe(channel="Where to post it each day (leave out to stop posting)")
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def daily_channel(
        self, interaction: discord.Interaction[Any], channel: discord.TextChannel | None = None
    ) -> None:
        if interaction.guild_id is None:
            raise Refusal("This is a server setting.")
        if channel is not None:
            check_postable(interaction, channel.id, POSTING)
        chosen = await self.bot.orchard.store.daily_channel(interaction.guild_id)
        await self.dailies.choose_channel(interaction.guild_id, channel.id if channel else None)
        if channel is None:
            said = "no longer posted in this server" if chosen else "not posted in this server"
            await send(interaction, f"Yesterday's daily board is {said}.")
            return
        await send(
            interaction,
            f"Each day just after midnight (UTC), yesterday's daily boards are posted in"
            f" {channel.mention}, and made final the day after, once that day's games can no"
            " longer be finished.",
        )

    @tasks.loop(minutes=5)
    async def post_yesterday(self) -> None:
        """Every server's boards go out at midnight together: as the backlog of Discord's
        global limit (the loop's own task), behind every request of the games being played."""
        BACKLOG.set(True)
        try:
            await self.post_boards()
        except Exception:
            log.exception("could not post yesterday's daily boards; trying again later")

    @post_yesterday.before_loop
    async def _ready(self) -> None:
        await self.bot.wait_until_ready()

    async def post_boards(self) -> int:
        """Post yesterday's board (every daily game, in one message) in each server's chosen
        channel, once, then draw to its final results each board posted before whose day
        has closed, unless its message shows them.

        Every process runs this over every server, so each board is claimed before it is
        posted (and after it is read, so a failed read leaves it due): two processes reading
        it as due at once would otherwise both post it. A process that dies between the claim
        and the post loses that day's board there, as a refused post does; a board twice in
        every channel would be worse. A shutdown gives the claim of a post it cut off back.
        Drawing a board to its final results is taken the same way, once its day has closed
        and again whenever a /forget-me takes someone off it; one whose edit failed (or was
        cut off) is put back, to be tried again at the next pass."""
        yesterday = self.dailies.today() - 1
        posted = 0
        for guild_id, channel_id in await self.dailies.boards_due(yesterday):
            embeds = await self.boards(yesterday, guild_id)
            if not await self.dailies.claim_board(guild_id, yesterday):
                continue  # another process has it
            try:
                message = await self.post(guild_id, channel_id, yesterday, embeds)
            except asyncio.CancelledError:
                await self.dailies.unclaim_board(guild_id, yesterday)
                raise
            if message is not None:
                board = PostedBoard(yesterday, channel_id, message.id)
                await self.dailies.board_posted(guild_id, board)
            posted += 1
        for due in await self.dailies.boards_to_draw():
            if await self.dailies.take_board(due):
                await self.draw_again(due)
        return posted

    async def draw_again(self, due: BoardToDraw) -> None:
        """Draw a board taken to its results as they stand, or put it back to be tried
        again."""
        done = False
        try:
            done = await self.draw(due.guild_id, due.board)
        finally:
            if done:
                await self.dailies.board_drawn(due)
            else:
                await self.dailies.board_not_drawn(due)

    async def boards(self, day: int, guild_id: int) -> list[discord.Embed]:
        """A server's boards of ``day``, one for each daily game."""
        return [await self.board(day, choice.value, guild_id) for choice in GAMES]

    async def post(
        self, guild_id: int, channel_id: int, day: int, embeds: list[discord.Embed]
    ) -> discord.Message | None:
        """Post a server's boards of ``day`` (claimed); the message, if it went out. A deleted
        channel is no longer chosen, so it warns once, not every day; a forbidden one stays
        chosen (its access may come back), is noted for the server's admins (/settings shows
        it) and tried again the next day. A board that goes through clears that note."""
        channel = self.bot.get_partial_messageable(channel_id, guild_id=guild_id)
        try:
            message = await channel.send(
                embeds=embeds, allowed_mentions=discord.AllowedMentions.none()
            )
        except discord.NotFound as err:
            if err.code == UNKNOWN_CHANNEL:
                await self.channel_gone(guild_id, channel_id)
            else:
                log.warning("daily board for server %s not posted: %s", guild_id, err)
            return None
        except discord.Forbidden as err:
            log.warning("daily board for server %s not posted today: %s", guild_id, err)
            await self.dailies.board_refused(guild_id, channel_id, day)
            return None
        except discord.HTTPException as err:
            log.warning("daily board for server %s not posted: %s", guild_id, err)
            return None
        await self.dailies.board_refused(guild_id, channel_id, None)
        return message

    async def draw(self, guild_id: int, board: PostedBoard) -> bool:
        """Edit a posted board to its day's results as they stand (final once its day has
        closed; an edit notifies nobody); whether that is done with. One a moderator deleted,
        or in a channel gone or closed to Orchard, is left as it is; any other refusal may
        pass, so it is to be tried again."""
        message = self.bot.get_partial_messageable(
            board.channel_id, guild_id=guild_id
        ).get_partial_message(board.message_id)
        try:
            await message.edit(embeds=await self.boards(board.day, guild_id))
        except (discord.NotFound, discord.Forbidden) as err:
            log.info("daily board %s of server %s not drawn: %s", board.day, guild_id, err)
        except discord.HTTPException as err:
            log.warning("daily board %s of server %s not drawn yet: %s", board.day, guild_id, err)
            return False
        return True

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """The daily board's channel deleted is no longer chosen: /settings says so at once,
        not only after the next board fails to post there."""
        await self._forget_deleted(channel.guild.id, channel.id)

    @commands.Cog.listener()
    async def on_servers_available(self, guilds: list[discord.Guild]) -> None:
        """The servers' channels have arrived (at start-up, a shard's together; one back from
        an outage, or one that invited Orchard back): a daily channel deleted while Orchard
        was down or out, which it never heard of, is forgotten too. A server still
        unavailable is never heard of here. One read for all of a shard's (see
        :data:`bot.app.SERVERS_AVAILABLE`), no write if it is there."""
        chosen = await self.bot.orchard.store.daily_channels([g.id for g in guilds])
        for guild in guilds:
            daily = chosen.get(guild.id)
            if daily and not guild.unavailable and guild.get_channel(daily.channel_id) is None:
                try:
                    await self.channel_gone(guild.id, daily.channel_id)
                except Exception:  # one server's failed write must not leave the rest unchecked
                    log.exception("could not forget server %s's deleted daily channel", guild.id)

    async def _forget_deleted(self, guild_id: int, channel_id: int) -> None:
        chosen = await self.bot.orchard.store.daily_channel(guild_id)
        if chosen is not None and chosen.channel_id == channel_id:
            await self.channel_gone(guild_id, channel_id)

    async def channel_gone(self, guild_id: int, channel_id: int) -> None:
        if await self.dailies.channel_gone(guild_id, channel_id):
            log.warning(
                "daily board channel %s of server %s was deleted: no longer posting there",
                channel_id,
                guild_id,
            )


async def setup(bot: OrchardBot) -> None:
    await bot.add_cog(DailyCog(bot))
