"""Game boards in Discord: what a game's message shows, and keeping that message up to date.

A game's UI (its cog) turns a snapshot into a :class:`Rendered` message; :class:`Boards` is
the runner's display of a game on its own message: edit it, post it again if it was deleted,
try once more after Discord's own failures, and tell the runner when the channel is gone.
A board names whose turn it is but mentions nobody: it is edited on every move, and an edit
notifies no one, so its :class:`~bot.pings.TurnPings` tell people in messages of their own.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import discord
from discord import ui

from bot.components import Control, Drawn, GameButton, GameSelect, action_row
from bot.daily import is_daily
from bot.lobby import SeatShown
from bot.model import NOBODY, GameRow, GameStatus, MoveSource, Player
from bot.pacing import BACKLOG, until_answered
from bot.pings import TurnPings, game_name
from bot.runner import TIMEOUTS_TO_FORFEIT, Gone, Refusal, Runner, Snapshot
from bot.specs import SPEC_OF, VARIANTS, orchard_name, orchard_plays, title
from bot.wording import joined, link, literal, plural

log = logging.getLogger(__name__)

UNKNOWN_CHANNEL = 10003  # Discord's error code for a deleted (or never seen) channel
MISSING_PERMISSIONS = 50013  # here: a file uploaded where the bot lacks Attach Files
THREAD_ARCHIVED = 50083  # an edit in a thread Discord archived (only a post reopens one)
LOBBY_VERBS = (
    "lobby_join",
    "lobby_leave",
    "lobby_start",
    "lobby_cancel",
    "lobby_addbot",
    "lobby_removebot",
)

Draw = Callable[[], list[discord.File]]
Row = Sequence[Control]
Part = str | ui.Item[Any]  # a board's text, or a discord.py item (a picture's gallery)
MOST_COMPONENTS = 40  # Discord's limit for one message, every nested component counted
ANEW_PAUSE = 2.0
"""Seconds between two boards drawn anew (after a /forget-me, or a stop): at most half of
a channel's edits (5 in 5 s), so games played there meanwhile keep the rest; someone with 500
finished games is gone from all their boards in 17 minutes."""
ANEW_BACKOFF = 5.0
"""Seconds a board whose drawing anew failed waits before it is tried again, doubled at each
failure in a row, up to :data:`ANEW_BACKOFF_MOST`: one Discord keeps refusing costs a
request an hour, not one at every check of the leader's."""
ANEW_BACKOFF_MOST = 3600.0
PICTURE_RETRY = 600.0
"""Seconds a channel where Discord refused a board's picture (Attach Files taken away) has
its boards drawn without one before a picture is tried again: each refusal costs a request
of the channel's limit, and counts towards Discord's ban of bots whose requests it refuses."""


@dataclass
class Board:
    """Every board's one layout, as data: a heading and what is going on, the game, then its
    controls. Kept compact for phones: small headings, a separator only where the subject
    changes. A cog fills it in; :meth:`to_components` writes Discord's JSON directly."""

    accent: int
    heading: str
    status: str
    body: list[Part]
    rows: list[Row] = field(default_factory=list)
    footer: str = ""

    def to_components(self) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = [
            _text(f"### {self.heading}\n{self.status}".rstrip()),
            _separator(visible=True),
        ]
        parts += [_text(p) if isinstance(p, str) else p.to_component_dict() for p in self.body]
        shown = [row for row in self.rows if row]
        if shown:
            parts.append(_separator(visible=False))
        parts += [action_row(row) for row in shown]
        if self.footer:
            parts.append(_text(f"-# {self.footer}"))
        counted = 1 + len(parts) + sum(len(row) for row in shown)
        if counted > MOST_COMPONENTS:
            raise ValueError(f"a board of {counted} components: Discord takes {MOST_COMPONENTS}")
        box = {"type": 17, "accent_color": self.accent, "spoiler": False, "components": parts}
        return [box]


def _text(content: str) -> dict[str, Any]:
    return {"type": 10, "content": content}


def _separator(visible: bool) -> dict[str, Any]:
    return {"type": 14, "divider": visible, "spacing": 1}


@dataclass
class Rendered:
    """A game message in Components V2: one container, nothing in ``content`` or embeds."""

    board: Board
    files: list[discord.File] = field(default_factory=list)
    draw: Draw | None = None  # slow files, made off the event loop by Boards.render()

    def send_kwargs(self) -> dict[str, Any]:
        return {
            "view": Drawn(self.board.to_components()),
            "files": self.files,
            "allowed_mentions": discord.AllowedMentions.none(),  # turn messages ping, never this
        }

    def edit_kwargs(self) -> dict[str, Any]:
        """Also empties content and embeds: a board posted before V2 becomes one when edited."""
        return {
            "content": None,
            "embeds": [],
            "view": Drawn(self.board.to_components()),
            "attachments": self.files,
            "allowed_mentions": discord.AllowedMentions.none(),
        }

    def without_pictures(self) -> Rendered:
        """The board with a line saying why in place of each picture: Discord refuses a
        message uploading one once Attach Files is taken away, and a game goes on without
        it (its texts say what the picture shows). The edit drops the old picture too."""
        body: list[Part] = [p if isinstance(p, str) else NO_PICTURE for p in self.board.body]
        return Rendered(replace(self.board, body=body))


NO_PICTURE = "-# No picture: Orchard needs Attach Files in this channel to show it."


class GameUI(Protocol):
    """What a game's cog provides to the shared machinery, for each kind it draws."""

    @property
    def accent(self) -> int:
        """The colour down the side of its boards (and its lobby's)."""
        ...

    def render(self, snapshot: Snapshot) -> Rendered: ...

    async def options_for(self, guild_id: int) -> dict[str, Any]:
        """Engine options a new game (a rematch too) takes from the server's settings now."""
        ...

    async def on_ui(
        self, interaction: discord.Interaction[Any], snapshot: Snapshot, verb: str, arg: str
    ) -> None:
        """A button that only shows something (e.g. "My tiles") and is not a game move."""
        ...


def footer_of(snapshot: Snapshot) -> str:
    return f"{title(snapshot.row.kind)} · game {snapshot.id}"


def seat_name(player: Player) -> str:
    """A seat's name for people: Orchard's seats by their level ("Orchard (Hard)")."""
    if player.is_bot and player.level:
        return orchard_name(player.level)
    return player.name


def plain_names(snapshot: Snapshot) -> list[str]:
    """Every seat's name as typed, told apart: a second "Orchard (Hard)" is "Orchard (Hard) 2".
    For text Discord shows without Markdown: a code-block table, a select's option."""
    shown = [seat_name(p) for p in snapshot.row.players]
    told = []
    for seat, name in enumerate(shown):
        before = shown[:seat].count(name)
        told.append(f"{name} {before + 1}" if before else name)
    return told


def names(snapshot: Snapshot) -> list[str]:
    """Every seat's name for a board's Markdown, shown as typed (``**Bo**`` styles nothing)."""
    return [literal(name) for name in plain_names(snapshot)]


def whose_turn(players: list[Player]) -> str | None:
    """A board's line naming, not mentioning, whom the game waits for."""
    shown = [literal(seat_name(p)) for p in players]
    if len(shown) < 2:
        return f"{shown[0]}'s turn" if shown else None
    return f"Waiting for {joined(shown)}"


def when(moment: float) -> str:
    """A moment as Discord shows it in each reader's own time ("in 5 minutes")."""
    at = datetime.datetime.fromtimestamp(moment, tz=datetime.UTC)
    return discord.utils.format_dt(at, "R")


def message_link(text: str, guild_id: int, channel_id: int, message_id: int | None) -> str:
    """A masked link to a message, or the channel's mention when the message is unknown."""
    if message_id is None:
        return f"<#{channel_id}>"
    where = discord.MessageReference(
        message_id=message_id, channel_id=channel_id, guild_id=guild_id
    )
    return link(text, where.jump_url)


def until(deadline: float | None) -> str:
    """When the turn runs out."""
    return "" if deadline is None else f" · time runs out {when(deadline)}"


def status(snapshot: Snapshot, waiting: list[Player], happened: str = "") -> str:
    """The board's second line: whose turn it is, until when, and what just happened."""
    turn = whose_turn(waiting)
    lines = [f"**{turn}**{until(snapshot.row.deadline)}"] if turn else []
    if happened:
        lines.append(happened)
    return "\n".join(lines)


def lobby_render(snapshot: Snapshot, accent: int) -> Rendered:
    """The shared lobby message, and what is left of it once closed (:func:`closed_by`)."""
    row = snapshot.row
    variant = VARIANTS[row.kind]
    shown = names(snapshot)
    seats = "\n".join(
        f"{p.seat + 1}. {shown[p.seat]}" + (" (host)" if p.user_id == row.host_id != NOBODY else "")
        for p in row.players
    )
    if row.status is not GameStatus.LOBBY:
        closed = Board(
            accent, f"{variant.title}: lobby closed", closed_by(row), [seats or "nobody"]
        )
        return Rendered(closed)
    buttons: list[Control] = [
        GameButton(row.id, 0, "lobby_join", label="Join", style=discord.ButtonStyle.primary),
        GameButton(row.id, 0, "lobby_leave", label="Leave"),
        GameButton(row.id, 0, "lobby_start", label="Start", style=discord.ButtonStyle.success),
        GameButton(row.id, 0, "lobby_cancel", label="Cancel", style=discord.ButtonStyle.danger),
    ]
    rows: list[Row] = [buttons]
    if orchard_plays(row.kind):
        rows += orchard_rows(row, shown)
    body: list[Part] = [f"**{plural(len(row.players), 'player')}**\n{seats or 'nobody yet'}"]
    closes = f"\nUnless started, it closes {when(row.deadline)}." if row.deadline else ""
    lobby = Board(
        accent,
        f"{variant.title}: who is playing?",
        variant.blurb + closes,
        body,
        rows,
        "The host presses Start when everyone is in; each join restarts its 15 minutes.",
    )
    return Rendered(lobby)


def closed_by(row: GameRow) -> str:
    """Why a lobby closed unstarted: its clock ran out, its host cancelled it, its host left
    Orchard's games (/forget-me), or a moderator ended it with /end."""
    if row.expired:
        return "Nobody started it in time, so it closed. Nothing was recorded."
    if row.host_left:
        return "Its host left Orchard's games, so it closed."
    if row.status is GameStatus.CANCELLED:
        return "The host cancelled it."
    return "A moderator ended it."


def orchard_rows(row: GameRow, shown: list[str]) -> list[Row]:
    """The host's selects: seat Orchard at a level while there is room (a full lobby could only
    refuse it), and take any of its seats out again, each named as the seat list names it and
    offered as of this revision (see :class:`SeatShown`)."""
    rows: list[Row] = []
    if len(row.players) < VARIANTS[row.kind].engine.max_players:
        levels = [
            discord.SelectOption(label=orchard_name(level), value=level)
            for level in SPEC_OF[row.kind].levels
        ]
        rows.append([GameSelect(row.id, 0, "lobby_addbot", levels, placeholder="Add Orchard…")])
    seated = [
        discord.SelectOption(label=shown[seat], value=SeatShown(seat, row.revision).value)
        for seat, player in enumerate(row.players)
        if player.is_bot
    ]
    if seated:
        remove = GameSelect(row.id, 0, "lobby_removebot", seated, placeholder="Remove Orchard…")
        rows.append([remove])
    return rows


def timeout_notice(snapshot: Snapshot) -> str:
    """One line for the channel when the clock, not a player, moved the game. A seat's
    :data:`TIMEOUTS_TO_FORFEIT`-th timeout removes it in that write, with nothing played for
    it (:meth:`Runner._timeout_moves`); a seat that leaves by /forget-me (also logged with no
    user) has fewer timeouts, and is not said to have timed out. When everyone still in timed
    out a third time at once, nobody is removed: the game ends. Each line names the game:
    a channel may have several going."""
    lines = []
    timed_out: set[int] = set()
    players = snapshot.row.players
    game = game_name(snapshot.row)
    for move in snapshot.moves:
        name = literal(seat_name(players[move.seat]))
        if move.source is MoveSource.TIMEOUT:
            timed_out.add(move.seat)
            lines.append(f"⏰ {name} ran out of time in {game}, so the clock played for them.")
        elif (
            move.source is MoveSource.FORFEIT and players[move.seat].timeouts >= TIMEOUTS_TO_FORFEIT
        ):
            lines.append(f"👋 {name} timed out three times in a row and has left {game}.")
    if deserted(snapshot):
        late = joined([literal(seat_name(players[s])) for s in sorted(timed_out)])
        lines.append(
            f"👋 {late} each timed out three times in a row, so {game} ends with no winner."
        )
    return "\n".join(dict.fromkeys(lines))


def deserted(snapshot: Snapshot) -> bool:
    """Whether this write is the clock's that ended the game because every seat still in
    timed out :data:`TIMEOUTS_TO_FORFEIT` turns in a row at once (:meth:`Runner._deserted`):
    it plays their turns, removes nobody, and closes the game unwon."""
    timeouts = any(m.source is MoveSource.TIMEOUT for m in snapshot.moves)
    return timeouts and snapshot.row.expired and snapshot.row.status is GameStatus.ABANDONED


class Boards:
    """Each game's public message, kept showing the game's latest version."""

    def __init__(self, client: discord.Client, runner: Runner, uis: Mapping[str, GameUI]) -> None:
        self.client = client
        self.runner = runner
        self.uis = uis
        self.redraw_delay = 2.0  # seconds before a board Discord failed to show is tried again
        self._redraws: set[asyncio.Task[None]] = set()
        self.pings = TurnPings(client, runner)  # started and drained by the app
        self.anew_pause = ANEW_PAUSE
        self.anew_backoff = ANEW_BACKOFF
        self._drawing_anew: asyncio.Task[None] | None = None  # see draw_anew
        self._anew_failed: dict[int, tuple[int, float]] = {}  # game: failures, next try
        self._anew_again = False
        self._no_pictures: dict[int, float] = {}  # channel: until when its boards go without

    async def render(self, snapshot: Snapshot) -> Rendered:
        """A game's message; a picture is drawn in a thread so other games keep moving."""
        if snapshot.state is None:
            payload = lobby_render(snapshot, self.uis[snapshot.row.kind].accent)
        else:
            payload = self.uis[snapshot.row.kind].render(snapshot)
        if payload.draw is not None:
            payload.files += await asyncio.to_thread(payload.draw)
            payload.draw = None
        return payload

    async def display(self, snapshot: Snapshot) -> None:
        """Edit a game's message, or post it anew if it was deleted (the move is already safe).

        Discord's own failures (a 503, which discord.py does not retry) get one more try
        shortly, so a board does not wait for the next click to catch up. A version already
        overtaken by a newer write (here, or by another process on a shared store) is not
        drawn at all: the newer version's display draws the board. A timeout's notice is a
        message of its own, posted first: the edit may wait on Discord, or fail, or be cut
        off by a shutdown, and a redraw later draws the latest version, whose moves may not
        hold the timeout.
        """
        await self._notify_timeouts(snapshot)
        try:
            if not self.runner.outdated(snapshot):
                await self._edit_or_post(snapshot)
        except discord.DiscordServerError:
            task = asyncio.create_task(self._redraw(snapshot.id))
            self._redraws.add(task)
            task.add_done_callback(self._redraws.discard)
            raise

    async def _notify_timeouts(self, snapshot: Snapshot) -> None:
        """Post the timeout's notice, if any; one Discord refuses is logged, and the board is
        drawn all the same."""
        notice = timeout_notice(snapshot)
        if not notice:
            return
        channel = self.client.get_partial_messageable(snapshot.row.channel_id)
        try:
            await channel.send(notice, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as err:
            log.warning("game %s: could not post its timeout notice: %s", snapshot.id, err)

    async def post(self, snapshot: Snapshot, payload: Rendered | None = None) -> discord.Message:
        """Post the game's message anew and remember it as the game's own."""
        payload = payload or await self.render(snapshot)
        row = snapshot.row
        channel = self.client.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
        payload = self._pictures_allowed(row.channel_id, payload)
        for file in payload.files:
            file.reset()  # read already, if an edit refused for a deleted message sent it
        try:
            message = await channel.send(**payload.send_kwargs())
        except discord.Forbidden as err:
            if not self._picture_refused(err, payload, snapshot):
                raise
            message = await channel.send(**payload.without_pictures().send_kwargs())
        await self.runner.record_message(snapshot.id, message.id)
        return message

    def stop(self) -> None:
        for task in list(self._redraws):
            task.cancel()
        if self._drawing_anew is not None:
            self._drawing_anew.cancel()

    def draw_anew(self) -> None:
        """Draw anew, from the store, the boards queued there (:meth:`Store.next_to_draw`):
        of games over that named someone /forget-me has since erased (queued by the erasure),
        and those a stop left older than their game (:meth:`bot.orchard.Orchard.stop`). In
        the background, one at a time, :data:`ANEW_PAUSE` apart and as the backlog of
        the global limit, so no click and no game being played waits for them. A finished
        game's board deleted meanwhile, or in a channel gone or closed to Orchard, is passed
        over (never posted again); an open game's is drawn as a move draws it. Called at
        start-up too, so a restart resumes those still queued, and at each of the leader's
        checks (see :meth:`bot.app.OrchardBot.draw_boards_anew`)."""
        if self._drawing_anew is None or self._drawing_anew.done():
            self._drawing_anew = asyncio.create_task(self._anew_work(), name="orchard-draw-anew")
        else:
            self._anew_again = True  # its pass may have read past the rows just queued

    async def _anew_work(self) -> None:
        """Passes over the queue in game order until one ends with nothing queued since it
        began. Each board leaves the queue once drawn or passed over; one whose drawing
        failed stays for the next pass (the leader's next check), as does every board when
        the store fails."""
        BACKLOG.set(True)  # this task's own context: nothing else it sends
        try:
            await self._anew_passes()
        except Exception:  # the store failed: what is queued stays queued
            log.warning("boards to draw anew wait for the next pass", exc_info=True)

    async def _anew_passes(self) -> None:
        after = 0
        while True:
            queued = await self.runner.store.next_to_draw(after)
            if queued is None:
                if not self._anew_again:
                    return
                self._anew_again, after = False, 0
                continue
            after, erasures = queued
            if await self._draw_queued(after, erasures):
                await asyncio.sleep(self.anew_pause)

    async def _draw_queued(self, game_id: int, erasures: int) -> bool:
        """Draw one queued board and take it off the queue, unless drawing failed (then it
        waits, :data:`ANEW_BACKOFF`); whether Discord was asked anything (a request the
        pace counts)."""
        failures, next_try = self._anew_failed.get(game_id, (0, 0.0))
        if time.monotonic() < next_try:
            return False
        try:
            drawn = await self._draw_one_anew(game_id)
        except Exception:
            wait = min(self.anew_backoff * 2**failures, ANEW_BACKOFF_MOST)
            self._anew_failed[game_id] = (failures + 1, time.monotonic() + wait)
            log.warning(
                "game %s: could not draw its board anew; trying again in %.0f s",
                game_id,
                wait,
                exc_info=True,
            )
            return True
        self._anew_failed.pop(game_id, None)
        await self.runner.store.drawn_anew(game_id, erasures)
        return drawn

    async def _draw_one_anew(self, game_id: int) -> bool:
        """Draw a game's board as stored; whether Discord was asked. An open game's is the
        runner's display (posted if it never was); a game over's board is only edited."""
        async with self.runner.showing(game_id):  # after any display in flight
            try:
                snapshot = await self.runner.load(game_id)
            except Refusal:
                return False  # gone since (its server's purge)
            row = snapshot.row
            if is_daily(row.options):
                return False  # never posted in a channel
            if row.status.is_open:
                await self.runner.display(snapshot)
                return True
            if row.message_id is None:
                return False
            try:
                await self._edit(snapshot, row.message_id, await self.render(snapshot))
            except (discord.NotFound, discord.Forbidden, Gone) as err:
                log.info("game %s: board not drawn anew: %s", game_id, err)
        return True

    async def _edit_or_post(self, snapshot: Snapshot) -> None:
        payload = await self.render(snapshot)
        row = snapshot.row
        try:
            if row.message_id is not None:
                try:
                    await self._edit(snapshot, row.message_id, payload)
                    return
                except discord.NotFound as err:
                    if err.code == UNKNOWN_CHANNEL:
                        raise
                    log.info("game %s: message gone, posting it again", snapshot.id)
            await self.post(snapshot, payload)
        except discord.NotFound as err:
            if err.code == UNKNOWN_CHANNEL:
                raise Gone(f"channel {row.channel_id}") from err
            raise

    async def _edit(self, snapshot: Snapshot, message_id: int, payload: Rendered) -> None:
        """Edit the board, without its picture if Discord refuses the upload."""
        payload = self._pictures_allowed(snapshot.row.channel_id, payload)
        try:
            await self._edit_as(snapshot, message_id, payload)
        except discord.Forbidden as err:
            if not self._picture_refused(err, payload, snapshot):
                raise
            await self._edit_as(snapshot, message_id, payload.without_pictures())

    def _pictures_allowed(self, channel_id: int, payload: Rendered) -> Rendered:
        """``payload``, or it without pictures while its channel's last refusal of one is
        recent (:data:`PICTURE_RETRY`)."""
        until = self._no_pictures.get(channel_id)
        if until is None or not payload.files:
            return payload
        if time.monotonic() < until:
            return payload.without_pictures()
        del self._no_pictures[channel_id]
        return payload

    def _picture_refused(self, err: discord.Forbidden, payload: Rendered, game: Snapshot) -> bool:
        """Whether Discord refused a board for its picture (Attach Files taken away); if so,
        the channel's boards go without pictures for a while."""
        if err.code != MISSING_PERMISSIONS or not payload.files:
            return False
        channel_id = game.row.channel_id
        self._no_pictures[channel_id] = time.monotonic() + PICTURE_RETRY
        log.info("game %s: boards in %s drawn without pictures: %s", game.id, channel_id, err)
        return True

    async def _edit_as(self, snapshot: Snapshot, message_id: int, payload: Rendered) -> None:
        """``PartialMessage.edit`` without making a Message of the edited board Discord sends
        back: nothing reads it. Done once Discord has answered: an edit that used up the
        channel's limit would otherwise hold the game's next display (a click's answer)
        until the limit's window is over. And dropped, unsent, if a newer version of the game
        is written while it waits for the channel's limit: the newer one's display draws the
        board (see :func:`bot.pacing.until_answered`). The edits of one game coalesce."""
        channel_id = snapshot.row.channel_id
        with discord.http.handle_message_parameters(
            previous_allowed_mentions=self.client.allowed_mentions, **payload.edit_kwargs()
        ) as params:
            http = self.client.http

            async def edit() -> None:
                await until_answered(
                    lambda: http.edit_message(channel_id, message_id, params=params),
                    lambda: not self.runner.outdated(snapshot),
                )

            try:
                await edit()
            except discord.HTTPException as err:
                if err.code != THREAD_ARCHIVED:
                    raise
                await self._reopen(snapshot.id, channel_id)
                for file in params.files or ():
                    file.reset()  # read by the refused edit
                await edit()

    async def _reopen(self, game_id: int, thread_id: int) -> None:
        """Unarchive the thread Discord archived after a quiet spell (a game over there, or
        a turn of a day): Send Messages in Threads will do. One Orchard may not reopen (a
        moderator locked it, or took that permission away) is :class:`Gone`: no board there
        can change again, so its game ends, as in a deleted channel, rather than be played
        out by the clock where nobody sees it."""
        log.info("game %s: reopening thread %s, archived, to edit its board", game_id, thread_id)
        try:
            await self.client.http.edit_channel(thread_id, archived=False)
        except discord.Forbidden as err:
            raise Gone(f"thread {thread_id}, closed, may not be reopened: {err}") from err

    async def _redraw(self, game_id: int) -> None:
        await asyncio.sleep(self.redraw_delay)
        async with self.runner.showing(game_id):  # after any display in flight
            snapshot = await self.runner.load(game_id)
            try:
                await self._edit_or_post(snapshot)
            except (discord.HTTPException, Gone):
                log.warning("game %s: board still not shown; the next click redraws it", game_id)
                return
            await self.runner.catch_up(snapshot)  # another process may have moved it since
