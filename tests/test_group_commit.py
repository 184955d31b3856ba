"""SQLite's writer commits transactions in groups (see ``db.sqlite``): on a real file, what
each caller is promised still holds: its writes are durable when it returns, a failing
transaction rolls back alone, a failed commit fails everyone it carried, and a large one
never runs its statements on the event loop."""

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from db.sqlite import SqliteDatabase


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

    async def broken() -> None:
        async with db.transaction() as tx:
            await tx.execute("INSERT INTO notes (n, body) VALUES (100, 'half done')")
            raise RuntimeError("refused half-way")

    try:
        outcomes = await asyncio.gather(
            note(db, 1), broken(), note(db, 2), note(db, 1), return_exceptions=True
        )
        assert outcomes[0] is None and outcomes[2] is None
        assert isinstance(outcomes[1], RuntimeError)
        assert isinstance(outcomes[3], sqlite3.IntegrityError)  # the same key twice
        assert stored(tmp_path / "o.db") == [1, 2]
        assert statements.count("COMMIT") == 1, "the failures did not end the group"
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
        outcomes = await asyncio.gather(note(db, 1), dangling(), return_exceptions=True)
        assert all(isinstance(o, sqlite3.IntegrityError) for o in outcomes), outcomes
        assert stored(tmp_path / "o.db") == []
        await note(db, 2)  # the writer goes on
        assert stored(tmp_path / "o.db") == [2]
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

    def slow_commit(sql: str) -> None:  # the trace runs on the writer's thread, at COMMIT
        if sql == "COMMIT":
            hold.wait(10)

    db.conn.set_trace_callback(slow_commit)
    try:
        writes = [asyncio.create_task(note(db, n)) for n in range(4)]
        while db._committing is None:
            await asyncio.sleep(0)  # until all four are in the group, and its COMMIT waits
        writes[1].cancel()
        hold.set()
        outcomes = await asyncio.gather(*writes, return_exceptions=True)
        assert isinstance(outcomes[1], asyncio.CancelledError)
        assert [o for i, o in enumerate(outcomes) if i != 1] == [None, None, None]
        assert stored(tmp_path / "o.db") == [0, 1, 2, 3]
        await note(db, 4)  # the writer goes on
        assert stored(tmp_path / "o.db") == [0, 1, 2, 3, 4]
    finally:
        hold.set()
        await db.close()
