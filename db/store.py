"""Orchard's store: the one object the bot holds, composing the storage topics.

Each topic module (``db.games``, ``db.results``, ``db.settings``, ``db.daily``, ``db.meta``) owns
its tables, their SQL, and what /forget-me and the purge of a departed server delete of them;
the Store opens the database (``db.connection``: SQLite or PostgreSQL) and runs the topics'
writes in transactions.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.daily import DailyChannel, day_of
from bot.model import (
    Due,
    GameChange,
    GameRow,
    GameSummary,
    KindStats,
    Move,
    PastGame,
    Player,
    TurnPing,
    Viewer,
)
from bot.recent import Recent
from db import daily, games, meta, results, settings
from db.backends import open_database
from db.connection import Database, Dialect, Target, Transaction
from db.migrate import NEWEST, check_known
from db.session import GameSession, changes_results
from db.shared import SharedLocks

log = logging.getLogger(__name__)


class Topic(Protocol):
    """What a topic module gives up when a person uses /forget-me or a server is purged, and
    where it holds a person's rows (queries of the servers, each taking their id)."""

    PERSON_SERVERS: tuple[str, ...]

    async def forget(self, tx: Transaction, guild_id: int, user_id: int) -> int: ...

    async def purge(self, tx: Transaction, guild_id: int) -> None: ...


# In the order /forget-me and the purge visit them: results before the games they point at.
TOPICS: tuple[Topic, ...] = (daily, results, games, settings, meta)


async def _forget_in(tx: Transaction, guild_id: int, user_id: int) -> int:
    """Every topic's erasure of the person in one server; returns the rows deleted (and seats
    made a former player's)."""
    return sum([await topic.forget(tx, guild_id, user_id) for topic in TOPICS])


async def _servers_of(db: Database | Transaction, user_id: int) -> list[int]:
    """The servers where the person has rows, by each topic's :attr:`Topic.PERSON_SERVERS`."""
    queries = [sql for topic in TOPICS for sql in topic.PERSON_SERVERS]
    rows = await db.fetchall(" UNION ".join(queries), (user_id,) * len(queries))
    return sorted(int(r[0]) for r in rows)


CHUNK = 500  # ids in one query: well under SQLite's limit of bound parameters


class _GuardFailed(Exception):
    """Rolls back a batch in which one change's guard failed."""


STANDINGS_KEPT = 256  # standings computed, kept until results change (a store one process writes)
# How long standings are kept on a store several processes share, where another process's
# results cannot be counted here: boards there may be this old, as a server's settings may.
SHARED_STANDINGS_SECONDS = 5.0

Ranked = list[tuple[int, float, int]]  # (user, value, games), best first
Leaderboard = tuple[Ranked, dict[int, results.Record]]
StandingsKey = tuple[int, str, bool]  # server, game, whether lower is better
Generation = tuple[int, int]  # kept standings': changes anywhere, and to their server's game
GAME_OF = "SELECT guild_id, kind FROM games WHERE id = ?"


@dataclass
class _Standings:
    """One server's standings in one game, as computed at ``generation``: each person's
    record (the aggregate every leaderboard of that game shares, by wins, best or average
    alike), and the orders ranked from it so far."""

    generation: Generation
    computed: float
    records: dict[int, results.Record]
    orders: dict[str, Leaderboard] = field(default_factory=dict)


class _OnePerServer:
    """One heavy read per server at a time: a burst of boards in one server (each game's
    aggregate, each 20-55 ms at 40,000 results) queues behind its own, and leaves the other
    read connections to the other servers. A server's lock lives while it is wanted."""

    def __init__(self) -> None:
        self._wanted: dict[int, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def turn(self, guild_id: int) -> AsyncIterator[None]:
        lock, wanting = self._wanted.get(guild_id) or (asyncio.Lock(), 0)
        self._wanted[guild_id] = (lock, wanting + 1)
        try:
            async with lock:
                yield
        finally:
            lock, wanting = self._wanted[guild_id]
            if wanting == 1:
                del self._wanted[guild_id]
            else:
                self._wanted[guild_id] = (lock, wanting - 1)


class Store:
    def __init__(
        self,
        db: Database,
        locks: SharedLocks | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.db = db
        self.clock = clock  # how old a board kept on a shared store is
        self.locks = locks  # how processes sharing the database coordinate (None: SQLite)
        # Standings as computed, each with the generations of results it was computed at:
        # their aggregate reads every result of a game in a server (20 ms for 40,000), and one
        # person repeating /leaderboard must not cost the other servers a core. Counted per
        # server and game: in a game night some game ends somewhere several times a second.
        self._standings: Recent[StandingsKey, _Standings] = Recent(STANDINGS_KEPT)
        # Standings being computed: asked for again meanwhile (a burst of /leaderboard, the
        # cache cold), a board at the same generation waits for that aggregate, not its own.
        self._computing: dict[tuple[StandingsKey, Generation], asyncio.Future[_Standings]] = {}
        self._heavy = _OnePerServer()
        self._changed_all = 0  # commits that may have changed any server's results
        self._changed: dict[tuple[int, str], int] = {}  # those of one server's one game
        # Told as soon as rows were rewritten behind every cache (an erasure, a purge): what
        # the runner and the settings keep of them must be read afresh from then on.
        self.on_rewritten: list[Callable[[], None]] = []

    @classmethod
    async def open(cls, target: Target) -> Store:
        """Open (creating folders and schema as needed) the database ``target`` names: a
        SQLite file's path, or a ``postgresql://`` URL."""
        db = await open_database(target)
        if db.dialect is Dialect.SQLITE:
            return cls(db)
        schema = await db.fetchall("SELECT current_schema()")
        return cls(db, SharedLocks(str(schema[0][0])))

    async def close(self) -> None:
        if self.locks is not None:
            await self.locks.resign(self._pool)
        await self.db.close()

    # Games.

    async def create_game(
        self,
        kind: str,
        guild_id: int,
        channel_id: int,
        host: Player,
        *,
        seed: int,
        options: dict[str, Any] | None = None,
        variant: str = "",
        deadline: float | None = None,
    ) -> int:
        async with self.db.transaction() as tx:
            return await games.create_game(
                tx,
                kind,
                variant,
                guild_id,
                channel_id,
                host,
                seed,
                options or {},
                deadline,
                time.time(),
            )

    # Processes sharing the database (see db.shared); on SQLite there is one process.

    @property
    def shared(self) -> bool:
        """Several processes may use this database at once (never a SQLite file)."""
        return self.locks is not None

    @property
    def _pool(self) -> Any:
        return getattr(self.db, "pool", None)

    @asynccontextmanager
    async def game(self, game_id: int) -> AsyncIterator[GameSession]:
        """One game held for a change (the caller holds its in-process lock). On SQLite,
        the store's reads and writes as they are; shared, one transaction that takes the
        game's lock across processes first: load, apply and commit happen inside it."""
        if self.locks is None:
            yield GameSession(self.db, game_id, on_results=self.game_results_changed)
            return
        async with self.db.transaction() as tx:
            await self.locks.lock_game(tx, game_id)
            session = GameSession(self.db, game_id, tx)
            yield session
        await self._committed(session)

    @asynccontextmanager
    async def claim(
        self, due: Due, upto: float, skip: set[int]
    ) -> AsyncIterator[GameSession | None]:
        """The open game soonest due for ``due`` by ``upto``, not in ``skip``, held as
        :meth:`game` holds it, that no other process holds; None if there is none (a game
        held elsewhere is added to ``skip``). Shared stores only."""
        if self.locks is None:
            raise NotImplementedError("one process on SQLite: the scheduler lists what is due")
        async with self.db.transaction() as tx:
            game_id = await self.locks.claim_due(tx, due, upto, skip)
            session = None if game_id is None else GameSession(self.db, game_id, tx)
            yield session
        if session is not None:
            await self._committed(session)

    async def _committed(self, session: GameSession) -> None:
        """A shared session's transaction committed: its results are on this process's boards
        at once (other processes' within :data:`SHARED_STANDINGS_SECONDS`)."""
        if session.wrote_results:
            await self.game_results_changed(session.game_id)

    async def try_lead(self) -> bool:
        """Become the process that does the bot's chores, if none is (see bot.leader)."""
        return self.locks is None or await self.locks.try_lead(self._pool)

    async def still_leading(self) -> bool:
        return self.locks is None or await self.locks.still_leading(self._pool)

    async def identify_turn(self, bucket: int) -> float:
        """Wait for IDENTIFY ``bucket``'s turn among every process (shared stores only)."""
        if self.locks is None:
            raise NotImplementedError("one process on SQLite: discord.py paces its own shards")
        async with self.db.transaction() as tx:
            wait = await self.locks.identify_turn(tx, bucket)
        await asyncio.sleep(wait)  # holding no connection: moves need them meanwhile
        return wait

    async def get_game(self, game_id: int) -> GameRow | None:
        return await games.get_game(self.db, game_id)

    async def revision(self, game_id: int) -> int | None:
        """The game's last committed revision, by key (None if it is gone): whether a board
        drawn of it is still the latest, across the processes sharing the store."""
        return await games.revision(self.db, game_id)

    async def get_games(self, game_ids: Sequence[int]) -> list[GameRow]:
        """Many games at once (in chunks SQLite's parameter limit allows), in id order."""
        rows: list[GameRow] = []
        for start in range(0, len(game_ids), CHUNK):
            rows += await games.get_games(self.db, game_ids[start : start + CHUNK])
        return rows

    async def open_among(self, game_ids: Sequence[int]) -> set[int]:
        """Which of these games are still open (in chunks, as :meth:`get_games`)."""
        found: set[int] = set()
        for start in range(0, len(game_ids), CHUNK):
            found |= await games.open_among(self.db, game_ids[start : start + CHUNK])
        return found

    async def open_games(
        self, guild_id: int | None = None, channel_id: int | None = None, kind: str | None = None
    ) -> list[GameSummary]:
        return await games.open_games(self.db, guild_id, channel_id, kind)

    async def games_waiting_on_bots(self) -> list[int]:
        return await games.games_waiting_on_bots(self.db)

    async def moves(self, game_id: int) -> list[Move]:
        return await games.moves(self.db, game_id)

    async def next_due(self, due: Due) -> float | None:
        return await games.next_due(self.db, due)

    async def due_games(self, now: float) -> list[int]:
        return await games.due_games(self.db, now)

    async def write(self, change: GameChange) -> bool:
        """Apply ``change`` to its game in one transaction: row, seats, moves, results, rating.

        Returns False, writing nothing, when a guard fails (the game left ``from_status`` or
        moved past ``expected_version``: someone else got there first) or the game is gone.
        """
        session = GameSession(self.db, change.game_id, on_results=self.game_results_changed)
        return await session.write(change)

    async def write_many(self, changes: Sequence[GameChange]) -> bool:
        """Every change of ``changes`` in one transaction, or (False) none if a guard fails:
        after downtime, thousands of timeouts are written in seconds, not minutes."""
        now = time.time()
        try:
            async with self.db.transaction() as tx:
                if not await games.write_many(tx, changes, now):
                    raise _GuardFailed
                for change in changes:
                    await results.write(tx, change, now)
        except _GuardFailed:
            return False
        if any(map(changes_results, changes)):
            self.results_changed()
        return True

    # Appletters' private tiles.

    async def tile_dms(self, game_id: int) -> dict[int, tuple[str, bool]]:
        return await games.tile_dms(self.db, game_id)

    async def note_tile_dm(self, game_id: int, user_id: int, hand: str, *, closed: bool) -> None:
        async with self.db.transaction() as tx:
            await games.note_tile_dm(tx, game_id, user_id, hand, closed)

    async def forget_tile_dms(self, game_id: int) -> None:
        """A finished game sends no more tiles: its notes go."""
        async with self.db.transaction() as tx:
            await games.forget_tile_dms(tx, game_id)

    # Turn pings.

    async def turn_ping(self, game_id: int) -> TurnPing | None:
        return await games.turn_ping(self.db, game_id)

    async def turn_pings_behind(self) -> list[tuple[int, bool]]:
        return await games.turn_pings_behind(self.db)

    async def set_turn_ping(self, ping: TurnPing) -> tuple[bool, int | None]:
        """Record ``ping`` unless a newer version's is stored: whether it was written, and on a
        shared store the message the record it replaced held (see games.set_turn_ping)."""
        async with self.db.transaction() as tx:
            if self.locks is not None:  # no move of the game commits meanwhile
                await self.locks.lock_game(tx, ping.game_id)
            return await games.set_turn_ping(tx, ping)

    async def drop_turn_ping(self, game_id: int) -> int | None:
        """Drop a game's record; the message it held (see games.drop_turn_ping)."""
        async with self.db.transaction() as tx:
            return await games.drop_turn_ping(tx, game_id)

    # Results and leaderboards.

    async def leaderboard(
        self, guild_id: int, kind: str, by: str, *, lower_is_better: bool = False
    ) -> list[tuple[int, float, int]]:
        return await results.leaderboard(self.db, guild_id, kind, by, lower_is_better)

    async def leaderboard_with_records(
        self, guild_id: int, kind: str, by: str, *, lower_is_better: bool = False
    ) -> Leaderboard:
        """A server's leaderboard and its lines' figures (read-only: they may be shared), from its
        standings in that game (:meth:`_standings_of`): ranked once per order, and by rating
        read once, until they are computed again."""
        standings = await self._standings_of(guild_id, kind, lower_is_better)
        found = standings.records
        if by not in standings.orders:
            if by != "rating":
                standings.orders[by] = (results.ranked(found, by, lower_is_better), found)
            else:
                async with self._heavy.turn(guild_id):
                    if by not in standings.orders:  # not read by another asker meanwhile
                        rated = await results.rated(self.db, guild_id, kind)
                        standings.orders[by] = (rated, found)
        return standings.orders[by]

    async def _standings_of(self, guild_id: int, kind: str, lower_is_better: bool) -> _Standings:
        """A server's standings in one game. On a store only this process writes, computed
        once until that server's results of that game change: every write of results goes
        through this Store, which counts them after they commit (an erasure or a purge,
        everywhere). On a shared store another process may have written since, so they are
        kept :data:`SHARED_STANDINGS_SECONDS` at most: someone repeating /leaderboard costs one
        aggregate per game per few seconds, not one each. Asked for while being computed,
        they wait for that aggregate; one server's aggregates run one at a time."""
        key = (guild_id, kind, lower_is_better)
        generation = self._generation(guild_id, kind)  # before reading: a write meanwhile
        now = self.clock()  # leaves it old, and its age counts from before the read
        if key in self._standings:
            kept = self._standings.get(key)
            if kept.generation == generation and (
                not self.shared or kept.computed <= now < kept.computed + SHARED_STANDINGS_SECONDS
            ):
                return kept
        flight = (key, generation)
        computing = self._computing.get(flight)
        if computing is None:
            computing = asyncio.ensure_future(self._aggregate(flight, now))
            self._computing[flight] = computing
            computing.add_done_callback(lambda done: self._computed(flight, done))
        return await asyncio.shield(computing)

    async def _aggregate(self, flight: tuple[StandingsKey, Generation], now: float) -> _Standings:
        (guild_id, kind, lower_is_better), generation = flight
        async with self._heavy.turn(guild_id):
            found = await results.records(self.db, guild_id, kind, lower_is_better)
        return _Standings(generation, now, found)

    def _computed(
        self, flight: tuple[StandingsKey, Generation], done: asyncio.Future[_Standings]
    ) -> None:
        """An aggregate is over: its standings kept if it succeeded (its askers may be gone)."""
        del self._computing[flight]
        if not done.cancelled() and done.exception() is None:
            self._standings.keep(flight[0], done.result())

    def _generation(self, guild_id: int, kind: str) -> Generation:
        return self._changed_all, self._changed.get((guild_id, kind), 0)

    async def game_results_changed(self, game_id: int) -> None:
        """A game's results, ratings or erasures were committed: its server's boards of it
        are old (its server and game read back by key). The results are committed by now: a
        failed read makes every board old rather than fail the move that wrote them."""
        try:
            found = await self.db.lookup(GAME_OF, (game_id,))
        except Exception:
            log.warning("game %s: its results' server could not be read back", game_id)
            found = []
        if not found:
            self.results_changed()
            return
        guild_id, kind = found[0]
        self._changed[(guild_id, kind)] = self._changed.get((guild_id, kind), 0) + 1

    def _rewritten(self) -> None:
        """Rows were rewritten behind every cache: boards, and each hook's keeping, are old."""
        self.results_changed()
        for hook in self.on_rewritten:
            hook()

    def results_changed(self) -> None:
        """Results, ratings or erasures were committed, anywhere: every board kept is old."""
        self._changed_all += 1
        self._standings.clear()

    async def records(
        self, guild_id: int, kind: str, *, lower_is_better: bool = False
    ) -> dict[int, results.Record]:
        return await results.records(self.db, guild_id, kind, lower_is_better)

    async def user_stats(self, guild_id: int, user_id: int) -> list[KindStats]:
        return await results.user_stats(self.db, guild_id, user_id)

    async def rating_history(
        self, guild_id: int, user_id: int, kind: str, pool: str = "people", limit: int = 30
    ) -> list[tuple[float, float, float]]:
        return await results.rating_history(self.db, guild_id, user_id, kind, pool, limit)

    async def history(
        self,
        guild_id: int,
        user_id: int,
        kind: str | None = None,
        limit: int = 10,
        viewer: Viewer | None = None,
    ) -> list[PastGame]:
        return await results.history(self.db, guild_id, user_id, kind, limit, viewer)

    # People and servers leaving.

    async def forget_user(self, guild_id: int, user_id: int) -> int:
        """/forget-me: erase a person from one server; returns the rows deleted, and the seats
        in games over made a former player's.

        Their results, ratings, rating history, turn-ping choice and daily plays go (of a play
        of today, all but the fact of it until the day ends: :func:`db.daily.forget`); in the
        server's games that are over their tile-DM notes go too, and their seats, moves and
        hosting stay without their name or id (see each topic); the boards of those games
        still posted are queued, in the same transaction, to be drawn anew
        (:meth:`next_to_draw`). Games still open are left to the caller,
        which forfeits them first. On SQLite, deleted and overwritten rows are zeroed
        (``secure_delete``) and the -wal file is emptied after, so old copies do not linger
        (see :meth:`SqliteDatabase.checkpoint` for the one limit); PostgreSQL keeps dead rows
        in its files until (auto)vacuum reuses their space, and in its write-ahead log until
        it is recycled.
        """
        async with self.db.transaction(large=True) as tx:
            removed = await _forget_in(tx, guild_id, user_id)
        await self._erased()
        return removed

    async def forget_everywhere(self, user_id: int) -> tuple[int, int]:
        """/forget-me in a direct message: :meth:`forget_user`'s erasure in every server holding
        the person's rows, and their place on the daily board across servers (which they may
        hold with no row in any server), in one transaction: a failure leaves them as they
        were, never erased in some servers only. Returns the servers and the rows deleted."""
        async with self.db.transaction(large=True) as tx:
            servers = await _servers_of(tx, user_id)
            removed = sum([await _forget_in(tx, guild_id, user_id) for guild_id in servers])
            removed += await daily.forget_world(tx, user_id)
        await self._erased()
        return len(servers), removed

    async def next_to_draw(self, after: int = 0) -> tuple[int, int] | None:
        """The next game (by id, after ``after``) whose posted board /forget-me queued to be
        drawn anew, with its count of erasures for :meth:`drawn_anew`."""
        return await games.next_to_draw(self.db, after)

    async def queue_boards(self, game_ids: Sequence[int]) -> None:
        """Queue these games' boards to be drawn anew (:meth:`next_to_draw`): a stop cut off
        their drawing. A game gone meanwhile (a purge) is passed over."""
        if game_ids:
            async with self.db.transaction() as tx:
                await games.queue_boards(tx, game_ids)

    async def queue_changed_since(self, since: float) -> int:
        """Queue the boards of every game changed since ``since`` (a Unix time) to be drawn
        anew: what a crash may have left undrawn. How many were queued."""
        async with self.db.transaction() as tx:
            return await games.queue_changed_since(tx, since)

    async def drawn_anew(self, game_id: int, queued: int) -> None:
        """The game's board was drawn anew for its ``queued`` erasures: off the queue."""
        async with self.db.transaction() as tx:
            await games.drawn_anew(tx, game_id, queued)

    async def servers_of(self, user_id: int) -> list[int]:
        """The servers where the person has rows /forget-me erases (by each topic's word)."""
        return await _servers_of(self.db, user_id)

    async def _erased(self) -> None:
        """After an erasure's commit: the runner and settings read afresh, and (SQLite) the
        -wal file is emptied of the old copies."""
        self._rewritten()
        await self.db.checkpoint()

    async def guild_left(self, guild_id: int, when: float) -> None:
        async with self.db.transaction() as tx:
            await settings.guild_left(tx, guild_id, when)

    async def has_left(self, guild_id: int) -> bool:
        """Whether Orchard left the server (and it has not invited Orchard back since)."""
        return guild_id in await settings.departed(self.db)

    async def guild_returned(self, guild_id: int) -> None:
        async with self.db.transaction() as tx:
            await settings.guild_returned(tx, guild_id)

    async def servers_stored(self) -> set[int]:
        """Every server with a game, settings or a ping choice here (a game's index each)."""
        rows = await self.db.fetchall(
            "SELECT guild_id FROM games UNION SELECT guild_id FROM guild_settings"
            " UNION SELECT guild_id FROM ping_choices"
        )
        return {int(r[0]) for r in rows}

    async def guilds_present(self, guild_ids: Sequence[int]) -> None:
        """Servers Orchard is in (a shard's, at start-up): none of them is due for the purge,
        even one that invited Orchard back while it was down (no join is heard then)."""
        for guild_id in sorted(await settings.departed(self.db) & set(guild_ids)):
            await self.guild_returned(guild_id)

    async def purge_departed(self, before: float, today: int | None = None) -> list[int]:
        """Remove every row of servers the bot left before ``before``, and what /forget-me
        kept of daily plays of days before ``today`` (the wall clock's by default); returns
        the servers."""
        async with self.db.transaction(large=True) as tx:
            gone = await settings.take_departed(tx, before)
            for guild_id in gone:
                for topic in TOPICS:
                    await topic.purge(tx, guild_id)
            await daily.expire(tx, day_of(time.time()) if today is None else today)
        self._rewritten()
        if gone:
            await self.db.checkpoint()
        return gone

    # Settings and bookkeeping.

    async def guild_settings(self, guild_id: int) -> dict[str, Any]:
        return await settings.guild_settings(self.db, guild_id)

    async def guilds_settings(self, guild_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
        """Many servers' stored settings in one query (a server absent has none stored)."""
        return await settings.guilds_settings(self.db, guild_ids)

    async def set_guild_settings(self, guild_id: int, values: dict[str, Any]) -> None:
        async with self.db.transaction() as tx:
            await settings.set_guild_settings(tx, guild_id, values, time.time())

    async def daily_channel(self, guild_id: int) -> DailyChannel | None:
        """Where the server's board of yesterday's Daily Orchard is posted (None: nowhere)."""
        return await daily.DailyStore(self.db).channel(guild_id)

    async def daily_channels(self, guild_ids: Sequence[int]) -> dict[int, DailyChannel]:
        """The daily board's channel of each of many servers choosing one, in one query."""
        return await daily.DailyStore(self.db).channels(guild_ids)

    async def update_guild_settings(self, guild_id: int, change: settings.Change) -> dict[str, Any]:
        """Apply ``change`` to the server's settings as stored when it is written: atomic, on
        either backend and across processes (see :func:`db.settings.update_guild_settings`)."""
        async with self.db.transaction() as tx:
            return await settings.update_guild_settings(tx, guild_id, change, time.time())

    async def ping_choice(self, guild_id: int, user_id: int) -> bool | None:
        return await settings.ping_choice(self.db, guild_id, user_id)

    async def set_ping_choice(self, guild_id: int, user_id: int, dm: bool) -> None:
        async with self.db.transaction() as tx:
            await settings.set_ping_choice(tx, guild_id, user_id, dm, time.time())

    async def check_schema(self) -> None:
        """Raise :class:`db.migrate.NewerSchema` once another process has migrated the store
        past what this code knows: a newer Orchard started beside this one."""
        rows = await self.db.fetchall(NEWEST)
        check_known(int(rows[0][0]), self.db.dialect)

    async def get_meta(self, key: str) -> str | None:
        return await meta.get_meta(self.db, key)

    async def set_meta(self, key: str, value: str) -> None:
        async with self.db.transaction() as tx:
            await meta.set_meta(tx, key, value)
