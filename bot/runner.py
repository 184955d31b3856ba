"""The one path every game action takes: load, lock, check, apply, commit, then show.

The runner knows engines and the store, never ``discord``: showing a game is a callback, so
the cogs decide how a message is edited and the benchmarks can record instead.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from bot.ai.registry import LEVELS
from bot.games.base import Engine, MoveError, SeatResult
from bot.model import (
    FORFEIT_VERB,
    Commit,
    GameRow,
    GameStatus,
    Move,
    MoveSource,
    Player,
    RatingPool,
    RatingUpdate,
    Result,
)
from bot.ratings import rate
from bot.settings import Settings
from db.store import Store

log = logging.getLogger(__name__)

TIMEOUTS_TO_FORFEIT = 3


class Refusal(Exception):
    """An action the runner turns away; ``str(err)`` is shown to the user, privately."""


class Stale(Refusal):
    """The button belonged to an older version of the game: someone already moved."""


@dataclass(frozen=True)
class Live:
    """A stored game together with its decoded engine state (None in the lobby)."""

    row: GameRow
    state: Any
    moves: tuple[Move, ...] = ()  # what the commit that produced this version added

    @property
    def id(self) -> int:
        return self.row.id


Show = Callable[[Live], Awaitable[None]]


class Runner:
    def __init__(
        self,
        store: Store,
        engines: Mapping[str, Engine[Any, Any]],
        settings: Settings,
        *,
        publish: Show | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.engines = engines
        self.settings = settings
        self.publish: Show | None = publish
        self.clock = clock
        self.on_commit: list[Callable[[Live], None]] = []
        # Weak: a game's lock lives while someone holds or awaits it, so 10,000 games touched
        # once leave no 10,000 locks behind.
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    def lock(self, game_id: int) -> asyncio.Lock:
        return self._locks.setdefault(game_id, asyncio.Lock())

    def engine(self, kind: str) -> Engine[Any, Any]:
        return self.engines[kind]

    async def load(self, game_id: int) -> Live:
        row = await self.store.get_game(game_id)
        if row is None:
            raise Refusal("That game no longer exists.")
        state = None if row.state is None else self.engine(row.kind).load(row.state)
        return Live(row, state)

    async def act(
        self,
        game_id: int,
        user_id: int,
        kind: str,
        arg: str = "",
        *,
        version: int | None = None,
        guild_id: int | None = None,
        present: Show | None = None,
    ) -> Live:
        """Apply one player's action; raises :class:`Refusal` (nothing changed) if it can't.

        ``guild_id``, when given, is the server the click came from: a game is only ever
        played from its own server.
        """
        async with self.lock(game_id):
            live = await self.load(game_id)
            if guild_id is not None and guild_id != live.row.guild_id:
                raise Refusal("This game belongs to another server.")
            seat = self._check_actor(live, user_id)
            if version is not None and version != live.row.version:
                await self._check_side_by_side(live, seat, version)
            player = live.row.players[seat]
            engine = self.engine(live.row.kind)
            try:
                action = engine.parse(seat, kind, arg)
                state = engine.apply(live.state, action)
            except MoveError as err:
                raise Refusal(str(err)) from err
            source = MoveSource.BOT if player.is_bot else MoveSource.PLAYER
            moves = [Move(seat, *engine.format(action), None if player.is_bot else user_id, source)]
            reset = {seat: 0} if player.timeouts else {}
            return await self._commit(live, state, moves, reset, present)

    async def act_for_seat(
        self, game_id: int, seat: int, version: int, decide: Callable[[Live], Any]
    ) -> Live | None:
        """Play an Orchard seat's move, decided on the state inside the lock.

        Returns None, changing nothing, if the game moved on since the move was scheduled.
        """
        async with self.lock(game_id):
            live = await self.load(game_id)
            row = live.row
            engine = self.engine(row.kind)
            if row.status != "active" or row.version != version or not row.players[seat].is_bot:
                return None
            if seat not in engine.to_act(live.state):
                return None
            action = await asyncio.to_thread(decide, live)  # a word search can take 50 ms
            try:
                state = engine.apply(live.state, action)
            except MoveError:
                log.exception("game %s: Orchard chose an illegal move %s", game_id, action)
                return None
            moves = [Move(seat, *engine.format(action), None, MoveSource.BOT)]
            return await self._commit(live, state, moves, {}, None)

    async def forfeit(self, game_id: int, user_id: int, *, present: Show | None = None) -> Live:
        """A player gives up their seat; the others play on (or win)."""
        async with self.lock(game_id):
            live = await self.load(game_id)
            seat = self._check_actor(live, user_id)
            state = self.engine(live.row.kind).forfeit(live.state, seat)
            moves = [Move(seat, FORFEIT_VERB, "", user_id, MoveSource.FORFEIT)]
            return await self._commit(live, state, moves, {}, present)

    async def fire_deadline(self, game_id: int) -> Live | None:
        """Run the timeout moves of a game whose turn deadline has passed (idempotent)."""
        async with self.lock(game_id):
            live = await self.load(game_id)
            row = live.row
            if row.deadline is None or row.deadline > self.clock() or row.status != "active":
                return None
            state, moves, counts = self._timeout_moves(live)
            return await self._commit(live, state, moves, counts, None)

    async def replay(self, game_id: int) -> Any:
        """The state rebuilt from the seed and the move log: it must equal the stored one."""
        live = await self.load(game_id)
        return self._replayed(live.row, await self.store.moves(game_id))

    def _replayed(self, row: GameRow, moves: list[Move]) -> Any:
        engine = self.engine(row.kind)
        state = engine.new(row.seed, len(row.players), row.options)
        for move in moves:
            if move.verb == FORFEIT_VERB:
                state = engine.forfeit(state, move.seat)
            else:
                state = engine.apply(state, engine.parse(move.seat, move.verb, move.arg))
        return state

    async def show(self, live: Live, present: Show | None = None) -> None:
        """Show a committed game; a failure here is logged, never undoes the move."""
        for show in (present, self.publish):
            if show is None:
                continue
            try:
                await show(live)
                return
            except Exception:
                log.warning(
                    "game %s: could not show version %s", live.id, live.row.version, exc_info=True
                )

    # Inside the lock.

    def _check_actor(self, live: Live, user_id: int) -> int:
        row = live.row
        if row.status == "lobby":
            raise Refusal("This game has not started yet.")
        if row.status != "active":
            raise Refusal("This game is over.")
        seat = row.seat_of(user_id)
        if seat is None:
            bot_seats = [p.seat for p in row.players if p.is_bot and p.user_id == user_id]
            if not bot_seats:
                raise Refusal("You are not playing in this game.")
            seat = bot_seats[0]
        return seat

    async def _check_side_by_side(self, live: Live, seat: int, version: int) -> None:
        """A click drawn at an older version stands only where several seats were awaited at
        once (each on its own dice: Apple Jack's last turn, Hot Score's challenge throw), the
        clicker among them, and it has not moved since: then the moves in between were other
        seats', which never touch its options. Anything else is a stale board or a double click.
        """
        stale = Stale("That was already played: the board has moved on.")
        if version > live.row.version:
            raise stale
        moves = await self.store.moves(live.id)
        if any(move.seat == seat for move in moves[version:]):
            raise stale
        engine = self.engine(live.row.kind)
        awaited = engine.to_act(self._replayed(live.row, moves[:version]))
        if seat not in awaited or len(awaited) < 2 or seat not in engine.to_act(live.state):
            raise stale

    def _timeout_moves(self, live: Live) -> tuple[Any, list[Move], dict[int, int]]:
        engine = self.engine(live.row.kind)
        state = live.state
        moves: list[Move] = []
        counts: dict[int, int] = {}
        for action in engine.timeout_actions(state):
            if action.seat not in engine.to_act(state):
                continue  # an earlier timeout in this batch ended the game or their turn
            state = engine.apply(state, action)
            moves.append(Move(action.seat, *engine.format(action), None, MoveSource.TIMEOUT))
            counts[action.seat] = live.row.players[action.seat].timeouts + 1
            if counts[action.seat] >= TIMEOUTS_TO_FORFEIT:
                state = engine.forfeit(state, action.seat)
                moves.append(Move(action.seat, FORFEIT_VERB, "", None, MoveSource.FORFEIT))
        return state, moves, counts

    async def _commit(
        self,
        live: Live,
        state: Any,
        moves: list[Move],
        timeouts: dict[int, int],
        present: Show | None,
    ) -> Live:
        row = live.row
        engine = self.engine(row.kind)
        status, deadline = GameStatus.ACTIVE, None
        results: tuple[Result, ...] = ()
        rating = None
        if engine.is_over(state):
            ranked = engine.results(state)
            status = GameStatus.FINISHED if any(r.won for r in ranked) else GameStatus.ABANDONED
            if status is GameStatus.FINISHED:
                results = _results(row, ranked)
                rating = _rating(row, ranked)
        elif engine.to_act(state):
            deadline = self.clock() + await self.settings.turn_seconds(row.guild_id)
        change = Commit(
            row.id,
            row.version,
            engine.dump(state),
            moves,
            status,
            deadline,
            timeouts,
            results,
            rating,
        )
        if not await self.store.commit(change):
            raise Stale("That was already played: the board has moved on.")
        fresh = Live(_committed(row, change), state, tuple(moves))  # no reload: what was written
        await self.show(fresh, present)
        for hook in self.on_commit:
            hook(fresh)
        return fresh


def _committed(row: GameRow, change: Commit) -> GameRow:
    """The row as :meth:`Store.commit` has just written it."""
    players = tuple(
        replace(p, timeouts=change.timeouts.get(p.seat, p.timeouts)) for p in row.players
    )
    return replace(
        row,
        state=change.state,
        version=change.expected_version + len(change.moves),
        status=change.status,
        deadline=change.deadline,
        updated_at=time.time(),
        players=players,
    )


def rating_key(player: Player) -> int:
    """Who a seat is for ratings: the person, or Orchard at its level (-1 easy .. -3 hard)."""
    if not player.is_bot:
        return player.user_id
    return -(LEVELS.index(player.level) + 1) if player.level in LEVELS else -2


def _rating(row: GameRow, ranked: list[SeatResult]) -> RatingUpdate | None:
    """Games of two or more seats are rated; with Orchard at the table, in a pool of its own."""
    if len(row.players) < 2:
        return None
    pool = RatingPool.ORCHARD if any(p.is_bot for p in row.players) else RatingPool.PEOPLE
    places: dict[int, int] = {}
    for r in sorted(ranked, key=lambda r: r.placement):
        # Orchard twice at one level is one player: it is rated by its better seat.
        places.setdefault(rating_key(row.players[r.seat]), r.placement)
    if len(places) < 2:
        return None
    return RatingUpdate(pool, list(places.items()), rate)


def _results(row: GameRow, ranked: list[SeatResult]) -> tuple[Result, ...]:
    """The stored standings; a solo game is stored unwon: it counts for high scores only."""
    players = row.players
    contest = len(ranked) > 1
    return tuple(
        Result(
            r.seat,
            players[r.seat].user_id,
            players[r.seat].is_bot,
            r.score,
            r.placement,
            r.won and contest,
        )
        for r in ranked
    )
