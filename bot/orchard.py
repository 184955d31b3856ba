"""Orchard without Discord: the store, settings, runner, lobby, scheduler and opponents, wired once.

The Discord client, the tests and the benchmarks all build their Orchard here, so none of them
can wire it differently from the others; only how a game is displayed is theirs to give.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from bot.ai.applejack_players import exact_tables as applejack_tables
from bot.ai.cheerio_players import exact_tables as cheerio_tables
from bot.ai.hotscore_players import warming as hotscore_warming
from bot.background import spawn
from bot.daily import is_daily
from bot.leader import Leader
from bot.lobby import Lobby
from bot.opponents import Opponents
from bot.runner import Display, Refusal, Runner, no_display
from bot.scheduler import Scheduler
from bot.settings import Settings
from bot.specs import ENGINES
from db.connection import Target
from db.store import Store

log = logging.getLogger(__name__)
WARM_AFTER = 30.0  # s after start-up: the catch-up of deadlines and Orchard's seats go first
WARM_SLICE = 0.002
LEFT_AGAIN = 10.0  # s after a server's departure: a game its last interactions opened ends too
SWEEP_EVERY = 600.0  # s between two looks for games other processes ended (shared stores)
"""Seconds of warming at a time before the loop runs whatever else is ready. A piece is
0.05-1 ms (a dice card) or 3-8 ms (a Hot Score throw to beat), so a click waits for one
slice or one piece at most, and the whole warming (about 1.5 s of work) is over within
seconds instead of drizzling through the first minutes."""


@dataclass
class Orchard:
    store: Store
    settings: Settings
    runner: Runner
    lobby: Lobby
    scheduler: Scheduler
    leader: Leader
    orchard_delay: float = 1.0
    opponents: Opponents | None = None  # Orchard's seats play from start() on
    warm_after: float = WARM_AFTER
    warmed: asyncio.Event = field(default_factory=asyncio.Event, init=False)
    # Told once a /forget-me is committed: the boards of games over that named the person
    # wait in the store to be drawn anew (the Discord layer's work; see Store.next_to_draw).
    on_erased: list[Callable[[], None]] = field(default_factory=list, init=False)
    # Awaited at the end of an orderly stop, the boards it cut off queued: ``orchard run``
    # notes the stop there, so that its next start can tell a crash (see bot.health).
    on_stopped: list[Callable[[], Awaitable[None]]] = field(default_factory=list, init=False)
    _warming: asyncio.Task[None] | None = field(default=None, init=False)
    _sweeping: asyncio.Task[None] | None = field(default=None, init=False)
    _leaving: set[asyncio.Task[Any]] = field(default_factory=set, init=False)

    @classmethod
    async def open(
        cls,
        database: Target,
        *,
        board: Display | None = None,
        clock: Callable[[], float] = time.time,
        orchard_delay: float = 1.0,
    ) -> Orchard:
        """Everything but Discord on the database ``database`` names; nothing runs until
        :meth:`start`. ``board`` displays a game on its own message."""
        store = await Store.open(database)
        store.clock = clock
        settings = Settings(store, clock)
        runner = Runner(store, ENGINES, settings, board=board, clock=clock)
        lobby = Lobby(runner)
        orchard = cls(
            store, settings, runner, lobby, Scheduler(runner), Leader(store), orchard_delay
        )
        store.on_rewritten.append(orchard.forget_remembered)
        return orchard

    async def start(self) -> None:
        """Pick up every game waiting for Orchard's own move, then fire what is due."""
        if self.opponents is None:
            self.opponents = Opponents(self.runner, delay=self.orchard_delay)
        await self.opponents.resume()
        self.scheduler.start()
        self._warming = asyncio.create_task(self._warm_tables(), name="orchard-warm-tables")
        if self.store.shared:
            self._sweeping = asyncio.create_task(self._sweep(), name="orchard-forget-ended")

    async def _sweep(self) -> None:
        """A shared store: every :data:`SWEEP_EVERY` s, forget the games another process
        ended (:meth:`Runner.forget_ended`), or each process's memory grew with them."""
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            try:
                await self.runner.forget_ended()
            except Exception:  # the store failed: the next sweep forgets them
                log.warning("could not look for games ended elsewhere", exc_info=True)

    async def _warm_tables(self) -> None:
        """The exact players' values, a slice at a time, a while after start-up, so no review
        and no move of Orchard's computes them: Hot Score Hard's (0.9 s of work in all; a
        cold decision took up to 60 ms, in a thread, with its game held), then every dice
        card's keep values (a six-player Cheerio review: about 50 ms cold, 16 ms warm; both
        games' cards: 0.4 s of work and 6 MiB in all). :attr:`warmed` is set when done."""
        await asyncio.sleep(self.warm_after)
        began = time.monotonic()
        pieces = itertools.chain(
            hotscore_warming(), cheerio_tables().warming(), applejack_tables().warming()
        )
        yield_at = time.perf_counter() + WARM_SLICE
        for _ in pieces:
            if time.perf_counter() >= yield_at:
                await asyncio.sleep(0)
                yield_at = time.perf_counter() + WARM_SLICE
        log.info("exact players' tables warmed in %.1f s", time.monotonic() - began)
        self.warmed.set()

    async def forget(self, guild_id: int, user_id: int) -> int:
        """/forget-me: take the person out of their open games here (through the runner),
        then erase them from this server's rows; returns the rows erased, a seat in each open
        game they left among them. A lobby that seated them meanwhile (a Rematch pressed on a
        game of theirs not yet erased) is found after the erasure, and left in turn; one that
        would seat them after it waits, then leaves them out (:meth:`Lobby.person`)."""
        async with self.lobby.person(user_id):
            left = await self._leave_open_games(guild_id, user_id)
            removed = left + await self.store.forget_user(guild_id, user_id)
            while again := await self._leave_open_games(guild_id, user_id):  # seated meanwhile
                removed += again + await self.store.forget_user(guild_id, user_id)
        self._erased()
        return removed

    async def forget_everywhere(self, user_id: int) -> tuple[int, int]:
        """/forget-me in a direct message: the person leaves their open games in every server
        holding their rows, as :meth:`forget` does, then the store erases them in all of those
        servers at once (:meth:`Store.forget_everywhere`); returns the servers and rows
        erased, as :meth:`forget` counts them."""
        async with self.lobby.person(user_id):
            left = await self._leave_everywhere(user_id)
            servers, removed = await self.store.forget_everywhere(user_id)
            while again := await self._leave_everywhere(user_id):  # seated meanwhile
                more = await self.store.forget_everywhere(user_id)
                servers, removed = max(servers, more[0]), removed + again + more[1]
        self._erased()
        return servers, left + removed

    async def _leave_everywhere(self, user_id: int) -> int:
        """:meth:`_leave_open_games` in every server holding the person's rows."""
        left = 0
        for guild_id in await self.store.servers_of(user_id):
            left += await self._leave_open_games(guild_id, user_id)
        return left

    def _erased(self) -> None:
        """After an erasure's commit, which queued the boards of the person's games over to
        be drawn anew. The games they left meanwhile were shown by the runner
        (:meth:`_leave_open_games`); one over since then ended with their seat already a
        former player's."""
        for hook in self.on_erased:
            hook()

    async def _leave_open_games(self, guild_id: int, user_id: int) -> int:
        """Through the runner, which holds each game: a lobby loses them (or closes, if they
        host it) and a game in play goes on without them, shown on its board. Returns the
        games they left: their seat there is erased as surely as one in a game over."""
        left = 0
        for row in await self.store.open_games(guild_id):
            if row.seat_of(user_id) is not None or row.host_id == user_id:
                left += await self.runner.forget_player(row.id, user_id) is not None
        return left

    async def left_server(self, guild_id: int, when: float) -> int:
        """Orchard was removed from a server: the 30 days before its purge start, and its open
        games end as a moderator's /end ends them, nobody losing (nobody there can click them
        any more: the clock would play them out, handing the last one left a win). Nothing is
        shown there. Daily games, played in private from any server, go on. An interaction
        from the server still being handled may open or start a game after this read: the
        games are looked for again :data:`LEFT_AGAIN` s later, unless the server is back.
        Returns how many games it ended (those found again later aside)."""
        await self.store.guild_left(guild_id, when)
        ended = await self._end_games(guild_id)
        spawn(self._leaving, self._end_games_again(guild_id))
        return ended

    async def _end_games_again(self, guild_id: int) -> None:
        await asyncio.sleep(LEFT_AGAIN)
        try:
            if await self.store.has_left(guild_id):
                await self._end_games(guild_id)
        except Exception:  # the store failed: such a game is played out as any other
            log.warning("could not look again for games of server %s", guild_id, exc_info=True)

    async def channels_deleted(self, guild_id: int, channel_ids: Collection[int]) -> int:
        """Channels or threads of a server were deleted: their open games end as a departed
        server's do, nobody losing and nothing shown, rather than stay listed in /games,
        where nobody could /forfeit them, until the clock played them out unseen. Returns
        how many it ended."""
        return await self._end_games(guild_id, channel_ids)

    async def _end_games(self, guild_id: int, channel_ids: Collection[int] | None = None) -> int:
        """End a departed server's open games (or those in ``channel_ids`` there), daily ones
        aside, showing nothing; returns how many it ended."""
        ended = 0
        summaries = await self.store.open_games(guild_id)
        chosen = [g.id for g in summaries if channel_ids is None or g.channel_id in channel_ids]
        for row in await self.store.get_games(chosen):
            if not is_daily(row.options):
                with contextlib.suppress(Refusal):  # over meanwhile
                    await self.runner.abandon(row.id, no_display)
                    ended += 1
                self.runner.forget(row.id)  # never shown: no display forgets it
        return ended

    async def purge_departed(self, before: float) -> list[int]:
        """Servers the bot left before ``before``: every row of theirs goes (games are over
        for good there, so no runner is needed: nobody can click them any more). Only the
        leader purges: the others return nothing."""
        if not self.leader.leading:
            return []
        return await self.store.purge_departed(before)

    def forget_remembered(self) -> None:
        """Rows were written behind the runner's and the settings' backs (the store tells as
        soon as the erasure or purge is committed): read them afresh."""
        self.runner.forget_committed()
        self.settings.forget()

    async def stop(self) -> None:
        """Stop firing deadlines and playing Orchard's seats; the store stays open. Boards
        whose drawing the stop cut off are queued in the store, for the next start to draw
        anew (else each stayed a version behind until its next click)."""
        await self.leader.stop()
        for stop in list(self.runner.stoppers):
            await stop()
        await self.scheduler.stop()
        if self.opponents is not None:
            await self.opponents.stop()
        try:
            await self.store.queue_boards(self.runner.undrawn())
        except Exception:  # stopping anyway: those boards wait for their next click
            log.warning("could not queue the boards left undrawn", exc_info=True)
        else:  # not a stop that lost boards, then
            for stopped in self.on_stopped:
                await stopped()
        for task in (self._warming, self._sweeping, *self._leaving):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def close(self) -> None:
        await self.stop()
        await self.store.close()
