"""The store on a real SQLite file and a real PostgreSQL server: migrations, round trips,
the version check."""

import asyncio
import sqlite3
from dataclasses import replace
from itertools import permutations
from pathlib import Path

import aiosqlite
import pytest

from bot.daily import BoardToDraw, PostedBoard
from bot.games.words import load_words
from bot.model import (
    GameChange,
    GameStatus,
    Move,
    MoveSource,
    Player,
    RatingPool,
    RatingUpdate,
    Result,
)
from bot.ratings import rate
from bot.runner import _written
from bot.settings import from_json
from db import results
from db.connection import Target
from db.daily import DailyStore
from db.migrate import NewerSchema, available, migrate
from db.store import Store
from tests.databases import query, table_columns, written
from tests.support import CHANNEL, GUILD, orchard, player
from tests.test_dailies import rows_at_migration

NEWEST = available()[-1][0]


def start(game_id: int, state: dict[str, object], deadline: float | None = None) -> GameChange:
    return GameChange(
        game_id,
        from_status=GameStatus.LOBBY,
        status=GameStatus.ACTIVE,
        state=state,
        version=0,
        deadline=deadline,
    )


def move(
    game_id: int,
    version: int,
    state: dict[str, object],
    *moves: Move,
    deadline: float | None = None,
    timeouts: dict[int, int] | None = None,
) -> GameChange:
    """The change an accepted action makes: the runner's, from ``version`` on."""
    return GameChange(
        game_id,
        from_status=GameStatus.ACTIVE,
        expected_version=version,
        status=GameStatus.ACTIVE,
        state=state,
        version=version + len(moves),
        deadline=deadline,
        timeouts=timeouts or {},
        moves=moves,
    )


def finish(game_id: int, version: int, *, orchard: bool = False) -> GameChange:
    """Ann (7) beats Bo (8), or Orchard in seat 1, and both are rated."""
    pool = RatingPool.ORCHARD if orchard else RatingPool.PEOPLE
    other = -2 if orchard else 8
    return GameChange(
        game_id,
        from_status=GameStatus.ACTIVE,
        expected_version=version,
        status=GameStatus.FINISHED,
        state={},
        version=version + 1,
        deadline=None,
        moves=(Move(0, "x", "", 7),),
        results=(Result(0, 7, False, 9, 1, True), Result(1, other, orchard, 3, 2, False)),
        rating=RatingUpdate(pool, [(7, 1), (other, 2)], rate),
    )


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


async def read_rows(store: Store, sql: str) -> list[tuple[object, ...]]:
    """Rows of ``sql`` read through the store's own database, on either backend."""
    return [tuple(row) for row in await store.db.fetchall(sql)]


async def test_fresh_file_gets_every_migration_and_wal(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    store = await Store.open(path)
    await store.close()
    assert {"games", "game_players", "moves", "results", "guild_settings", "meta"} <= tables(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations")]
    assert versions == [n for n, _, _ in available()]


async def test_each_older_version_upgrades_and_keeps_its_data(tmp_path: Path) -> None:
    for older in [number for number, _, _ in available()][:-1]:  # numbers may skip one
        path = tmp_path / f"v{older}.db"
        async with aiosqlite.connect(path, isolation_level=None) as conn:
            assert await migrate(conn, upto=older) == older
            await conn.execute(
                "INSERT INTO games (kind, guild_id, channel_id, host_id, status, seed,"
                " created_at, updated_at) VALUES ('cheerio', 1, 2, 3, 'lobby', 4, 0, 0)"
            )
        store = await Store.open(path)
        game = await store.get_game(1)
        await store.close()
        assert game is not None and game.kind == "cheerio"
        assert "results" in tables(path)


async def test_a_store_a_newer_orchard_migrated_is_refused_at_open_and_while_open(
    database: Target,
) -> None:
    """An older process must not write rows a newer one reads (a revision it would not bump):
    it refuses to open such a store, and an open one notices once the newer one migrates."""
    store = await Store.open(database)
    try:
        await store.check_schema()  # its own schema: nothing to say
        async with written(database) as tx:  # what a newer Orchard's next migration records
            await tx.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (NEWEST + 1, "newer.sql", 0.0),
            )
        with pytest.raises(NewerSchema) as seen:
            await store.check_schema()
    finally:
        await store.close()
    assert (seen.value.found, seen.value.known) == (NEWEST + 1, NEWEST)
    assert f"migration {NEWEST + 1}, newer than this Orchard knows ({NEWEST})" in str(seen.value)
    with pytest.raises(NewerSchema):
        await (await Store.open(database)).close()


async def test_a_failing_migration_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bad.db"
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        from db import migrate as m

        await m.current_version(conn)
        with pytest.raises(sqlite3.OperationalError, match="already exists"):
            await m._apply(conn, 99, "099_bad.sql", "CREATE TABLE ok (x); CREATE TABLE ok (x)")
        assert await m.current_version(conn) == 0
    assert "ok" not in tables(path)


async def test_two_openers_of_one_fresh_file_migrate_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes may open one file at once (the bot and `orchard clear-guild` after an
    upgrade): both read the schema's version before either takes the write lock, and each
    file must still be applied once, with both openers ending on the newest schema."""
    from db import migrate as m

    path = tmp_path / "o.db"
    read_version = m.current_version
    read: list[int] = []
    both_read = asyncio.Event()

    async def in_step(conn: aiosqlite.Connection) -> int:
        version = await read_version(conn)
        read.append(version)
        if len(read) == 2:
            both_read.set()
        await asyncio.wait_for(both_read.wait(), 5)
        return version

    monkeypatch.setattr(m, "current_version", in_step)
    opened = await asyncio.gather(Store.open(path), Store.open(path), return_exceptions=True)
    for store in opened:
        if isinstance(store, Store):
            await store.close()
    assert all(isinstance(store, Store) for store in opened), opened
    assert read[:2] == [0, 0]
    with sqlite3.connect(path) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations")]
    assert versions == [n for n, _, _ in available()]


async def test_state_round_trip_and_version_check(database: Target) -> None:
    store = await Store.open(database)
    game_id = await store.create_game(
        "cheerio", 1, 2, Player(0, 7, "Ann"), seed=42, options={"x": 1}
    )
    assert await store.write(start(game_id, {"a": [1, 2]}))
    assert not await store.write(start(game_id, {"a": [9]})), "a second Start is refused"
    change = move(game_id, 0, {"a": [3]}, Move(0, "roll", "", 7), deadline=123.0)
    assert await store.write(change)
    assert not await store.write(change), "a second move from version 0 must be refused"
    game = await store.get_game(game_id)
    assert game is not None
    assert (game.state, game.version, game.deadline, game.options) == (
        {"a": [3]},
        1,
        123.0,
        {"x": 1},
    )
    assert [m.verb for m in await store.moves(game_id)] == ["roll"]
    await store.close()


async def test_two_settings_changed_at_once_both_stick(database: Target) -> None:
    """Two /settings at once, each changing something else: both changes stick, as each
    update is read, changed and written in one transaction. Before, both started from the
    settings as read (or kept) before either wrote, and the later write dropped the other's
    change; game channels added at once (a list: both start from it) too."""
    o = await orchard(database)
    settings = o.runner.settings
    try:
        await settings.get(GUILD)  # kept: what both updates would start from
        await asyncio.gather(
            settings.update(GUILD, hints=False), settings.update(GUILD, turn_seconds=60)
        )
        stored = from_json(await o.store.guild_settings(GUILD))
        assert (stored.hints, stored.turn_seconds) == (False, 60)
        await asyncio.gather(
            settings.update(GUILD, add_channels=[CHANNEL]),
            settings.update(GUILD, add_channels=[CHANNEL + 1], open_games_per_channel=2),
        )
        stored = from_json(await o.store.guild_settings(GUILD))
        assert (stored.hints, stored.turn_seconds, stored.open_games_per_channel) == (False, 60, 2)
        assert stored.game_channels == (CHANNEL, CHANNEL + 1)
        assert await settings.get(GUILD) == stored
        with pytest.raises(ValueError):  # an invalid change writes nothing
            await settings.update(GUILD, hints=True, turn_seconds=1)
        assert from_json(await o.store.guild_settings(GUILD)) == stored
    finally:
        await o.close()


async def test_settings_and_meta_persist(database: Target) -> None:
    store = await Store.open(database)
    await store.set_guild_settings(5, {"turn_seconds": 60})
    await store.set_meta("k", "v1")
    await store.set_meta("k", "v2")
    await store.close()
    store = await Store.open(database)
    assert await store.guild_settings(5) == {"turn_seconds": 60}
    assert await store.guild_settings(6) == {}
    assert await store.get_meta("k") == "v2"
    await store.close()


async def test_open_games_carry_their_own_seats_and_bot_games_are_found(database: Target) -> None:
    store = await Store.open(database)
    orchard = Player(1, 99, "Orchard (easy)", is_bot=True, level="easy")
    solo = await store.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=1)
    duel = await store.create_game("hotscore", 1, 3, Player(0, 8, "Bo"), seed=2)
    assert await store.write(GameChange(duel, players=(Player(0, 8, "Bo"), orchard)))
    waiting = await store.create_game("cheerio", 1, 3, Player(0, 9, "Cy"), seed=3)
    assert await store.write(GameChange(waiting, players=(Player(0, 9, "Cy"), orchard)))
    for game_id in (solo, duel):
        assert await store.write(start(game_id, {}))
    seats = {
        g.id: [(p.seat, p.name, p.is_bot) for p in g.players] for g in await store.open_games()
    }
    assert seats == {
        solo: [(0, "Ann", False)],
        duel: [(0, "Bo", False), (1, "Orchard (easy)", True)],
        waiting: [(0, "Cy", False), (1, "Orchard (easy)", True)],
    }
    assert [g.id for g in await store.open_games(channel_id=3)] == [duel, waiting]
    assert await store.games_waiting_on_bots() == [duel], "a lobby waits on nobody yet"
    await store.close()


async def test_migration_7_unwins_solo_games_and_marks_games_with_orchard(tmp_path: Path) -> None:
    path = tmp_path / "v6.db"
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        assert await migrate(conn, upto=6) == 6
        for game_id in (1, 2, 3):
            await conn.execute(
                "INSERT INTO games (id, kind, guild_id, channel_id, host_id, status, seed,"
                " created_at, updated_at) VALUES (?, 'cheerio', 1, 2, 7, 'finished', 4, 0, 0)",
                (game_id,),
            )
        for game_id, seat, user, is_bot, won, seats in (
            (1, 0, 7, 0, 1, 1),  # a solo game stored as won before 007
            (2, 0, 7, 0, 1, 2),  # a win against Orchard
            (2, 1, 99, 1, 0, 2),
            (3, 0, 7, 0, 1, 2),  # a win against a person
            (3, 1, 8, 0, 0, 2),
        ):
            await conn.execute(
                "INSERT INTO results (game_id, seat, guild_id, kind, user_id, is_bot, score,"
                " placement, won, seats, finished_at) VALUES (?, ?, 1, 'cheerio', ?, ?, 5,"
                " 1, ?, ?, 0)",
                (game_id, seat, user, is_bot, won, seats),
            )
    store = await Store.open(path)
    # by wins, the games counted are those between people: game 3 alone
    assert await store.leaderboard(1, "cheerio", "wins") == [(7, 1.0, 1), (8, 0.0, 1)]
    (stats,) = await store.user_stats(1, 7)
    assert (stats.wins, stats.people_games, stats.orchard_wins, stats.orchard_games) == (1, 1, 1, 1)
    await store.close()
    with sqlite3.connect(path) as conn:
        marks = conn.execute("SELECT game_id, seat, won, orchard FROM results ORDER BY 1, 2")
        assert marks.fetchall() == [
            (1, 0, 0, 0),
            (2, 0, 1, 1),
            (2, 1, 0, 1),
            (3, 0, 1, 0),
            (3, 1, 0, 0),
        ]


async def test_migration_9_keeps_logged_moves_under_their_verb(tmp_path: Path) -> None:
    path = tmp_path / "v8.db"
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        assert await migrate(conn, upto=8) == 8
        await conn.execute(
            "INSERT INTO games (id, kind, guild_id, channel_id, host_id, status, seed,"
            " created_at, updated_at) VALUES (1, 'cheerio', 1, 2, 7, 'active', 4, 0, 0)"
        )
        await conn.execute(
            "INSERT INTO moves (game_id, seq, seat, user_id, kind, arg, created_at)"
            " VALUES (1, 1, 0, 7, 'hold', '02', 0)"
        )
    store = await Store.open(path)
    assert await store.moves(1) == [Move(0, "hold", "02", 7)]
    await store.close()


async def test_rating_history_keeps_games_and_pools_apart(database: Target) -> None:
    store = await Store.open(database)
    for kind, pool in (
        ("cheerio", RatingPool.PEOPLE),
        ("hotscore", RatingPool.PEOPLE),
        ("cheerio", RatingPool.ORCHARD),
    ):
        game_id = await store.create_game(kind, 1, 2, Player(0, 7, "Ann"), seed=1)
        assert await store.write(start(game_id, {}))
        assert await store.write(finish(game_id, 0, orchard=pool is RatingPool.ORCHARD))
    assert len(await store.rating_history(1, 7, "cheerio")) == 1
    assert len(await store.rating_history(1, 7, "hotscore")) == 1
    assert len(await store.rating_history(1, 7, "cheerio", pool="orchard")) == 1
    assert await store.rating_history(1, 7, "applejack") == []
    await store.close()


async def test_a_write_sets_what_it_names_and_keeps_the_rest(database: Target) -> None:
    store = await Store.open(database)
    game_id = await store.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=1)
    assert await store.write(start(game_id, {"a": 1}, deadline=50.0))
    before = await store.get_game(game_id)
    assert await store.write(GameChange(game_id, message_id=555))
    after = await store.get_game(game_id)
    assert before is not None and after is not None
    assert after.message_id == 555 and after.updated_at >= before.updated_at
    assert (after.status, after.state, after.version, after.deadline) == (
        "active",
        {"a": 1},
        0,
        50.0,
    )
    assert await store.write(GameChange(game_id, deadline=None)), "None clears the deadline"
    cleared = await store.get_game(game_id)
    assert cleared is not None and cleared.deadline is None and cleared.message_id == 555
    assert not await store.write(GameChange(999, deadline=1.0)), "no such game"
    await store.close()


async def test_a_failed_guard_writes_nothing_at_all(database: Target) -> None:
    store = await Store.open(database)
    game_id = await store.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=1)
    lobby_only = GameChange(
        game_id, from_status=GameStatus.LOBBY, players=(Player(0, 8, "Bo"),), hinted=True
    )
    assert await store.write(start(game_id, {}))
    assert await store.write(move(game_id, 0, {"b": 1}, Move(0, "roll", "", 7)))
    late = finish(game_id, 0)  # computed from version 0, but version 1 is stored
    assert not await store.write(late)
    assert not await store.write(lobby_only), "the game is no longer a lobby"
    game = await store.get_game(game_id)
    assert game is not None and game.state == {"b": 1} and not game.hinted
    assert [p.name for p in game.players] == ["Ann"]
    assert [m.verb for m in await store.moves(game_id)] == ["roll"]
    for table in ("results", "ratings", "rating_history"):
        assert await read_rows(store, f"SELECT COUNT(*) FROM {table}") == [(0,)], table
    await store.close()


async def test_seats_are_renumbered_and_timeouts_counted(database: Target) -> None:
    store = await Store.open(database)
    game_id = await store.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=1)
    seats = (Player(4, 7, "Ann", timeouts=2), Player(9, 8, "Bo"))
    assert await store.write(GameChange(game_id, players=seats))
    assert await store.write(start(game_id, {}))
    assert await store.write(move(game_id, 0, {}, Move(1, "roll", "", 8), timeouts={0: 1}))
    game = await store.get_game(game_id)
    assert game is not None
    assert [(p.seat, p.name, p.timeouts) for p in game.players] == [(0, "Ann", 1), (1, "Bo", 0)]
    await store.close()


async def test_the_runner_shows_what_a_write_leaves(database: Target) -> None:
    """The runner shows ``_written`` without reading the game back: it must be the same."""
    store = await Store.open(database)
    game_id = await store.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=1)
    seats = (Player(3, 7, "Ann", timeouts=1), Player(0, 8, "Bo"))
    changes = [
        GameChange(game_id, players=seats, revise=True),
        GameChange(game_id, message_id=42, deadline=9.0),
        replace(start(game_id, {"a": 1}, deadline=10.0), revise=True),
        replace(move(game_id, 0, {"a": 2}, Move(0, "hold", "1", 7)), revise=True),
        GameChange(game_id, hinted=True),
        move(game_id, 1, {"a": 3}, Move(1, "roll", "", None, MoveSource.TIMEOUT), timeouts={1: 1}),
        replace(finish(game_id, 2), revise=True),
    ]
    for change in changes:
        before = await store.get_game(game_id)
        assert before is not None and await store.write(change)
        after = await store.get_game(game_id)
        assert after is not None
        assert replace(_written(before, change), updated_at=after.updated_at) == after, change
    assert await store.revision(game_id) == 4, "four of the changes are drawn"
    await store.close()


async def test_only_a_change_a_board_draws_counts_the_revision_up(database: Target) -> None:
    """Processes sharing the store compare revisions to tell the latest drawn row: a change
    that keeps the version (a lobby's seats, an end) counts it up, and so does each of many
    written at once; a write nobody draws (a message id, a hint mark) keeps it."""
    store = await Store.open(database)
    ids = [await store.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=n) for n in (1, 2)]
    first, second = ids
    assert await store.revision(first) == 0
    assert await store.write(GameChange(first, players=(Player(0, 7, "Ann"),), revise=True))
    assert await store.write(GameChange(first, message_id=42))
    assert await store.write(GameChange(first, hinted=True))
    assert await store.revision(first) == 1
    assert await store.write_many(
        [
            GameChange(first, from_status=GameStatus.LOBBY, deadline=5.0),
            GameChange(second, from_status=GameStatus.LOBBY, deadline=5.0, revise=True),
        ]
    )
    assert [await store.revision(game_id) for game_id in ids] == [1, 1]
    ended = GameChange(0, from_status=GameStatus.LOBBY, status=GameStatus.CANCELLED, revise=True)
    assert await store.write_many([replace(ended, game_id=game_id) for game_id in ids])
    assert [await store.revision(game_id) for game_id in ids] == [2, 2]
    assert await store.revision(999) is None, "no such game"
    await store.close()


async def test_hinted_marks_the_game_and_its_results(database: Target) -> None:
    store = await Store.open(database)
    early = await store.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=1)
    late = await store.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=2)
    for game_id in (early, late):
        assert await store.write(start(game_id, {}))
    assert await store.write(GameChange(early, hinted=True))
    for game_id in (early, late):
        assert await store.write(finish(game_id, 0))
    assert await store.write(GameChange(late, hinted=True))
    assert await read_rows(store, "SELECT DISTINCT game_id, hinted FROM results ORDER BY 1") == [
        (early, 1),
        (late, 1),
    ]
    assert [g.hinted for g in await store.history(1, 7)] == [True, True]
    await store.close()


def test_moves_continue_the_log_from_a_named_version() -> None:
    with pytest.raises(ValueError, match="expected_version"):
        GameChange(1, moves=(Move(0, "roll"),), version=1)
    with pytest.raises(ValueError, match="expected"):
        GameChange(1, expected_version=3, moves=(Move(0, "roll"),), version=3)


async def test_a_write_cancelled_at_its_begin_leaves_no_transaction_open(tmp_path: Path) -> None:
    """A task cancelled while its BEGIN runs on the database thread (as at shutdown): the
    BEGIN still runs, and the next writer must not find that transaction open."""
    store = await Store.open(tmp_path / "o.db")
    try:

        async def write() -> None:
            async with store.db.transaction():
                await asyncio.sleep(10)

        task = asyncio.create_task(write())
        await asyncio.sleep(0)  # the task now awaits its BEGIN
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await store.set_meta("after", "yes")
        assert await store.get_meta("after") == "yes"
        assert not store.db.conn.in_transaction
    finally:
        await store.close()


async def test_migration_13_keeps_word_games_stored_before_it_on_edition_1(
    tmp_path: Path,
) -> None:
    """A six-player Apple Turnover game stored before editions (no ``edition`` option, none
    in its state) with a Bad Apple thrown: after the migration it replays as it was played,
    21 tiles to five seats, 5 to the sixth, and the Bad Apple gave nothing back."""
    path = tmp_path / "o.db"
    o = await orchard(path)
    live = await o.lobby.open("appleturnover", GUILD, CHANNEL, player(1), {"edition": 1})
    for user in range(2, 7):
        await o.lobby.join(live.id, player(user, user - 1))
    live = await o.lobby.start(live.id, 1)
    assert sorted(map(len, live.state.hands)) == [5, 21, 21, 21, 21, 21]
    turn = live.state.turn
    before = live.state.hands[turn]
    live = await o.runner.act(live.id, turn + 1, "badapple", before[0])
    assert len(live.state.hands[turn]) == len(before) - 1, "thrown away, nothing drawn"
    stored = live.state
    await o.close()
    with sqlite3.connect(path) as conn:  # as the code before editions stored it
        conn.execute(
            "UPDATE games SET options = json_remove(options, '$.edition'),"
            " state = json_remove(state, '$.edition')"
        )
        conn.execute("DROP INDEX games_orchard_since")  # and without the later migrations
        conn.execute("ALTER TABLE games DROP COLUMN orchard_since")
        conn.execute("ALTER TABLE games DROP COLUMN revision")
        drop_later_indexes(conn)
        conn.execute("DELETE FROM schema_migrations WHERE version >= 13")
        for table in ("daily_plays", "daily_world", "daily_channels"):  # made again by 014
            conn.execute(f"DROP TABLE {table}")
    o = await orchard(path)
    try:
        assert (await o.runner.load(live.id)).row.options == {"edition": 1}
        assert await o.runner.replay(live.id) == stored == (await o.runner.load(live.id)).state
    finally:
        await o.close()


def drop_later_indexes(conn: sqlite3.Connection) -> None:
    """Undo migrations 020, 021, 024, 026, 027, 028 (032), 029, 031 and 033, for a test that
    runs the migrations after an older one again."""
    for index in (
        "results_person",
        "ratings_person",
        "ping_choices_person",
        "daily_plays_person",
        "moves_forfeits",
        "games_ended",
    ):
        conn.execute(f"DROP INDEX {index}")
    conn.execute("ALTER TABLE games DROP COLUMN expired")
    conn.execute("ALTER TABLE games DROP COLUMN host_left")
    conn.execute("DROP TABLE boards_to_draw")  # 028, named by 032
    conn.execute("DROP TABLE daily_boards")  # 029's columns it moved there are gone with it


def unlisted(hand: str) -> str:
    """Two of ``hand``'s tiles that spell no listed word (an unchecked word to challenge)."""
    words = load_words()
    return next(a + b for a, b in permutations(hand, 2) if (a + b).lower() not in words)


async def test_migration_17_keeps_word_games_stored_before_it_on_edition_2(
    tmp_path: Path,
) -> None:
    """An Apple Turnover game stored before edition 3 (no ``edition`` option) in which a word
    was taken back on its player's own turn and that player played on: after the migration
    it replays as it was played (under edition 3 that player misses the turn instead)."""
    path = tmp_path / "o.db"
    o = await orchard(path)
    live = await o.lobby.open("appleturnover", GUILD, CHANNEL, player(1), {"edition": 2})
    await o.lobby.join(live.id, player(2, 1))
    live = await o.lobby.start(live.id, 1)
    a, b = live.state.turn, 1 - live.state.turn
    live = await o.runner.act(live.id, a + 1, "play", unlisted(live.state.hands[a]))
    live = await o.runner.act(live.id, b + 1, "challenge")  # it goes back: a owes a turn
    live = await o.runner.act(live.id, b + 1, "play", unlisted(live.state.hands[b]))
    assert live.state.turn == b, "a missed their turn"
    live = await o.runner.act(live.id, a + 1, "challenge")  # b's word goes back on b's turn
    live = await o.runner.act(live.id, b + 1, "pick")  # edition 2: b plays on
    stored = live.state
    await o.close()
    with sqlite3.connect(path) as conn:  # as the code before edition 3 stored it
        conn.execute("UPDATE games SET options = json_remove(options, '$.edition')")
        conn.execute("ALTER TABLE games DROP COLUMN revision")  # and without 018 and 019
        conn.execute("ALTER TABLE daily_channels DROP COLUMN refused_day")
        drop_later_indexes(conn)  # and 020, 021, 024, 026
        conn.execute("ALTER TABLE daily_plays DROP COLUMN world_name")  # and 023
        conn.execute("DELETE FROM schema_migrations WHERE version >= 17")
    o = await orchard(path)
    try:
        assert (await o.runner.load(live.id)).row.options == {"edition": 2}
        assert await o.runner.replay(live.id) == stored == (await o.runner.load(live.id)).state
    finally:
        await o.close()


async def test_migration_30_keeps_word_games_stored_before_it_on_edition_3(
    database: Target,
) -> None:
    """Word games in play or over stored without an ``edition`` option are marked edition 3,
    so their move logs replay as they were played; a marked game keeps its edition, a lobby
    (no log yet) and a dice game stay as they were."""
    game = (
        "INSERT INTO games (id, kind, guild_id, channel_id, host_id, status, seed, options,"
        " created_at, updated_at) VALUES ({}, '{}', 1, 2, 3, '{}', 4, '{}', 0, 0)"
    )
    await rows_at_migration(
        database,
        29,
        [
            game.format(1, "appleturnover", "active", '{"x": 5}'),
            game.format(2, "appletters", "finished", '{"edition": 2}'),
            game.format(3, "applescore", "lobby", '{"x": 5}'),
            game.format(4, "cheerio", "active", '{"x": 5}'),
            game.format(5, "applescore", "finished", "{}"),
        ],
    )
    store = await Store.open(database)
    try:
        games = [await store.get_game(game_id) for game_id in (1, 2, 3, 4, 5)]
    finally:
        await store.close()
    assert [game.options if game else None for game in games] == [
        {"x": 5, "edition": 3},
        {"edition": 2},
        {"x": 5},
        {"x": 5},
        {"edition": 3},
    ]


async def test_migration_28_queues_boards_to_draw_by_game_id_only(database: Target) -> None:
    """A store an older Orchard left, with a finished game posted in a channel: migration 28
    adds the queue of boards /forget-me draws anew, empty, holding game ids and never a
    person's; a queued board goes with its game when its server is purged."""
    game = (
        "INSERT INTO games (id, kind, guild_id, channel_id, message_id, host_id, status, seed,"
        " created_at, updated_at) VALUES ({}, 'cheerio', {}, 2, 3, 7, 'finished', 4, 0, 0)"
    )
    seat = "INSERT INTO game_players (game_id, seat, user_id, name) VALUES ({}, 0, 7, 'Ann')"
    await rows_at_migration(
        database, 27, [game.format(1, GUILD), seat.format(1), game.format(2, GUILD + 1)]
    )
    store = await Store.open(database)
    try:
        assert (await table_columns(database))["boards_to_draw"] == ["game_id", "queued"]
        assert await query(database, "SELECT * FROM boards_to_draw") == []
        async with written(database) as tx:
            for game_id in (1, 2):
                await tx.execute("INSERT INTO boards_to_draw (game_id) VALUES (?)", (game_id,))
        await store.guild_left(GUILD, 0)
        assert await store.purge_departed(10) == [GUILD]
        assert await query(database, "SELECT * FROM boards_to_draw") == [(2, 1)]
    finally:
        await store.close()


async def test_migration_31_keeps_a_posted_daily_board_until_it_is_made_final(
    database: Target,
) -> None:
    """The last board a server posted, kept beside its channel by migration 29, moves to the
    boards not yet made final; a board there goes when its server is purged."""
    channel = (
        "INSERT INTO daily_channels (guild_id, channel_id, posted_day, board_channel_id,"
        " board_message_id) VALUES ({}, 2, 20500, {}, {})"
    )
    await rows_at_migration(
        database,
        29,
        [channel.format(GUILD, 3, 4), channel.format(GUILD + 1, "NULL", "NULL")],
    )
    store = await Store.open(database)
    try:
        assert (await table_columns(database))["daily_channels"] == [
            "guild_id",
            "channel_id",
            "posted_day",
            "refused_day",
        ]
        boards = "SELECT guild_id, day, channel_id, message_id, draw_on FROM daily_boards"
        assert await query(database, boards) == [(GUILD, 20500, 3, 4, 20502)], "once final"
        await store.guild_left(GUILD, 0)
        assert await store.purge_departed(10) == [GUILD]
        assert await query(database, "SELECT * FROM daily_boards") == []
    finally:
        await store.close()


async def test_a_daily_board_that_fails_to_draw_is_tried_again_a_number_of_times(
    database: Target,
) -> None:
    """A board due is drawn by its taker only; one whose drawing failed is put back for the
    next pass, until it has failed the number of tries given (then left as it is)."""
    store = await Store.open(database)
    try:
        boards = DailyStore(store.db)
        await boards.posted(GUILD, PostedBoard(20500, 2, 3), 20502)
        await boards.posted(GUILD, PostedBoard(20501, 2, 4), 20503)
        (due,) = await boards.to_draw(20502)
        assert due == BoardToDraw(GUILD, PostedBoard(20500, 2, 3), 20502)
        assert await boards.take(due) and not await boards.take(due)
        assert await boards.to_draw(20502) == []
        await boards.put_back(due, 2)  # the first failure
        assert await boards.to_draw(20502) == [due]
        assert await boards.take(due)
        await boards.put_back(due, 2)  # the second: tries used up
        assert await boards.to_draw(20502) == []
    finally:
        await store.close()


async def test_forget_me_queues_its_boards_in_its_own_transaction(database: Target) -> None:
    """Ann's and Bo's /forget-me each queue the posted boards of their games over here, as
    they erase them: not a game never posted, still open, or in another server. A board
    drawn for Ann's erasure while Bo's was committed (from a version that may still name
    him) stays queued for his, until drawn for it too."""
    ann, bo = 7, 8
    game = (
        "INSERT INTO games (id, kind, guild_id, channel_id, message_id, host_id, status, seed,"
        " created_at, updated_at) VALUES (?, 'cheerio', ?, 2, ?, 7, ?, 4, 0, 0)"
    )
    seat = "INSERT INTO game_players (game_id, seat, user_id, name) VALUES (?, ?, ?, 'X')"
    async with written(database) as tx:
        for game_id, guild, message, status in (
            (1, GUILD, 31, "finished"),
            (2, GUILD, None, "finished"),  # a daily game: never posted in a channel
            (3, GUILD, 33, "active"),
            (4, GUILD + 1, 34, "finished"),
            (5, GUILD, 35, "cancelled"),
        ):
            await tx.execute(game, (game_id, guild, message, status))
            await tx.execute(seat, (game_id, 0, ann))
        await tx.execute(seat, (1, 1, bo))
    store = await Store.open(database)
    try:
        await store.forget_user(GUILD, ann)
        assert await query(database, "SELECT * FROM boards_to_draw ORDER BY game_id") == [
            (1, 1),
            (5, 1),
        ]
        assert await store.next_to_draw() == (1, 1)
        await store.forget_user(GUILD, bo)  # while game 1's board is drawn for Ann
        await store.drawn_anew(1, 1)
        assert await store.next_to_draw() == (1, 2), "still to be drawn for Bo"
        await store.drawn_anew(1, 2)
        assert await store.next_to_draw() == (5, 1)
        assert await store.next_to_draw(5) is None
    finally:
        await store.close()


async def test_a_restart_after_a_crash_queues_the_boards_of_games_changed_since(
    database: Target,
) -> None:
    """Open games and games over alike, changed at or after the time given; one queued
    already (a stop's, an erasure's) waits for one drawing more."""
    game = (
        "INSERT INTO games (id, kind, guild_id, channel_id, message_id, host_id, status, seed,"
        " created_at, updated_at) VALUES (?, 'cheerio', ?, 2, 30, 7, ?, 4, 0, ?)"
    )
    async with written(database) as tx:
        for game_id, status, changed in (
            (1, "active", 100.0),
            (2, "active", 99.0),  # before: drawn long since
            (3, "lobby", 120.0),
            (4, "finished", 100.0),
            (5, "abandoned", 99.5),
            (6, "cancelled", 130.0),
        ):
            await tx.execute(game, (game_id, GUILD, status, changed))
        await tx.execute("INSERT INTO boards_to_draw (game_id) VALUES (6)")
    store = await Store.open(database)
    try:
        assert await store.queue_changed_since(100.0) == 4
        assert await query(database, "SELECT * FROM boards_to_draw ORDER BY game_id") == [
            (1, 1),
            (3, 1),
            (4, 1),
            (6, 2),
        ]
    finally:
        await store.close()


def test_equal_wins_list_the_fewer_games_first() -> None:
    """One win in one game is a better record than one in three: listed first (their rank is
    shared, the figure reading the same). By best score, more games come first."""
    found = {1: (1, 1, 50.0, 50.0, 1), 2: (1, 3, 60.0, 40.0, 3), 3: (2, 2, 50.0, 45.0, 2)}
    assert [user for user, _, _ in results.ranked(found, "wins", False)] == [3, 1, 2]
    assert [user for user, _, _ in results.ranked(found, "best", False)] == [2, 3, 1]
