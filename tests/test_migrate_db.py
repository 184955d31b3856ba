"""``orchard migrate-db``: a SQLite file with games in play, copied by the real command into
PostgreSQL, holds there every row it held, and its games play on through the runner."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import asyncpg
import pytest

from bot.daily import NO_GAME, DailyPlay, PostedBoard
from bot.model import Player, TurnPing
from db.daily import DailyStore
from db.games import ID_FLOOR
from db.transfer import TABLES
from tests.databases import fresh_schema, query
from tests.support import GUILD, Table, finish_cheerio, orchard, started

ROOT = Path(__file__).resolve().parent.parent


async def migrate_db(source: Path, target: str) -> tuple[int, str, str]:
    """The command as an operator runs it: exit status, stdout, stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "migrate-db",
        "--from",
        str(source),
        "--to",
        target,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def games_of_every_kind(o: Table) -> int:
    """A finished rated game (its board queued to be drawn anew), a lobby, and a Cheerio game
    in play (returned) with a deadline, a turn ping and settings around it."""
    done = await started(o, "cheerio", [1, 2])
    await finish_cheerio(o, done.id, {0: 1, 1: 2})
    await o.lobby.open("hotscore", GUILD, 300, Player(0, 3, "user3"))
    live = await started(o, "cheerio", [1, 2])
    live = await o.runner.act(live.id, 1, "hold", "2", version=0)
    await o.store.set_turn_ping(TurnPing(live.id, live.row.version, frozenset({0}), 55))
    await o.store.set_guild_settings(GUILD, {"turn_seconds": 60})
    await o.store.set_ping_choice(GUILD, 2, dm=True)
    await o.store.note_tile_dm(live.id, 1, "ABC", closed=False)
    await o.store.guild_left(GUILD + 1, 5.0)
    await o.store.set_meta("k", "v")
    async with o.store.db.transaction() as tx:  # its board, as a /forget-me queues it
        await tx.execute("INSERT INTO boards_to_draw (game_id) VALUES (?)", (done.id,))
    daily = DailyStore(o.store.db)
    play = DailyPlay(327, "cheerio", 1, GUILD, NO_GAME, "user1")
    added = await daily.add_game_and_play(play, Player(0, 1, "user1"), 5, {"daily": 327}, 5.0)
    assert added is not None
    await daily.finish(added, 187, 98, 6.0)
    await daily.set_world(1, True, 7.0)
    await daily.set_channel(GUILD, 400)
    await daily.posted(GUILD, PostedBoard(326, 400, 401), 328)  # not yet made final
    return live.id


async def every_row(target: Path | str, table: str) -> list[tuple[object, ...]]:
    return sorted(await query(target, f"SELECT * FROM {table}"), key=repr)


async def test_every_table_is_copied(tmp_path: Path) -> None:
    """A table added by a migration and not to ``TABLES`` would be left behind silently."""
    o = await orchard(tmp_path / "o.db")
    await o.close()
    found = await query(
        tmp_path / "o.db",
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'schema_migrations'",
    )
    assert sorted(TABLES) == sorted(name for (name,) in found)


@pytest.mark.postgres
async def test_a_database_with_games_in_play_moves_to_postgres_and_plays_on(
    tmp_path: Path,
) -> None:
    source = tmp_path / "o.db"
    o = await orchard(source)
    game_id = await games_of_every_kind(o)
    purged_up_to = game_id + 100  # a departed server's games purged: never given out again
    await o.store.set_meta(ID_FLOOR, str(purged_up_to))
    await o.close()
    async with fresh_schema() as url:
        status, out, err = await migrate_db(source, url)
        assert status == 0, err
        printed = dict(line.split() for line in out.splitlines()[1:])
        for table in TABLES:
            rows = await every_row(source, table)
            assert rows, f"the source has no {table} rows: the test copies too little"
            assert await every_row(url, table) == rows, table
            assert printed[table] == str(len(rows)), out

        o = await orchard(url)  # the game in play goes on where it was, on PostgreSQL
        before = await o.runner.load(game_id)
        assert before.row.revision > 0, "its revision came along: boards compare it"
        after = await o.runner.act(game_id, 1, "roll", version=before.row.version)
        assert after.row.version == before.row.version + 1
        assert after.row.revision == before.row.revision + 1
        assert await o.runner.replay(game_id) == after.state
        assert (await o.runner.load(game_id)).state == after.state
        newer = await o.lobby.open("cheerio", GUILD, 301, Player(0, 4, "user4"))
        assert newer.id > purged_up_to, "new games get new ids, none a purged game had"
        await o.close()

        status, _, err = await migrate_db(source, url)
        assert status == 1 and "not empty" in err, "a second copy is refused"


@pytest.mark.postgres
async def test_a_database_of_another_program_is_refused_before_anything_is_made(
    tmp_path: Path,
) -> None:
    """A URL naming another program's database: refused, and no table of Orchard's is made
    there (its migrations ran first, before the check for rows)."""
    source = tmp_path / "o.db"
    await (await orchard(source)).close()
    async with fresh_schema() as url:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute("CREATE TABLE invoices (id INTEGER)")
            status, _, err = await migrate_db(source, url)
            assert status == 1 and "invoices" in err, err
            tables = await conn.fetch(
                "SELECT table_name FROM information_schema.tables"
                " WHERE table_schema = current_schema()"
            )
            assert [r[0] for r in tables] == ["invoices"]
        finally:
            await conn.close()
