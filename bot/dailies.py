"""The Daily Orchard without Discord: each person's game of the day, its result and the boards.

A daily game is an ordinary game row (seed, move log, replay, restart) of one seat, with
options ``{"daily": day}`` (the day's dice), no channel (:data:`~bot.daily.NO_CHANNEL`) and
no turn clock: it is played in its player's own replies whenever they like that day, or the
next (its deadline, :func:`~bot.daily.closes`, then closes it unfinished). Its play is
recorded in ``daily_plays`` with its game, in one transaction (the once-a-day rule is that
table's key), and its score and accuracy once it is over, on the first read after that (a
/daily, a board), so a restart between the last move and the record loses nothing.
/forget-me leaves of a play of today only that it was played
(:attr:`~bot.daily.DailyPlay.forgotten`), until the day is over.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from dataclasses import replace

from bot.daily import (
    NO_GAME,
    BoardToDraw,
    DailyPlay,
    PostedBoard,
    closes,
    day_of,
    last_day,
    streak,
)
from bot.games.base import daily_day
from bot.locks import KeyedLocks
from bot.model import GameChange, GameStatus, Player
from bot.runner import Refusal, Runner, Snapshot, no_display
from bot.specs import SPEC_OF, title
from db.daily import DailyStore

STREAK_WINDOW = 366  # days of history a streak is counted over
DRAW_TRIES = 24 * 12
"""A posted board whose drawing Discord keeps refusing (not a deleted message or channel,
never tried again) is tried at this many passes of the posting loop, a day of them."""


class _Started(Exception):
    """The day's game was started meanwhile: nothing to write."""


class Dailies:
    def __init__(self, runner: Runner, clock: Callable[[], float] = time.time) -> None:
        self.runner = runner
        self.store = DailyStore(runner.store.db)
        self.clock = clock
        self._locks: KeyedLocks[tuple[int, str, int]] = KeyedLocks()

    def today(self) -> int:
        return day_of(self.clock())

    async def game_of_the_day(
        self, kind: str, guild_id: int, player: Player, world_name: str | None = None
    ) -> tuple[Snapshot, DailyPlay]:
        """The person's game of ``kind`` today, started now if they have none yet: in this
        server under ``player.name``, on the board across servers under ``world_name`` (their
        own name on Discord; None: ``player.name`` there too)."""
        spec = SPEC_OF.get(kind)
        if spec is None or spec.daily is None:
            raise Refusal("There is no daily game of that kind.")
        day = self.today()
        key = (day, kind, player.user_id)
        async with self._locks[key]:
            play = await self.store.play(day, kind, player.user_id)
            if play is not None and play.forgotten:
                raise Refusal(
                    f"You have played today's {title(kind)}: come back tomorrow (00:00 UTC)."
                )
            if play is None:
                play = await self._start(day, kind, guild_id, player, world_name)
            snapshot = await self.runner.load(play.game_id)
            if snapshot.row.status is GameStatus.LOBBY:
                snapshot = await self._started(snapshot.id)
            return snapshot, await self.finalize(play, snapshot)

    async def unfinished(self, kind: str, user_id: int) -> Snapshot | None:
        """The person's game of ``kind`` of yesterday, if still in play: they may finish it
        today, until it closes (:func:`~bot.daily.closes`), and /daily offers it."""
        play = await self.store.play(self.today() - 1, kind, user_id)
        if play is None or play.forgotten or play.score is not None:
            return None
        snapshot = await self.runner.load(play.game_id)
        return snapshot if snapshot.row.status is GameStatus.ACTIVE else None

    async def in_play(self, kind: str, user_id: int) -> bool:
        """Whether the person has a daily game of ``kind`` still to finish, today's or
        yesterday's: a command that finds no game of theirs in a channel can say why."""
        play = await self.store.play(self.today(), kind, user_id)
        if play is not None and not play.forgotten and play.score is None:
            return True
        return await self.unfinished(kind, user_id) is not None

    async def _start(
        self, day: int, kind: str, guild_id: int, player: Player, world_name: str | None
    ) -> DailyPlay:
        """The person's play of the day, its game made (a lobby until :meth:`_started`)."""
        play = DailyPlay(
            day, kind, player.user_id, guild_id, NO_GAME, player.name, world_name=world_name
        )
        added = await self.store.add_game_and_play(
            play,
            player,
            seed=secrets.randbits(62),  # the day decides the dice; the seed only names the game
            options={"daily": day},
            now=self.clock(),
        )
        if added is None:  # another process started one meanwhile
            found = await self.store.play(day, kind, player.user_id)
            assert found is not None
            return found
        return added

    async def _started(self, game_id: int) -> Snapshot:
        """The day's game, started. Made and recorded in one transaction, it is started in the
        next: a crash in between leaves a lobby this starts at the person's next /daily that
        day, or the clock closes at the day's end (:meth:`DailyStore.add_game_and_play`)."""

        async def start(snapshot: Snapshot) -> GameChange:
            if snapshot.row.status is not GameStatus.LOBBY:
                raise _Started
            engine = self.runner.engine(snapshot.row.kind)
            state = engine.new(snapshot.row.seed, 1, snapshot.row.options)
            return GameChange(
                snapshot.id,
                from_status=GameStatus.LOBBY,
                status=GameStatus.ACTIVE,
                state=engine.dump(state),
                version=0,
                deadline=closes(snapshot.row.options),  # no turn clock: only its closing
            )

        try:
            return await self.runner.change(game_id, start, no_display)
        except _Started:  # by another process meanwhile
            return await self.runner.load(game_id)

    async def finalize(self, play: DailyPlay, snapshot: Snapshot | None = None) -> DailyPlay:
        """Record the score and accuracy of a play whose game is over (once)."""
        if play.score is not None:
            return play
        snapshot = snapshot or await self.runner.load(play.game_id)
        if snapshot.row.status is not GameStatus.FINISHED:
            return play
        spec = SPEC_OF[play.kind]
        score = self.runner.engine(play.kind).results(snapshot.state)[0].score
        accuracy = None
        if spec.daily is not None:
            moves = await self.runner.store.moves(play.game_id)
            accuracy = await asyncio.to_thread(
                spec.daily, snapshot.row.seed, snapshot.row.options, moves
            )
        await self.store.finish(play, score, accuracy, self.clock())
        return replace(play, score=score, accuracy=accuracy)

    async def result(self, snapshot: Snapshot) -> DailyPlay | None:
        """The recorded play of a daily game (recording its result if it is over)."""
        day = daily_day(snapshot.row.options)
        player = snapshot.row.players[0]
        play = (
            None if day is None else await self.store.play(day, snapshot.row.kind, player.user_id)
        )
        if play is None or play.game_id != snapshot.id:
            return None
        return await self.finalize(play, snapshot)

    async def board(self, day: int, kind: str, guild_id: int | None) -> list[DailyPlay]:
        """A day's plays, best first: in one server, or (None) everyone who joined the world
        board. Plays over but not yet recorded are recorded first."""
        plays = await self.store.board(day, kind, guild_id)
        if any(p.score is None for p in plays):
            for play in plays:
                await self.finalize(play)
            plays = await self.store.board(day, kind, guild_id)
        return [p for p in plays if p.score is not None]

    async def streak(self, kind: str, user_id: int, today: int | None = None) -> int:
        today = self.today() if today is None else today
        days = await self.store.days_played(kind, user_id, today - STREAK_WINDOW)
        return streak(days, today)

    async def join_world(self, user_id: int, joined: bool) -> None:
        """Show (or stop showing) the person's results on the board across servers."""
        await self.store.set_world(user_id, joined, self.clock())

    async def choose_channel(self, guild_id: int, channel_id: int | None) -> None:
        """Where a server's board of yesterday is posted each day (None: nowhere)."""
        await self.store.set_channel(guild_id, channel_id)

    async def channel_gone(self, guild_id: int, channel_id: int) -> bool:
        """The channel was deleted: stop posting there (unless another was chosen since)."""
        return await self.store.drop_channel(guild_id, channel_id)

    async def board_refused(self, guild_id: int, channel_id: int, day: int | None) -> None:
        """Discord refused the server's board of ``day`` (None: it took one): see /settings."""
        await self.store.set_refused(guild_id, channel_id, day)

    async def boards_due(self, day: int) -> list[tuple[int, int]]:
        return await self.store.channels_due(day)

    async def claim_board(self, guild_id: int, day: int) -> bool:
        """This caller posts the server's board of ``day`` (once, across processes)."""
        return await self.store.claim(guild_id, day)

    async def unclaim_board(self, guild_id: int, day: int) -> None:
        """A shutdown cut the claimed board's post off: the restart posts it."""
        await self.store.unclaim(guild_id, day)

    async def board_posted(self, guild_id: int, board: PostedBoard) -> None:
        """A board posted: drawn again to its final results once its day closes."""
        await self.store.posted(guild_id, board, last_day(board.day) + 1)

    async def boards_to_draw(self) -> list[BoardToDraw]:
        """The posted boards due to be drawn again: their day has closed
        (:func:`~bot.daily.last_day`) since they were drawn, or someone on them was erased."""
        return await self.store.to_draw(self.today())

    async def take_board(self, due: BoardToDraw) -> bool:
        """This caller draws the board due (once, across processes)."""
        return await self.store.take(due)

    async def board_drawn(self, due: BoardToDraw) -> None:
        """The board taken was drawn as its day's results stand today: final if its day has
        closed, else to be drawn again once it has."""
        closes = last_day(due.board.day) + 1
        if closes > self.today():
            await self.store.draw_again_on(due, closes)

    async def board_not_drawn(self, due: BoardToDraw) -> None:
        """Drawing the board taken failed: it is tried again at the next pass, up to
        :data:`DRAW_TRIES` times."""
        await self.store.put_back(due, DRAW_TRIES)
