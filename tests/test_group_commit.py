"""SQLite's writer commits transactions in groups (see ``db.sqlite``): on a real file, what
each caller is promised still holds: its writes are durable when it returns, a failing
transaction rolls back alone, a failed commit fails everyone it carried, and a large one
never runs its statements on the event loop."""

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from db import sqlite
from db.sqlite import GROUP_MOST, SAVEPOINT, SqliteDatabase


async def opened(path: Path) -> tuple[SqliteDatabase, list[str]]:
    """A database with a table of its own; the writer's statements recorded."""
    db = await SqliteDatabase.open(path)
    async with db.transaction() as tx:
        await tx.execute("CREATE TABLE IF NOT EXISTS notes (n INTEGER PRIMARY KEY, body TEXT)")
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    return db, statements


def stored(path: Path) -> list[int]:
    """What another connection, opened afresh, finds committed in the file."""
    with sqlite3.connect(path) as conn:
        return [n for (n,) in conn.execute("SELECT n FROM notes ORDER BY n")]


async def note(db: SqliteDatabase, n: int) -> None:
    async with db.transaction() as tx:
        await tx.execute("INSERT INTO notes (n, body) VALUES (?, ?)", (n, f"note {n}"))


async def broken(db: SqliteDatabase) -> None:
    """A transaction that writes, then fails half-way."""
    async with db.transaction() as tx:
        await tx.execute("INSERT INTO notes (n, body) VALUES (100, 'half done')")
        raise RuntimeError("refused half-way")


async def test_transactions_arriving_together_share_one_commit(tmp_path: Path) -> None:
    db, statements = await opened(tmp_path / "o.db")
    try:
        await asyncio.gather(*(note(db, n) for n in range(20)))
        assert stored(tmp_path / "o.db") == list(range(20))
        commits = statements.count("COMMIT")
        assert commits < 20, f"{commits} commits for 20 transactions"
        assert statements.count("BEGIN IMMEDIATE") == commits
    finally:
        await db.close()


async def test_each_caller_returns_once_its_write_is_committed(tmp_path: Path) -> None:
    db, _ = await opened(tmp_path / "o.db")
    try:
        for n in range(3):
            await note(db, n)
            assert stored(tmp_path / "o.db") == list(range(n + 1))
    finally:
        await db.close()


async def test_a_failing_transaction_rolls_back_alone(tmp_path: Path) -> None:
    db, statements = await opened(tmp_path / "o.db")
    try:
        # The first begins at once and commits alone; the rest wait for it and form one group.
        outcomes = await asyncio.gather(
            note(db, 0), note(db, 1), broken(db), note(db, 2), note(db, 1), return_exceptions=True
        )
        assert outcomes[:2] == [None, None] and outcomes[3] is None
        assert isinstance(outcomes[2], RuntimeError)
        assert isinstance(outcomes[4], sqlite3.IntegrityError)  # the same key twice
        assert stored(tmp_path / "o.db") == [0, 1, 2]
        assert statements.count("COMMIT") == 2, "the failures did not end the second group"
    finally:
        await db.close()


async def test_a_groups_first_transaction_needs_no_savepoint_yet_fails_alone(
    tmp_path: Path,
) -> None:
    """Nothing of anyone else's is in a group before its first member writes, so that member
    runs without a savepoint; failing, it rolls the group back, and those waiting begin anew."""
    db, statements = await opened(tmp_path / "o.db")
    try:
        tried = [broken(db), note(db, 1), note(db, 2)]
        outcomes = await asyncio.gather(*tried, return_exceptions=True)
        assert isinstance(outcomes[0], RuntimeError) and outcomes[1:] == [None, None]
        assert stored(tmp_path / "o.db") == [1, 2]
        # The broken one and the first note each began a group; the second note joined one.
        assert statements.count("BEGIN IMMEDIATE") == 2
        assert statements.count("ROLLBACK") == 1
        assert statements.count("SAVEPOINT tx") == statements.count("RELEASE tx") == 1
    finally:
        await db.close()


async def test_a_failed_commit_fails_every_transaction_it_carried(tmp_path: Path) -> None:
    """A deferred foreign key is checked only at COMMIT: one member's bad row fails the whole
    group, so nobody is told their write is durable when it is not."""
    db, _ = await opened(tmp_path / "o.db")
    async with db.transaction() as tx:
        await tx.execute(
            "CREATE TABLE tags (note INTEGER REFERENCES notes (n) DEFERRABLE INITIALLY DEFERRED)"
        )

    async def dangling() -> None:
        async with db.transaction() as tx:
            await tx.execute("INSERT INTO tags (note) VALUES (999)")

    try:
        # The first commits alone; the other two wait for it and are committed together.
        outcomes = await asyncio.gather(
            note(db, 0), note(db, 1), dangling(), return_exceptions=True
        )
        assert outcomes[0] is None
        assert all(isinstance(o, sqlite3.IntegrityError) for o in outcomes[1:]), outcomes
        assert stored(tmp_path / "o.db") == [0]
        await note(db, 2)  # the writer goes on
        assert stored(tmp_path / "o.db") == [0, 2]
    finally:
        await db.close()


@pytest.mark.parametrize("large", [False, True])
async def test_a_large_transaction_runs_on_the_writer_thread(tmp_path: Path, large: bool) -> None:
    db, _ = await opened(tmp_path / "o.db")
    db.conn.create_function("thread", 0, lambda: threading.current_thread().name)
    try:
        async with db.transaction(large=large) as tx:
            ((name,),) = await tx.fetchall("SELECT thread()")
        assert (name != threading.current_thread().name) is large
    finally:
        await db.close()


async def test_close_commits_what_was_begun(tmp_path: Path) -> None:
    db, _ = await opened(tmp_path / "o.db")
    writes = [asyncio.create_task(note(db, n)) for n in range(5)]
    await asyncio.sleep(0)
    await db.close()
    await asyncio.gather(*writes)
    assert stored(tmp_path / "o.db") == list(range(5))


async def test_a_caller_cancelled_while_its_group_commits_leaves_the_others_be(
    tmp_path: Path,
) -> None:
    """Each member waits on a future of its own: cancelling one (a click whose task is
    cancelled at shutdown, say) neither cancels the commit nor the others' wait. Its write,
    already in the group, is committed with them."""
    db, _ = await opened(tmp_path / "o.db")
    hold = threading.Event()
    commits: list[str] = []

    def slow_second_commit(sql: str) -> None:  # the trace runs on the writer's thread
        if sql == "COMMIT":
            commits.append(sql)
            if len(commits) == 2:
                hold.wait(10)

    db.conn.set_trace_callback(slow_second_commit)
    try:
        # The first commits alone; the other three wait for it, then form the second group.
        writes = [asyncio.create_task(note(db, n)) for n in range(4)]
        while len(commits) < 2:
            await asyncio.sleep(0)  # until the second group's COMMIT waits
        writes[2].cancel()
        hold.set()
        outcomes = await asyncio.gather(*writes, return_exceptions=True)
        assert isinstance(outcomes[2], asyncio.CancelledError)
        assert [o for i, o in enumerate(outcomes) if i != 2] == [None, None, None]
        assert stored(tmp_path / "o.db") == [0, 1, 2, 3]
        await note(db, 4)  # the writer goes on
        assert stored(tmp_path / "o.db") == [0, 1, 2, 3, 4]
    finally:
        hold.set()
        await db.close()


async def test_a_failed_transaction_cancelled_while_undone_undoes_only_itself(
    tmp_path: Path,
) -> None:
    """The undo of a failed transaction runs on the writer's thread, behind whatever runs
    there. Its caller cancelled meanwhile (a shutdown), the next transaction must still wait
    for it: begun on the loop before it, its writes would sit inside the failed one's
    savepoint and be undone with it (here its commit then fails: nothing is left open)."""
    db, statements = await opened(tmp_path / "o.db")
    await note(db, 0)

    async def note_1_lingering() -> None:
        """Note 1, still in its body when the failing one arrives: so both share a group,
        and the failing one undoes a savepoint of its own."""
        async with db.transaction() as tx:
            await tx.execute("INSERT INTO notes (n, body) VALUES (1, 'note 1')")
            await asyncio.sleep(0)

    hold = threading.Event()
    loop = asyncio.get_running_loop()
    busy = loop.run_in_executor(db._thread, hold.wait, 10)  # the thread, busy for now
    try:
        first, failed, last = (
            asyncio.create_task(w) for w in (note_1_lingering(), broken(db), note(db, 2))
        )
        while not any("half done" in s for s in statements):
            await asyncio.sleep(0)
        for _ in range(5):
            await asyncio.sleep(0)  # the failed one waits for its undo, behind the thread
        failed.cancel()
        for _ in range(20):
            await asyncio.sleep(0)  # time for the last one to begin, were it let in
        assert "SAVEPOINT" in " ".join(statements), "the failed one shares note 1's group"
        assert not any("note 2" in s for s in statements), "the last one waits for the undo"
        assert not busy.done(), "all of this happened while the thread was held"
        hold.set()
        await busy
        outcomes = await asyncio.gather(first, failed, last, return_exceptions=True)
        assert outcomes[0] is None and outcomes[2] is None
        assert isinstance(outcomes[1], asyncio.CancelledError)
        assert stored(tmp_path / "o.db") == [0, 1, 2]
    finally:
        hold.set()
        await db.close()


async def large_note(db: SqliteDatabase, n: int) -> None:
    async with db.transaction(large=True) as tx:
        await tx.execute("INSERT INTO notes (n, body) VALUES (?, ?)", (n, f"note {n}"))


@pytest.mark.parametrize(("held", "kept"), [("SAVEPOINT", [0, 1, 3]), ("RELEASE", [0, 1, 2, 3])])
async def test_a_large_transaction_cancelled_on_the_thread_holds_the_next_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held: str, kept: list[int]
) -> None:
    """A large transaction's statements run on the writer's thread, its SAVEPOINT and RELEASE
    too. Its caller cancelled while one is held there, the next transactions must still wait
    for it, as for an undo: run on the loop before it, their savepoints and its get crossed,
    and a failing one then rolls back to the wrong one. A late SAVEPOINT left a failed
    transaction's write committed; a late RELEASE released the failing one's savepoint, whose
    failure then took with it the writes of one already told they were committed. Cancelled
    once its body is done, the large one's writes are committed with its group, as a small
    one's are (see the test of a caller cancelled while its group commits)."""
    db, statements = await opened(tmp_path / "o.db")
    reached, hold = threading.Event(), threading.Event()
    changed = sqlite._changed

    def held_there(conn: sqlite3.Connection, sql: str, params: tuple[object, ...]) -> int:
        if sql == f"{held} {SAVEPOINT}" and threading.current_thread().name.startswith("sqlite"):
            reached.set()
            hold.wait(10)
        return changed(conn, sql, params)

    monkeypatch.setattr(sqlite, "_changed", held_there)
    try:
        # The first commits alone; the rest wait for it and form the second group, whose
        # first needs no savepoint: the large one comes second.
        tried = (note(db, 0), note(db, 1), large_note(db, 2), note(db, 3), broken(db))
        writes = [asyncio.create_task(w) for w in tried]
        assert await asyncio.to_thread(reached.wait, 5), f"the large one's {held}, held"
        writes[2].cancel()
        for _ in range(20):
            await asyncio.sleep(0)  # time for the next two to run, were they let in
        hold.set()
        outcomes = await asyncio.gather(*writes, return_exceptions=True)
        assert outcomes[:2] == [None, None] and outcomes[3] is None
        assert isinstance(outcomes[2], asyncio.CancelledError)
        assert isinstance(outcomes[4], RuntimeError)
        assert stored(tmp_path / "o.db") == kept, "\n".join(statements)
        await note(db, 4)  # the writer goes on
        assert stored(tmp_path / "o.db") == [*kept, 4]
    finally:
        hold.set()
        await db.close()


def begins(db: SqliteDatabase) -> list[str]:
    """The threads the writer's BEGINs run on, from now on (tried ones included)."""
    threads: list[str] = []

    def trace(sql: str) -> None:
        if sql == "BEGIN IMMEDIATE":
            threads.append(threading.current_thread().name)

    db.conn.set_trace_callback(trace)
    return threads


async def test_a_group_begins_on_the_loop_when_the_write_lock_is_free(tmp_path: Path) -> None:
    """Only the COMMIT goes to the writer's thread: a BEGIN there too cost every group begun
    from idle a second trip through a busy loop."""
    db, _ = await opened(tmp_path / "o.db")
    begun_on = begins(db)
    try:
        await note(db, 1)
        assert begun_on == [threading.current_thread().name]
    finally:
        await db.close()


async def test_another_process_holding_the_write_lock_holds_up_no_loop(tmp_path: Path) -> None:
    """Another writer (an operator's command, say) has the lock: the group waits for it on the
    writer's thread, never on the loop, and the loop's BEGINs go back to never waiting."""
    db, _ = await opened(tmp_path / "o.db")
    begun_on = begins(db)
    other = sqlite3.connect(tmp_path / "o.db", isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    try:
        write = asyncio.create_task(note(db, 1))
        await asyncio.sleep(0.2)  # the loop runs on meanwhile: this sleep ends
        assert not write.done()
        assert begun_on[0] == threading.current_thread().name  # tried here, found busy
        assert begun_on[1:] and all(name.startswith("sqlite-writer") for name in begun_on[1:])
        other.execute("COMMIT")
        await asyncio.wait_for(write, 5)
        assert stored(tmp_path / "o.db") == [1]
        assert db.conn.execute("PRAGMA busy_timeout").fetchone() == (0,)
    finally:
        other.close()
        await db.close()


async def test_a_commit_is_told_at_once_though_the_next_group_cannot_begin(
    tmp_path: Path,
) -> None:
    """The thread begins the next group right after a COMMIT, when transactions wait; if
    another process took the write lock in between, that BEGIN fails at once, so the group
    just committed hears of it now, and the next waits for the lock on its own."""
    db, _ = await opened(tmp_path / "o.db")
    other = sqlite3.connect(tmp_path / "o.db", isolation_level=None, check_same_thread=False)
    loop = asyncio.get_running_loop()
    released = loop.create_future()

    def take_the_lock_first(sql: str) -> None:  # just before the thread's BEGIN of the next
        if sql == "BEGIN IMMEDIATE" and threading.current_thread().name.startswith("sqlite-"):
            db.conn.set_trace_callback(None)
            other.execute("BEGIN IMMEDIATE")
            loop.call_soon_threadsafe(loop.call_later, 0.5, release)

    def release() -> None:
        other.execute("COMMIT")
        released.set_result(loop.time())

    db.conn.set_trace_callback(take_the_lock_first)
    try:
        # the first commits alone; the next GROUP_MOST fill a group while it does, and the
        # last waits for theirs: the group after, begun on the thread (or not)
        first = [asyncio.create_task(note(db, n)) for n in range(GROUP_MOST + 1)]
        last = asyncio.create_task(note(db, GROUP_MOST + 1))
        await asyncio.wait_for(asyncio.gather(*first), 5)
        assert not released.done(), "the group waited for the other's lock"
        await asyncio.wait_for(last, 5)
        assert released.done()
        assert stored(tmp_path / "o.db") == list(range(GROUP_MOST + 2))
    finally:
        other.close()
        await db.close()


async def test_a_checkpoint_waits_for_a_reader_on_the_writers_thread(tmp_path: Path) -> None:
    """The writer never waits on the loop (busy timeout 0), but a checkpoint after /forget-me
    must still wait out a reader of the old pages, on the thread, to empty the -wal file."""
    db, _ = await opened(tmp_path / "o.db")
    reader = sqlite3.connect(tmp_path / "o.db", isolation_level=None, check_same_thread=False)
    try:
        await note(db, 1)
        reader.execute("BEGIN")
        assert reader.execute("SELECT COUNT(*) FROM notes").fetchone() == (1,)  # a snapshot
        await note(db, 2)
        asyncio.get_running_loop().call_later(0.3, reader.execute, "COMMIT")
        await db.checkpoint()
        assert (tmp_path / "o.db-wal").stat().st_size == 0
        assert db.conn.execute("PRAGMA busy_timeout").fetchone() == (0,)
    finally:
        reader.close()
        await db.close()
