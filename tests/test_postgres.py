"""What PostgreSQL needs beyond the shared store tests: values that overflowed or lost
precision in SQLite's types there, migrations taken once by processes opening together, and
the rewriting of ``?`` placeholders."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest

from bot import health
from bot.model import GameChange, GameStatus, Player
from db.connection import Dialect, Target
from db.migrate import available
from db.postgres import (
    IDLE_IN_TRANSACTION_SECONDS,
    POOL_SIZE,
    PostgresDatabase,
    changed,
    migrate,
    numbered,
)
from db.store import Store
from tests.databases import fresh_schema, slowed_results

SNOWFLAKE = 1_180_000_000_000_000_123  # a Discord id of 2023: more than 32 bits
SEED = 2**62 - 1  # the lobby draws seeds of 62 bits
DEADLINE = 1_790_000_123.456789  # a time in 2026: a 4-byte float is ~128 s off


async def test_snowflakes_seeds_and_deadlines_come_back_exactly(database: Target) -> None:
    store = await Store.open(database)
    host = Player(0, SNOWFLAKE, "Ann")
    game_id = await store.create_game(
        "cheerio", SNOWFLAKE + 1, SNOWFLAKE + 2, host, seed=SEED, deadline=DEADLINE
    )
    assert await store.write(GameChange(game_id, message_id=SNOWFLAKE + 3))
    game = await store.get_game(game_id)
    await store.close()
    assert game is not None
    assert (game.guild_id, game.channel_id, game.message_id, game.host_id) == (
        SNOWFLAKE + 1,
        SNOWFLAKE + 2,
        SNOWFLAKE + 3,
        SNOWFLAKE,
    )
    assert (game.seed, game.deadline, game.players[0].user_id) == (SEED, DEADLINE, SNOWFLAKE)
    assert game.status is GameStatus.LOBBY


@pytest.mark.postgres
async def test_processes_opening_an_empty_database_together_migrate_it_once() -> None:
    async with fresh_schema() as url:
        opened = await asyncio.gather(*(PostgresDatabase.open(url) for _ in range(3)))
        applied = await opened[0].fetchall("SELECT version FROM schema_migrations")
        for db in opened:
            await db.close()
    assert [r[0] for r in applied] == [n for n, _, _ in available(Dialect.POSTGRES)]


@pytest.mark.postgres
async def test_reads_inside_transactions_find_a_connection_when_every_one_is_busy() -> None:
    """A move reads outside its transaction now and then (a server's settings not yet cached):
    with as many moves at once as the pool has connections, each holding one, that read must
    still get one. Before, the process hung for good."""
    async with fresh_schema() as url:
        db = await PostgresDatabase.open(url, pool_size=3)

        async def move() -> int:
            async with db.transaction() as tx:
                await tx.fetchall("SELECT 1")
                return len(await db.fetchall("SELECT 1"))

        try:
            done = await asyncio.wait_for(asyncio.gather(*(move() for _ in range(6))), 10.0)
        finally:
            await db.close()
    assert done == [1] * 6


@pytest.mark.postgres
async def test_a_move_never_queues_behind_leaderboards_however_many() -> None:
    """Someone repeating /leaderboard (a board per server here, so none is kept) asks for far
    more aggregates than the pool has connections, each 0.5 s long; a move made meanwhile
    still commits at once. Before, the reads took every connection and the move queued
    behind them for a second."""
    async with fresh_schema() as url:
        store = await Store.open(url)
        game_id = await store.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=1)
        await slowed_results(store, 0.5)
        boards = [
            asyncio.create_task(store.leaderboard_with_records(guild, "cheerio", "wins"))
            for guild in range(3 * POOL_SIZE)
        ]
        await asyncio.sleep(0.2)  # every read has asked for its connection
        started = time.monotonic()
        async with store.game(game_id) as session:
            assert await session.write(GameChange(game_id, message_id=5))
        took = time.monotonic() - started
        done = await asyncio.gather(*boards)
        await store.close()
    assert took < 0.3, f"the move waited {took:.2f} s for a connection"
    assert done == [([], {})] * len(boards)


@pytest.mark.postgres
async def test_a_transaction_left_idle_is_ended_and_its_game_freed() -> None:
    """A process stopped mid-transaction (SIGSTOP, a network partition) held its games' locks
    until TCP noticed, and a click on one of them in another process waited as long. The
    server now ends a session idle in a transaction past the limit (0.3 s here, a minute in
    Orchard): the lock goes with it, the click moves the game, and the stopped process's
    transaction fails rather than commit."""
    async with fresh_schema() as url:
        clicked = await Store.open(url)
        locks = clicked.locks
        assert locks is not None
        stopped = await PostgresDatabase.open(url, idle_timeout=0.3)
        game_id = await clicked.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=1)
        holding, moved = asyncio.Event(), asyncio.Event()

        async def stop_holding_the_game() -> None:
            async with stopped.transaction() as tx:
                await locks.lock_game(tx, game_id)
                holding.set()
                await moved.wait()  # idle in the transaction, as a stopped process is
                await tx.execute("UPDATE games SET version = 9 WHERE id = ?", (game_id,))

        stalled = asyncio.create_task(stop_holding_the_game())
        await holding.wait()
        async with asyncio.timeout(5), clicked.game(game_id) as session:
            assert await session.write(GameChange(game_id, message_id=5))
        moved.set()
        with pytest.raises((asyncpg.PostgresError, asyncpg.InterfaceError)):
            await stalled
        game = await clicked.get_game(game_id)
        await stopped.close()
        await clicked.close()
    assert game is not None and (game.message_id, game.version) == (5, 0)


@pytest.mark.postgres
async def test_the_idle_limit_is_a_minute_in_orchard_and_off_in_migrate_db() -> None:
    """Orchard's pool sets the limit on every connection; ``orchard migrate-db`` holds no
    game's lock and reads SQLite inside its one transaction, so it keeps the server's own."""
    show = "SHOW idle_in_transaction_session_timeout"
    async with fresh_schema() as url:
        store = await Store.open(url)
        orchards = await store.db.fetchall(show)
        await store.close()
        copying = await PostgresDatabase.open(url, idle_timeout=None)
        server_default = await copying.fetchall(show)
        await copying.close()
    assert orchards[0][0] == "1min" and IDLE_IN_TRANSACTION_SECONDS == 60
    assert server_default[0][0] == "0"


@pytest.mark.postgres
async def test_ids_count_up_and_a_failed_transaction_leaves_nothing() -> None:
    async with fresh_schema() as url:
        store = await Store.open(url)
        first = await store.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=1)
        second = await store.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=1)
        with pytest.raises(asyncpg.UniqueViolationError):
            async with store.db.transaction() as tx:
                await tx.execute("UPDATE games SET version = 5 WHERE id = ?", (first,))
                await tx.execute(
                    "INSERT INTO game_players (game_id, seat, user_id, name) VALUES (?, 0, 8, 'B')",
                    (first,),
                )
        game = await store.get_game(first)
        await store.close()
    assert second == first + 1
    assert game is not None and game.version == 0


def test_placeholders_become_numbered_outside_quoted_strings() -> None:
    sql = "SELECT ? FROM t WHERE a = '?' AND b = ? AND c = 'it''s ?' AND d IN (?, ?)"
    assert numbered(sql) == (
        "SELECT $1 FROM t WHERE a = '?' AND b = $2 AND c = 'it''s ?' AND d IN ($3, $4)"
    )
    assert numbered(sql) is numbered(sql), "rewritten once per statement"
    assert [changed(s) for s in ("UPDATE 1", "INSERT 0 3", "DELETE 0", "SELECT 1")] == [1, 3, 0, 1]


@pytest.mark.postgres
async def test_health_reads_the_heartbeat_from_postgres() -> None:
    async with fresh_schema() as url:
        empty, _ = await asyncio.to_thread(health.problem, url)
        assert empty is not None and "ever started" in empty
        store = await Store.open(url)
        await store.set_meta(health.HEARTBEAT, str(time.time() - 5))
        await store.close()
        wrong, age = await asyncio.to_thread(health.problem, url)
        assert wrong is None and 4 < age < 60
    gone, _ = await asyncio.to_thread(health.problem, url)  # the schema is dropped
    assert gone is not None


@pytest.mark.postgres
async def test_migration_13_marks_word_games_stored_before_it_as_edition_1() -> None:
    async with fresh_schema() as url:
        conn = await asyncpg.connect(url)
        try:
            assert await migrate(conn, upto=12) == 12
            for game_id, kind in ((1, "appleturnover"), (2, "cheerio")):
                await conn.execute(
                    "INSERT INTO games (id, kind, guild_id, channel_id, host_id, status, seed,"
                    " options, created_at, updated_at)"
                    " VALUES ($1, $2, 1, 2, 3, 'active', 4, '{\"x\": 5}', 0, 0)",
                    game_id,
                    kind,
                )
        finally:
            await conn.close()
        store = await Store.open(url)
        options = [(await store.get_game(game_id)) for game_id in (1, 2)]
        await store.close()
    assert [game.options for game in options if game] == [{"x": 5, "edition": 1}, {"x": 5}]


@pytest.mark.postgres
async def test_migration_17_marks_word_games_stored_without_an_edition_as_edition_2() -> None:
    async with fresh_schema() as url:
        conn = await asyncpg.connect(url)
        try:
            assert await migrate(conn, upto=16) == 16
            for game_id, kind, status, options in (
                (1, "appleturnover", "active", '{"x": 5}'),
                (2, "appletters", "finished", '{"edition": 1}'),
                (3, "cheerio", "active", '{"x": 5}'),
                (4, "applescore", "lobby", '{"x": 5}'),  # no log yet: starts on edition 3
            ):
                await conn.execute(
                    "INSERT INTO games (id, kind, guild_id, channel_id, host_id, status, seed,"
                    " options, created_at, updated_at)"
                    " VALUES ($1, $2, 1, 2, 3, $3, 4, $4, 0, 0)",
                    game_id,
                    kind,
                    status,
                    options,
                )
        finally:
            await conn.close()
        store = await Store.open(url)
        games = [(await store.get_game(game_id)) for game_id in (1, 2, 3, 4)]
        await store.close()
    found = [game.options for game in games if game]
    assert found == [{"x": 5, "edition": 2}, {"edition": 1}, {"x": 5}, {"x": 5}]
