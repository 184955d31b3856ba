"""The SQLite backend of :class:`db.connection.Database`: a file, and how it is used safely.

One writer, in autocommit mode, whose transactions are **committed in groups**. A commit waits
for the disk (``synchronous = FULL``: an fsync); a transaction's statements only touch pages in
memory. So the statements of a transaction (and the ``BEGIN`` of a group, whenever no other
process holds the write lock) run inline, on the event loop, in microseconds and without a
hand-off to another thread, inside a ``SAVEPOINT`` of their own (but a group's first); and
the transactions that finish while one group's ``COMMIT`` is on the writer's thread are
committed together by the next. Each caller still returns only once its own writes are
durable, and a transaction that fails rolls back alone (to its savepoint). With one hand-off
per statement, a move held the writer for five trips through a busy loop, and every other move
queued behind it.

A transaction that may touch many rows (``large``: erasing a person or a server) runs its
statements on the writer's thread instead, so the loop is never held for long.

Reads go to read-only connections of their own, each on its own thread: WAL lets them read
the last commit while the writer writes, so a leaderboard's aggregate never queues a move
behind it. Parameterised SQL only.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import aiosqlite

from db.connection import Dialect, Params, Row
from db.migrate import migrate

log = logging.getLogger(__name__)

BUSY_MS = 5000  # how long a connection waits for another process's lock before it fails
PRAGMAS = (
    f"PRAGMA busy_timeout = {BUSY_MS}",  # first: another opener may hold the file's lock
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = FULL",
    "PRAGMA foreign_keys = ON",
    "PRAGMA secure_delete = ON",  # deleted and overwritten rows are zeroed, not left in free space
)


READERS = 2  # read connections: one per core is enough for reads that wait on the disk
READER_PRAGMAS = ("PRAGMA query_only = ON", f"PRAGMA busy_timeout = {BUSY_MS}")
# Every transaction's savepoint has this one name: they never nest (one body at a time), and
# a new name each time made two new statement texts a transaction, each compiled anew and
# passed through sqlite3's cache of 128 statements.
SAVEPOINT = "tx"
GROUP_MOST = 64  # transactions committed together at most, so a steady stream still commits

T = TypeVar("T")
Run = Callable[..., Any]  # runs a function on the writer: inline, or on its thread


class SqliteTransaction:
    """One transaction's statements on the writer, run by ``run`` (inline or on its thread)."""

    dialect = Dialect.SQLITE

    def __init__(self, conn: sqlite3.Connection, run: Run) -> None:
        self.conn, self._run = conn, run

    async def execute(self, sql: str, params: Params = ()) -> int:
        return cast(int, await self._run(_changed, self.conn, sql, params))

    async def executemany(self, sql: str, rows: Iterable[Params]) -> int:
        return cast(int, await self._run(_changed_many, self.conn, sql, list(rows)))

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        return cast(list[Row], await self._run(_rows, self.conn, sql, params))

    async def lookup(self, sql: str, params: Params = ()) -> list[Row]:
        return await self.fetchall(sql, params)

    async def insert(self, sql: str, params: Params = ()) -> int:
        return int((await self.fetchall(sql, params))[0][0])


class _Waiters:
    """Those awaiting one outcome (a commit), each on a future of its own: settling them wakes
    each in one turn of the loop (``asyncio.shield`` on a shared future takes two, and every
    turn of a busy loop is a queue), and a waiter cancelled is only itself cancelled."""

    def __init__(self) -> None:
        self._futures: list[asyncio.Future[None]] = []

    def __len__(self) -> int:
        return len(self._futures)

    def wait(self) -> asyncio.Future[None]:
        waiter = asyncio.get_running_loop().create_future()
        self._futures.append(waiter)
        return waiter

    def settle(self, err: BaseException | None = None) -> None:
        for waiter in self._futures:
            if waiter.done():
                continue  # cancelled
            if err is None:
                waiter.set_result(None)
            else:
                waiter.set_exception(err if isinstance(err, Exception) else RuntimeError(str(err)))
                waiter.add_done_callback(_seen)
        self._futures.clear()


@dataclass
class _Group:
    """The transactions of one open ``BEGIN``: committed together, or failed together."""

    members: _Waiters = field(default_factory=_Waiters)


class SqliteDatabase:
    """The writer and its thread, the readers, and the two ways in: a transaction and a read."""

    dialect = Dialect.SQLITE

    def __init__(
        self,
        conn: sqlite3.Connection,
        thread: ThreadPoolExecutor,
        readers: Sequence[aiosqlite.Connection],
        glance: sqlite3.Connection,
    ) -> None:
        self.conn = conn
        self.readers = tuple(readers)
        self.glance = glance  # keyed reads, on the loop
        self._thread = thread
        self._turn = itertools.count()
        self._reading = [0] * len(self.readers)  # each read connection's reads on their way
        self._body = asyncio.Lock()  # one transaction's statements at a time
        self._wanting = 0  # transactions waiting for their turn: they join the open group
        self._group: _Group | None = None  # begun, filling, not yet committing
        self._committing: _Waiters | None = None  # a COMMIT on the thread: who waits for it

    @classmethod
    async def open(cls, path: str | Path, readers: int = READERS) -> SqliteDatabase:
        """Open (creating folders and schema as needed) the database file at ``path``, its
        writer and its read connections."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        await asyncio.to_thread(_openable, path)
        await _prepared(path)
        thread = ThreadPoolExecutor(1, thread_name_prefix="sqlite-writer")
        writer = await asyncio.get_running_loop().run_in_executor(thread, _writer, str(path))
        readers_ = [await _reader(path) for _ in range(readers)]
        return cls(writer, thread, readers_, _glance(path))

    async def close(self) -> None:
        async with self._body:
            await self._settle()
        for reader in self.readers:
            await reader.close()
        self.glance.close()
        await self._on_thread(self.conn.close)
        self._thread.shutdown(wait=True)

    async def _on_thread(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)

    async def _on_thread_to_its_end(self, fn: Callable[..., T], *args: Any) -> T:
        """A large transaction's statement (its SAVEPOINT and RELEASE too), or an undo, on the
        thread. Cancelled meanwhile, the caller still waits for it: the body lock goes
        only once the thread is done with it, or the next transactions' statements, run on
        the loop, could come first and cross savepoints with it. A late RELEASE released
        another's savepoint, and a failure then rolled back the writes of those told they
        were committed; a late SAVEPOINT left a failed transaction's writes to be committed."""
        running = asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)
        cancelled = False
        while not running.done():
            try:
                await asyncio.shield(running)
            except asyncio.CancelledError:
                cancelled = True
        if cancelled:
            raise asyncio.CancelledError
        return running.result()

    @asynccontextmanager
    async def transaction(self, large: bool = False) -> AsyncIterator[SqliteTransaction]:
        """One transaction: its own savepoint in the open group. Leaves once the group that
        carries it is committed; rolls back alone on error. Cancelled once its body is done,
        its writes are still committed with the group (it just does not wait to hear so)."""
        self._wanting += 1
        waiting = True
        try:
            async with self._body:
                self._wanting, waiting = self._wanting - 1, False
                group = await self._begun()
                async with self._within(group, large) as tx:
                    yield tx
                committed = group.members.wait()
        finally:
            if waiting:
                self._wanting -= 1
            self._commit_soon()
        await committed

    @asynccontextmanager
    async def _within(self, group: _Group, large: bool) -> AsyncIterator[SqliteTransaction]:
        """A savepoint in ``group``: released on success, rolled back to on error. An error
        that ended the whole transaction (SQLite does that for a full disk, say) fails the
        group: its other members' writes were lost with it.

        The group's first member needs no savepoint (two statements fewer on most moves):
        nothing of anyone else's is in the group yet, so on error it rolls the group back."""
        tx = SqliteTransaction(self.conn, self._on_thread_to_its_end if large else _inline)
        first = not group.members
        if not first:
            await tx.execute(f"SAVEPOINT {SAVEPOINT}")
        try:
            yield tx
        except BaseException as err:
            await self._undo(group, err, _rolled_back if first else _roll_back_to)
            raise
        if not first:
            await tx.execute(f"RELEASE {SAVEPOINT}")

    async def _undo(
        self, group: _Group, err: BaseException, undo: Callable[[sqlite3.Connection], None]
    ) -> None:
        """Undo on the thread, queued behind whatever runs there, so it follows it. Cancelled
        meanwhile, the caller still waits for it: the next transaction may begin only once
        it is done, or its statements, run on the loop before it, would be undone with it."""
        try:
            await self._on_thread_to_its_end(undo, self.conn)
        finally:
            if not self.conn.in_transaction and self._group is group:
                self._group = None
                group.members.settle(err)

    async def _begun(self) -> _Group:
        """The open group, begun once the last one's commit is done: inline if the write lock
        is free, else on the thread, which may wait for it."""
        while self._committing is not None:
            await self._committing.wait()
        if self._group is None and not _begun_at_once(self.conn):
            try:
                await self._on_thread(_waiting(_changed), self.conn, "BEGIN IMMEDIATE", ())
            except BaseException:
                # A task cancelled while BEGIN runs (at shutdown) must leave nothing open.
                await asyncio.shield(self._on_thread(_rolled_back, self.conn))
                raise
        if self._group is None:
            self._group = _Group()
        return self._group

    def _commit_soon(self) -> None:
        """Commit the open group, unless transactions still waiting will join it first."""
        group = self._group
        if group is None or self._committing is not None or self._body.locked():
            return
        if self._wanting and len(group.members) < GROUP_MOST:
            return  # the next one's end calls this again
        self._group = None
        self._commit(group)

    def _commit(self, group: _Group, chain: bool = True) -> None:
        """Commit ``group`` on the thread; if transactions are already waiting (and
        ``chain``), begin the next group in the same trip, so they do not pay a trip of their
        own. The thread hands the outcome straight to the loop (no task, no awaited executor
        future, each a turn of the loop more): the disk's answer reaches the members, and the
        next group, in one turn."""
        loop = asyncio.get_running_loop()
        begin_next = chain and (self._wanting > 0 or self._body.locked())
        self._committing = _Waiters()

        def on_thread() -> None:
            try:
                begun, err = _committed(self.conn, begin_next), None
            except BaseException as failed:
                _rolled_back(self.conn)
                begun, err = False, failed
            loop.call_soon_threadsafe(self._committed, group, begun, err)

        self._thread.submit(on_thread)

    def _committed(self, group: _Group, begun: bool, err: BaseException | None) -> None:
        """(On the loop.) ``group``'s commit is over: tell its members and whoever waits."""
        group.members.settle(err)
        if begun:
            self._group = _Group()
        assert self._committing is not None
        waiting, self._committing = self._committing, None
        waiting.settle()

    async def _settle(self) -> None:
        """(Inside the body lock.) Every transaction so far committed: none open, none going."""
        while self._committing is not None:
            await self._committing.wait()
        if self._group is not None:
            group, self._group = self._group, None
            self._commit(group, chain=False)
            assert self._committing is not None
            await self._committing.wait()

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        """One read of the last commit, in one trip to a read connection's thread: the one
        with the fewest reads on their way (taking turns among equals), so a read never
        queues behind a long aggregate while another connection is free."""
        count = len(self.readers)
        start = next(self._turn)
        index = min(((start + k) % count for k in range(count)), key=self._reading.__getitem__)
        self._reading[index] += 1
        try:
            rows = await self.readers[index].execute_fetchall(sql, params)
        finally:
            self._reading[index] -= 1
        return cast(list[Row], list(rows))

    async def lookup(self, sql: str, params: Params = ()) -> list[Row]:
        """A keyed read of the last commit, inline: a game and its seats by id take tens of
        microseconds, less than a trip to a reader's thread and back through a busy loop."""
        return _rows(self.glance, sql, params)

    async def checkpoint(self) -> None:
        """Copy the -wal file into the database and empty it (TRUNCATE).

        Until then the -wal file keeps old copies of pages, with rows since deleted or
        overwritten: /forget-me and the purge call this once their rows are gone.
        ``secure_delete`` zeroes deleted rows and freed pages, but not the unused gap of a page
        SQLite rebuilt when it rebalanced its tree, where an older copy of a row can (rarely)
        remain; only VACUUM rewrites those, and it would hold every game for about a second
        per 50 MB, so it is not run here.
        """
        async with self._body:
            await self._settle()
            rows = await self._on_thread(
                _waiting(_rows), self.conn, "PRAGMA wal_checkpoint(TRUNCATE)", ()
            )
        if any(row[0] for row in rows):
            log.warning("a reader blocked the checkpoint: old pages stay in the -wal file for now")


OPEN_TRIES = 5  # a fresh file's set-up, tried again if another opener's lock refuses it


def _openable(path: str | Path) -> None:
    """Raise what opening ``path`` raises (a folder, a folder not writable), before aiosqlite
    tries: its failed connect leaves its thread to stop later, and when the caller's loop has
    closed by then (a start-up that ends on the error) that thread prints a traceback."""
    sqlite3.connect(str(path)).close()


async def _prepared(path: str | Path) -> None:
    """Put the file in WAL mode and migrate it. Two openers of one fresh file at once (the bot
    and an operator's command) can be refused without the busy timeout being waited: SQLite
    answers "locked" at once where waiting could deadlock (a statement whose read snapshot
    another's commit outdated, as two ``CREATE TABLE IF NOT EXISTS`` racing are). Each step
    is idempotent and each migration one transaction, so the whole set-up is tried again."""
    for attempt in range(1, OPEN_TRIES + 1):
        try:
            async with aiosqlite.connect(str(path), isolation_level=None) as conn:
                for pragma in PRAGMAS:
                    await conn.execute(pragma)
                await migrate(conn)
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or attempt == OPEN_TRIES:
                raise
            log.info("the database file was locked while set up; trying again (%s)", err)
            await asyncio.sleep(0.05 * attempt)


async def _inline(fn: Callable[..., T], *args: Any) -> T:
    """Run a statement on the loop: it touches pages in memory only (the commit waits)."""
    return fn(*args)


def _changed(conn: sqlite3.Connection, sql: str, params: Params) -> int:
    return conn.execute(sql, params).rowcount


def _changed_many(conn: sqlite3.Connection, sql: str, rows: list[Params]) -> int:
    return conn.executemany(sql, rows).rowcount


def _rows(conn: sqlite3.Connection, sql: str, params: Params) -> list[Row]:
    return cast(list[Row], conn.execute(sql, params).fetchall())


def _begun_at_once(conn: sqlite3.Connection) -> bool:
    """BEGIN IMMEDIATE on the loop, unless another process holds the write lock: whether it
    began. Nothing in the bot's own process can hold it then, so a group begun from idle (most
    groups, most moves) makes one trip through the loop to the writer's thread, its commit,
    instead of two. It never waits (the writer's busy timeout is 0, see :func:`_waiting`): an
    operator's command writing meanwhile leaves the wait for the thread."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as err:
        if err.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY:
            raise
        return False
    return True


def _waiting(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn(conn, ...)``, on the writer's thread, waiting up to :data:`BUSY_MS` for another
    process's lock. The writer's own timeout is 0, set once as it opens: setting it each way
    around every group's BEGIN on the loop cost more than the BEGIN itself."""

    def waited(conn: sqlite3.Connection, *args: Any) -> T:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        try:
            return fn(conn, *args)
        finally:
            conn.execute("PRAGMA busy_timeout = 0")

    return waited


def _committed(conn: sqlite3.Connection, begin_next: bool) -> bool:
    """COMMIT, then (``begin_next``) BEGIN the next group: whether it was begun. That BEGIN
    never waits either: were another process to hold the write lock, the group just
    committed would hear of its commit only once the other let go."""
    conn.execute("COMMIT")
    if not begin_next:
        return False
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error:
        return False  # the next transaction begins on its own, and sees the error itself
    return True


def _roll_back_to(conn: sqlite3.Connection) -> None:
    """Undo one transaction's savepoint, if the transaction around it is still open."""
    if conn.in_transaction:
        conn.execute(f"ROLLBACK TO {SAVEPOINT}")
        conn.execute(f"RELEASE {SAVEPOINT}")


def _rolled_back(conn: sqlite3.Connection) -> None:
    """Roll back whatever is open (nothing, if a BEGIN failed)."""
    with contextlib.suppress(sqlite3.OperationalError):
        conn.execute("ROLLBACK")


def _seen(done: asyncio.Future[None]) -> None:
    """A group's failure is each member's to raise; one cancelled meanwhile leaves it unread,
    which is not an error."""
    if not done.cancelled():
        done.exception()


def _writer(path: str) -> sqlite3.Connection:
    """The write connection, opened on the writer's thread (statements also run inline:
    the body lock keeps the two from ever using it at once)."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    for pragma in PRAGMAS:
        conn.execute(pragma)
    conn.execute("PRAGMA busy_timeout = 0")  # it waits on its thread only: see _waiting
    return conn


def _glance(path: str | Path) -> sqlite3.Connection:
    """The read connection of keyed reads, used on the loop's thread only."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    for pragma in READER_PRAGMAS:
        conn.execute(pragma)
    return conn


async def _reader(path: str | Path) -> aiosqlite.Connection:
    """A connection that only reads: it sees every commit made before each of its reads."""
    conn = await aiosqlite.connect(str(path), isolation_level=None)
    for pragma in READER_PRAGMAS:
        await conn.execute(pragma)
    return conn
