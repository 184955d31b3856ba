"""The Daily Orchard below Discord: day numbers, streaks, once a day, private games, results
recorded after a restart, and what /forget-me and the purge take."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg
import pytest

from bot.dailies import Dailies
from bot.daily import (
    EPOCH,
    NO_CHANNEL,
    NO_GAME,
    DailyPlay,
    day_number,
    day_of,
    end_of,
    share_line,
    streak,
)
from bot.games.cheerio import CATEGORIES
from bot.model import GameStatus
from bot.runner import Refusal
from db.connection import Target, is_url
from db.migrate import migrate
from db.postgres import migrate as migrate_postgres
from tests.databases import Killed, fresh_schema, kill_at, query, written
from tests.support import Clock, Table, orchard, player

GUILD, OTHER_GUILD = 100, 200
NOON = dt.datetime(2026, 2, 11, 12, tzinfo=dt.UTC).timestamp()


def test_day_numbers_count_utc_days_from_the_epoch() -> None:
    assert day_number(dt.datetime(2026, 1, 1, tzinfo=dt.UTC)) == 1
    assert day_number(dt.datetime(2026, 2, 11, 23, 59, tzinfo=dt.UTC)) == 42
    assert day_number(dt.datetime(2026, 2, 12, 0, 0, tzinfo=dt.UTC)) == 43
    late_in_new_york = dt.datetime(2026, 2, 11, 20, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    assert day_number(late_in_new_york) == 43  # already the 12th in UTC
    assert dt.date(2026, 1, 1) == EPOCH
    with pytest.raises(ValueError):
        day_number(dt.datetime(2026, 2, 11))


def test_streaks_and_the_share_line() -> None:
    assert streak([40, 41, 42], 42) == 3
    assert streak([40, 41], 42) == 2  # today still to play: the streak is not broken yet
    assert streak([39, 41], 42) == 1 and streak([], 42) == 0 and streak([40], 42) == 0
    assert share_line(42, "Cheerio", 187, 98) == "Orchard Daily #42 · Cheerio 187 · accuracy 98%"


async def test_one_game_a_day_private_and_without_a_clock(tmp_path: Path) -> None:
    clock = Clock(NOON)
    table = await orchard(tmp_path / "o.db", clock)
    try:
        dailies = Dailies(table.runner, clock)
        first, play = await dailies.game_of_the_day("cheerio", GUILD, player(1))
        again, _ = await dailies.game_of_the_day("cheerio", GUILD, player(1))
        assert again.id == first.id and play.day == 42 and play.score is None
        row = first.row
        assert row.status is GameStatus.ACTIVE and row.channel_id == NO_CHANNEL
        assert row.options == {"daily": 42}
        created = await query(
            tmp_path / "o.db", "SELECT created_at FROM games WHERE id = ?", row.id
        )
        assert created == [(NOON,)], "made at the injected clock's time, not the system's"
        assert row.deadline == end_of(43)  # no turn clock: only its closing, the next day's end
        assert table.shown.shown == []  # never drawn on a public board
        other, _ = await dailies.game_of_the_day("cheerio", GUILD, player(2))
        assert other.id != first.id and other.state.dice == first.state.dice
        clock.now += 86400
        tomorrow, play = await dailies.game_of_the_day("cheerio", GUILD, player(1))
        assert tomorrow.id != first.id and play.day == 43
    finally:
        await table.close()


async def test_a_move_after_a_daily_game_closed_is_refused(tmp_path: Path) -> None:
    """A daily game left unfinished closes at the end of the day after its own: a move a
    moment later, before the clock has fired its close, is refused, not played."""
    clock = Clock(NOON)
    table = await orchard(tmp_path / "o.db", clock)
    try:
        game, _ = await Dailies(table.runner, clock).game_of_the_day("cheerio", GUILD, player(1))
        clock.now = end_of(43) - 1
        live = await table.runner.act(game.id, 1, "roll", version=game.row.version)
        clock.now = end_of(43)
        with pytest.raises(Refusal, match="closed unfinished"):
            await table.runner.act(game.id, 1, "roll", version=live.row.version)
        assert (await table.runner.load(game.id)).row.version == live.row.version
    finally:
        await table.close()


UNSEEN = (
    "SELECT id FROM games WHERE status IN ('lobby', 'active')"
    " AND id NOT IN (SELECT game_id FROM daily_plays)"
)
"""Open games no play points at: nobody could see or finish them."""


@pytest.mark.parametrize(
    "statement", ["INSERT INTO daily_plays", "UPDATE games"], ids=["recording", "starting"]
)
async def test_a_process_killed_while_starting_the_days_game_leaves_no_game_unseen(
    database: Target, monkeypatch: pytest.MonkeyPatch, statement: str
) -> None:
    """The day's game is made and its play recorded in one transaction, then started in the
    next. Killed in either, the process leaves no open game without its play, and after the
    restart /daily gives the person one game, started. Before, the game was made and started
    first: killed before its play was recorded, it left an active game nobody could see or
    finish, and the next /daily made another."""
    clock = Clock(NOON)
    table = await orchard(database, clock)
    kill_at(monkeypatch, table.store.db, statement)
    with pytest.raises(Killed):
        await Dailies(table.runner, clock).game_of_the_day("cheerio", GUILD, player(1))
    await table.close()
    assert await query(database, UNSEEN) == []
    table = await orchard(database, clock)  # the restart
    try:
        snapshot, play = await Dailies(table.runner, clock).game_of_the_day(
            "cheerio", GUILD, player(1)
        )
    finally:
        await table.close()
    assert snapshot.row.status is GameStatus.ACTIVE and play.game_id == snapshot.id
    assert await query(database, "SELECT id, status FROM games") == [(snapshot.id, "active")]


@pytest.mark.postgres
async def test_two_processes_starting_one_persons_day_make_one_game() -> None:
    """The same person's /daily reaching two processes at once (several shards): one play,
    one game, both answered with it; the loser of the race writes nothing."""
    async with fresh_schema() as url:
        clock = Clock(NOON)
        a, b = await orchard(url, clock), await orchard(url, clock)  # type: ignore[arg-type]
        try:
            (first, _), (second, _) = await asyncio.gather(
                Dailies(a.runner, clock).game_of_the_day("cheerio", GUILD, player(1)),
                Dailies(b.runner, clock).game_of_the_day("cheerio", GUILD, player(1)),
            )
            games = await query(url, "SELECT id, status FROM games")  # type: ignore[arg-type]
        finally:
            await a.close()
            await b.close()
    assert first.id == second.id and games == [(first.id, "active")]


async def test_a_result_is_recorded_on_the_first_read_after_the_end(tmp_path: Path) -> None:
    """The game's last move is committed by the runner; the play's score and accuracy are
    written by whoever reads it next, so a restart in between loses nothing."""
    clock = Clock(NOON)
    table = await orchard(tmp_path / "o.db", clock)
    dailies = Dailies(table.runner, clock)
    snapshot, _ = await dailies.game_of_the_day("cheerio", GUILD, player(1))
    for category in CATEGORIES:
        await table.runner.act(snapshot.id, 1, "score", category)
    assert await table.store.moves(snapshot.id)
    rows = await table.store.db.fetchall("SELECT score FROM daily_plays")
    assert rows[0][0] is None
    await table.close()

    table = await orchard(tmp_path / "o.db", clock)
    try:
        dailies = Dailies(table.runner, clock)
        (done,) = await dailies.board(42, "cheerio", GUILD)
        finished = await table.runner.load(snapshot.id)
        assert done.score == sum(p for p in finished.state.cards[0] if p is not None)
        assert done.accuracy is not None and 0 <= done.accuracy <= 100
        ordinary = await table.store.db.fetchall(
            "SELECT COUNT(*) FROM results WHERE game_id = ?", (snapshot.id,)
        )
        assert ordinary[0][0] == 0  # no leaderboard, rating or /stats counts a daily game
        assert await table.runner.replay(snapshot.id) == finished.state
        assert await dailies.streak("cheerio", 1) == 1
        assert await dailies.board(42, "cheerio", None) == []  # not on the world board
        await dailies.store.set_world(1, True, clock.now)
        assert [p.user_id for p in await dailies.board(42, "cheerio", None)] == [1]
        assert await table.orchard.forget(GUILD, 1) >= 2
        assert await dailies.board(42, "cheerio", GUILD) == []
        assert not await dailies.store.in_world(1)
    finally:
        await table.close()


async def finished_play(table: Table, dailies: Dailies, guild: int, user: int) -> DailyPlay:
    """``user`` plays today's Cheerio in ``guild``, scoring each category at once."""
    snapshot, _ = await dailies.game_of_the_day("cheerio", guild, player(user))
    for category in CATEGORIES:
        await table.runner.act(snapshot.id, user, "score", category)
    _, play = await dailies.game_of_the_day("cheerio", guild, player(user))
    assert play.score is not None  # recorded on this first read after the end
    return play


async def test_each_servers_board_shows_its_own_players(database: Target) -> None:
    """Users 1 and 2 play in one server, 3 in another: each board names only its own. The
    world board names only those who joined it (1 and 3), whichever server they play in."""
    clock = Clock(NOON)
    table = await orchard(database, clock)
    try:
        dailies = Dailies(table.runner, clock)
        for guild, user in ((GUILD, 1), (GUILD, 2), (OTHER_GUILD, 3)):
            await finished_play(table, dailies, guild, user)
        await dailies.game_of_the_day("cheerio", GUILD, player(4))  # started, not finished
        here = await dailies.board(42, "cheerio", GUILD)
        there = await dailies.board(42, "cheerio", OTHER_GUILD)
        assert [p.user_id for p in here] == [1, 2] and {p.guild_id for p in here} == {GUILD}
        assert [p.user_id for p in there] == [3]
        assert await dailies.board(42, "cheerio", 999) == []
        for user in (1, 3):
            await dailies.join_world(user, True)
        assert [p.user_id for p in await dailies.board(42, "cheerio", None)] == [1, 3]
        assert await dailies.board(41, "cheerio", GUILD) == []  # another day's board
    finally:
        await table.close()


async def test_streaks_over_days_with_a_gap(database: Target) -> None:
    """Days 42, 43 and 44 played: a streak of 3, still 3 on day 45 while it is unplayed. Day 45
    missed, so on day 46 the streak is 0 until that day's game is over, then 1; day 47 makes 2,
    as soon as its game is over (before anything has read and recorded its result). An
    unfinished game counts for nothing."""
    clock = Clock(NOON)
    table = await orchard(database, clock)
    try:
        dailies = Dailies(table.runner, clock)
        seen = []
        for day in (42, 43, 44):
            clock.now = NOON + (day - 42) * 86400
            await finished_play(table, dailies, GUILD, 1)
            seen.append(await dailies.streak("cheerio", 1))
        assert seen == [1, 2, 3]
        clock.now = NOON + 3 * 86400
        assert dailies.today() == 45 and await dailies.streak("cheerio", 1) == 3
        clock.now = NOON + 4 * 86400
        await dailies.game_of_the_day("cheerio", GUILD, player(1))  # begun only
        assert await dailies.streak("cheerio", 1) == 0
        clock.now += 3600
        await finished_play(table, dailies, GUILD, 1)
        assert await dailies.streak("cheerio", 1) == 1
        clock.now = NOON + 5 * 86400
        snapshot, _ = await dailies.game_of_the_day("cheerio", GUILD, player(1))
        for category in CATEGORIES:  # over, its result not read (so not recorded) yet
            await table.runner.act(snapshot.id, 1, "score", category)
        assert await dailies.streak("cheerio", 1) == 2
        assert await dailies.streak("cheerio", 1, today=44) == 3  # as of an earlier day
        assert await dailies.streak("applejack", 1) == 0  # each game has its own
    finally:
        await table.close()


async def test_forget_me_keeps_todays_play_bare_until_the_day_is_over(database: Target) -> None:
    """/forget-me (which reads the wall clock's day, as the bot's /daily does): yesterday's
    play goes; today's loses its name, result and game but still refuses a second game
    today, on no board and in no streak, until the purge after the day deletes it. Another
    player's marker-free play is untouched."""
    clock = Clock(time.time())
    today = day_of(clock.now)
    table = await orchard(database, clock)
    try:
        dailies = Dailies(table.runner, clock)
        clock.now -= 86400
        await finished_play(table, dailies, GUILD, 1)
        clock.now += 86400
        await finished_play(table, dailies, GUILD, 1)
        await finished_play(table, dailies, GUILD, 2)
        await dailies.join_world(1, True)
        # yesterday's and today's plays, their two games' seats, the world board
        assert await table.orchard.forget(GUILD, 1) == 1 + 1 + 2 + 1
        kept = "SELECT day, game_id, name, score, accuracy, finished_at FROM daily_plays"
        mine = f"{kept} WHERE user_id = 1"
        assert await query(database, mine) == [(today, NO_GAME, "", None, None, None)]
        with pytest.raises(Refusal, match="played today's Cheerio: come back tomorrow"):
            await dailies.game_of_the_day("cheerio", GUILD, player(1))
        assert [p.user_id for p in await dailies.board(today, "cheerio", GUILD)] == [2]
        await dailies.join_world(1, True)
        assert await dailies.board(today, "cheerio", None) == []
        assert await dailies.streak("cheerio", 1) == 0
        await table.store.purge_departed(0, today=today)
        assert len(await query(database, mine)) == 1, "kept while the day lasts"
        await table.store.purge_departed(0, today=today + 1)
        assert await query(database, mine) == []
        assert len(await query(database, f"{kept} WHERE user_id = 2")) == 1
    finally:
        await table.close()


async def test_a_result_recorded_after_forget_me_leaves_the_marker_bare(
    database: Target,
) -> None:
    """A board read Alice's finished play (its result not yet recorded), then her /forget-me
    committed before the board recorded it: the result is not written into the bare marker
    /forget-me left, which keeps only that she played today."""
    clock = Clock(time.time())
    today = day_of(clock.now)
    table = await orchard(database, clock)
    try:
        dailies = Dailies(table.runner, clock)
        snapshot, _ = await dailies.game_of_the_day("cheerio", GUILD, player(1))
        for category in CATEGORIES:
            await table.runner.act(snapshot.id, 1, "score", category)
        (read,) = await dailies.store.board(today, "cheerio", GUILD)
        assert read.score is None
        await table.orchard.forget(GUILD, 1)
        await dailies.finalize(read)
        kept = "SELECT day, game_id, name, score, accuracy, finished_at FROM daily_plays"
        assert await query(database, kept) == [(today, NO_GAME, "", None, None, None)]
    finally:
        await table.close()


async def test_a_play_without_accuracy_ranks_after_one_with_it_on_both_backends(
    database: Target,
) -> None:
    """Ann's play has no accuracy (a game whose review gives none): with the same score as
    Bea's and Dee's, she ranks after them, on either backend and board. Before, the order was
    left to the backend's NULLs: last on SQLite, but first on PostgreSQL, where a descending
    order puts NULLs first."""
    clock = Clock(NOON)
    table = await orchard(database, clock)
    try:
        async with written(database) as tx:
            for user, name, score, accuracy in (
                (1, "Ann", 150, None),
                (2, "Bea", 150, 90),
                (3, "Cy", 160, None),
                (4, "Dee", 150, 95),
            ):
                await tx.execute(
                    "INSERT INTO daily_plays (day, kind, user_id, guild_id, game_id, name,"
                    " score, accuracy) VALUES (42, 'cheerio', ?, ?, ?, ?, ?, ?)",
                    (user, GUILD, 1000 + user, name, score, accuracy),
                )
                await tx.execute(
                    "INSERT INTO daily_world (user_id, joined_at) VALUES (?, 0)", (user,)
                )
        dailies = Dailies(table.runner, clock)
        for guild in (GUILD, None):
            plays = await dailies.board(42, "cheerio", guild)
            assert [p.name for p in plays] == ["Cy", "Dee", "Bea", "Ann"], guild
    finally:
        await table.close()


async def test_equal_plays_read_by_name_whatever_its_case_then_by_id_on_both_backends(
    database: Target,
) -> None:
    """Equal plays (the same score and accuracy) share a place; the order among them is the
    names' regardless of case, then the people's ids for one name twice: "alice" before
    "Bob", the same on either backend and board. Before, SQLite compared names byte by byte
    (every capital before every small letter: "Bob" before "alice") and PostgreSQL by its
    collation, and a name twice was left in no order at all."""
    clock = Clock(NOON)
    table = await orchard(database, clock)
    try:
        async with written(database) as tx:
            for user, name in ((1, "carol"), (2, "Bob"), (3, "alice"), (4, "bob"), (5, "Bob")):
                await tx.execute(
                    "INSERT INTO daily_plays (day, kind, user_id, guild_id, game_id, name,"
                    " score, accuracy, world_name) VALUES (42, 'cheerio', ?, ?, ?, ?, 150, 90, ?)",
                    (user, GUILD, 1000 + user, name, name),
                )
                await tx.execute(
                    "INSERT INTO daily_world (user_id, joined_at) VALUES (?, 0)", (user,)
                )
        dailies = Dailies(table.runner, clock)
        for guild in (GUILD, None):
            plays = await dailies.board(42, "cheerio", guild)
            assert [(p.name, p.user_id) for p in plays] == [
                ("alice", 3),
                ("Bob", 2),
                ("bob", 4),
                ("Bob", 5),
                ("carol", 1),
            ], guild
    finally:
        await table.close()


async def test_a_lobby_a_crash_left_before_its_start_is_closed_once_its_day_is_over(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed between making the day's game and starting it, the process leaves a lobby that
    only a /daily that day would start. With none, the clock closes it when its game would
    have closed, at the next day's end (at the first pass after a restart): no result, no
    streak, nothing shown, and the next day's /daily makes that day's game meanwhile.
    Before, it had no deadline and stayed open for good."""
    clock = Clock(NOON)
    table = await orchard(database, clock)
    kill_at(monkeypatch, table.store.db, "UPDATE games")
    with pytest.raises(Killed):
        await Dailies(table.runner, clock).game_of_the_day("cheerio", GUILD, player(1))
    await table.close()
    (game_id,) = [r[0] for r in await query(database, "SELECT game_id FROM daily_plays")]
    table = await orchard(database, clock)  # restarted the same day: it waits for /daily
    try:
        assert await table.scheduler.run_due() == 0
        clock.now = end_of(43) - 1
        assert await table.scheduler.run_due() == 0
        dailies = Dailies(table.runner, clock)
        today, play = await dailies.game_of_the_day("cheerio", GUILD, player(1))
        assert play.day == 43 and today.id != game_id
        assert today.row.status is GameStatus.ACTIVE and today.row.deadline == end_of(44)
    finally:
        await table.close()
    clock.now = end_of(43) + 1
    table = await orchard(database, clock)  # restarted once the next day is over
    try:
        assert await table.scheduler.run_due() == 1
        left = await table.runner.load(game_id)
        assert left.row.status is GameStatus.CANCELLED and left.row.deadline is None
        assert table.shown.shown == []  # a daily game is never drawn on a public board
        dailies = Dailies(table.runner, clock)
        assert await dailies.board(42, "cheerio", GUILD) == []
        assert await dailies.streak("cheerio", 1) == 0
    finally:
        await table.close()


async def test_a_daily_asked_for_just_before_midnight_is_started_not_closed(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A /daily a moment before midnight makes the day's lobby and starts it a moment later.
    Should the clock pass midnight in between and look for due games, the lobby is not due:
    it closes when its game would, at the end of the next day. Before, its deadline was the
    end of its own day, and the clock closed it before the start: the person's play of the
    day was a game over before its first roll."""
    clock = Clock(end_of(42) - 0.001)
    table = await orchard(database, clock)
    try:
        dailies = Dailies(table.runner, clock)
        start = dailies._started

        async def after_midnight(game_id: int) -> Any:
            clock.now = end_of(42) + 1
            assert await table.scheduler.run_due() == 0
            return await start(game_id)

        monkeypatch.setattr(dailies, "_started", after_midnight)
        snapshot, play = await dailies.game_of_the_day("cheerio", GUILD, player(1))
        assert play.day == 42 and snapshot.row.status is GameStatus.ACTIVE
        assert snapshot.row.deadline == end_of(43)
    finally:
        await table.close()


async def rows_at_migration(target: Target, number: int, statements: list[str]) -> None:
    """Write ``statements`` into ``target`` migrated only up to ``number``: rows as an older
    Orchard left them, for the next migrations to find."""
    if is_url(target):
        conn = await asyncpg.connect(str(target))
        try:
            assert await migrate_postgres(conn, upto=number) == number
            for sql in statements:
                await conn.execute(sql)
        finally:
            await conn.close()
        return
    async with aiosqlite.connect(target, isolation_level=None) as lite:
        assert await migrate(lite, upto=number) == number
        for sql in statements:
            await lite.execute(sql)


async def test_daily_lobbies_stored_without_a_deadline_close_once_their_day_is_over(
    database: Target,
) -> None:
    """Lobbies of daily games made before they had a deadline: migration 22 gives each the
    end of its play's day, so yesterday's (left by a crash) closes at the first pass of the
    clock and today's still starts at its player's /daily. Games in play and lobbies in a
    channel keep theirs."""
    game = (
        "INSERT INTO games (id, kind, guild_id, channel_id, host_id, status, seed, options,"
        " created_at, updated_at) VALUES ({}, 'cheerio', 100, {}, {}, '{}', 5, '{}', 0, 0)"
    )
    seat = "INSERT INTO game_players (game_id, seat, user_id, name) VALUES ({}, 0, {}, 'Ann')"
    play = (
        "INSERT INTO daily_plays (day, kind, user_id, guild_id, game_id, name)"
        " VALUES ({}, '{}', {}, 100, {}, 'Ann')"
    )
    rows = [
        game.format(1, NO_CHANNEL, 7, "lobby", '{"daily": 42}'),  # yesterday's, left by a crash
        play.format(42, "cheerio", 7, 1),
        game.format(2, NO_CHANNEL, 7, "active", '{"daily": 42}'),  # in play, after midnight
        play.format(42, "applejack", 7, 2),
        game.format(3, 50, 7, "lobby", "{}"),  # an ordinary lobby
        game.format(4, NO_CHANNEL, 8, "lobby", '{"daily": 43}'),  # today's
        play.format(43, "cheerio", 8, 4),
        play.format(43, "applejack", 9, NO_GAME),  # what /forget-me kept
    ]
    rows += [seat.format(game_id, user) for game_id, user in ((1, 7), (2, 7), (3, 7), (4, 8))]
    await rows_at_migration(database, 21, rows)
    clock = Clock(NOON + 86400)
    table = await orchard(database, clock)
    try:
        deadlines = await query(database, "SELECT id, deadline FROM games ORDER BY id")
        # and migration 25 gives the game in play the end of the day after its own
        assert deadlines == [(1, end_of(42)), (2, end_of(43)), (3, None), (4, end_of(43))]
        assert await table.scheduler.run_due() == 1
        statuses = await query(database, "SELECT id, status FROM games ORDER BY id")
        assert statuses == [(1, "cancelled"), (2, "active"), (3, "lobby"), (4, "lobby")]
        today, _ = await Dailies(table.runner, clock).game_of_the_day("cheerio", GUILD, player(8))
        assert today.id == 4 and today.row.status is GameStatus.ACTIVE
    finally:
        await table.close()


async def test_a_daily_game_left_unfinished_closes_when_the_next_day_ends(
    database: Target,
) -> None:
    """A daily game stays its day's, and can be finished the next day: moves then keep its
    closing time. Still unfinished when that next day ends, the clock closes it without a
    result (no board, no streak, nothing shown); one finished after midnight counts for its
    own day. Before, a game left unfinished had no deadline and stayed open for good."""
    clock = Clock(NOON)
    table = await orchard(database, clock)
    try:
        dailies = Dailies(table.runner, clock)
        left, _ = await dailies.game_of_the_day("cheerio", GUILD, player(1))
        late, _ = await dailies.game_of_the_day("cheerio", GUILD, player(2))
        await table.runner.act(left.id, 1, "score", CATEGORIES[0])
        clock.now = NOON + 86400  # the next day: both still open, and playable
        assert await table.scheduler.run_due() == 0
        offered = await dailies.unfinished("cheerio", 1)
        assert offered is not None and offered.id == left.id
        left = await table.runner.act(left.id, 1, "score", CATEGORIES[1])
        assert left.row.status is GameStatus.ACTIVE and left.row.deadline == end_of(43)
        for category in CATEGORIES:
            await table.runner.act(late.id, 2, "score", category)
        assert await dailies.unfinished("cheerio", 2) is None  # finished: nothing to offer
        clock.now = end_of(43) - 1
        assert await table.scheduler.run_due() == 0
        clock.now = end_of(43)
        assert await table.scheduler.run_due() == 1
        closed = await table.runner.load(left.id)
        assert closed.row.status is GameStatus.ABANDONED and closed.row.deadline is None
        assert await table.runner.replay(left.id) == closed.state
        assert table.shown.shown == []  # a daily game is never drawn on a public board
        assert [p.user_id for p in await dailies.board(42, "cheerio", GUILD)] == [2]
        assert await dailies.streak("cheerio", 1, 43) == 0
        assert await dailies.streak("cheerio", 2, 43) == 1
        with pytest.raises(Refusal):
            await table.runner.act(left.id, 1, "score", CATEGORIES[2])
    finally:
        await table.close()


async def test_daily_games_in_play_stored_without_a_deadline_close_in_time(
    database: Target,
) -> None:
    """Daily games in play from before they had a deadline: migration 25 gives each the end of
    the day after its own. One of long ago closes at the clock's first pass; yesterday's and
    today's stay open. Finished games, lobbies and ordinary games keep theirs."""
    game = (
        "INSERT INTO games (id, kind, guild_id, channel_id, host_id, status, seed, options,"
        " created_at, updated_at, deadline) VALUES"
        " ({}, 'cheerio', 100, {}, 7, '{}', 5, '{}', 0, 0, {})"
    )
    seat = "INSERT INTO game_players (game_id, seat, user_id, name) VALUES ({}, 0, 7, 'Ann')"
    play = (
        "INSERT INTO daily_plays (day, kind, user_id, guild_id, game_id, name)"
        " VALUES ({}, 'cheerio', 7, 100, {}, 'Ann')"
    )
    rows = [
        game.format(1, NO_CHANNEL, "active", '{"daily": 40}', "NULL"),  # left long ago
        play.format(40, 1),
        game.format(2, NO_CHANNEL, "active", '{"daily": 42}', "NULL"),  # yesterday's
        play.format(42, 2),
        game.format(3, NO_CHANNEL, "active", '{"daily": 43}', "NULL"),  # today's
        play.format(43, 3),
        game.format(4, NO_CHANNEL, "finished", '{"daily": 41}', "NULL"),
        play.format(41, 4),
        game.format(5, 50, "active", "{}", 2e9),  # an ordinary game's turn, in 2033
    ]
    rows += [seat.format(game_id) for game_id in range(1, 6)]
    await rows_at_migration(database, 23, rows)
    clock = Clock(NOON + 86400)
    table = await orchard(database, clock)
    try:
        deadlines = await query(database, "SELECT id, deadline FROM games ORDER BY id")
        assert deadlines == [
            (1, end_of(41)),
            (2, end_of(43)),
            (3, end_of(44)),
            (4, None),
            (5, 2e9),
        ]
        assert await table.scheduler.run_due() == 1
        statuses = await query(database, "SELECT id, status FROM games ORDER BY id")
        assert [s for _, s in statuses] == ["abandoned", "active", "active", "finished", "active"]
    finally:
        await table.close()
